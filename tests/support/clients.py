"""How integration tests act as a user against a live server: a session cookie and an API token."""

from __future__ import annotations

import importlib

import httpx
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.test import Client
from rest_framework.authtoken.models import Token


def auditors_group() -> Group:
    """The group as its data migration makes it; made again when a transactional test's flush removed it."""
    migration = importlib.import_module("tracing.migrations.0002_auditors_group")
    group, created = Group.objects.get_or_create(name=migration.GROUP_NAME)
    if created:
        for app_label, codename in migration.PERMISSIONS:
            group.permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    return group


def login(username: str, *, auditor: bool = False) -> tuple[dict[str, str], dict[str, str]]:
    """A session cookie (for the browser-style SSE stream) and a token header (for the API and SSE).

    ``auditor``: a staff member of the ``auditors`` group, who may read every run.
    """
    user = get_user_model().objects.create_user(username, password=f"{username}-pass-123", is_staff=auditor)
    if auditor:
        user.groups.add(auditors_group())
    client = Client()
    client.force_login(user)
    token = Token.objects.create(user=user)
    return {"sessionid": client.cookies["sessionid"].value}, {"Authorization": f"Token {token.key}"}


def submit(base: str, headers: dict[str, str], message: str, **extra: str) -> dict[str, str]:
    response = httpx.post(f"{base}/api/chat", json={"message": message, **extra}, headers=headers, timeout=10)
    assert response.status_code == 202, response.text
    return response.json()
