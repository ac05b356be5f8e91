"""The people of the audit tests besides owner, other user and auditor: an auditor by single permissions."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from tests.tracing.factories import make_run, make_session


@pytest.fixture
def run_auditor(db):
    """Staff allowed to read every run but not the restricted reasoning audit."""
    user = get_user_model().objects.create_user("run-auditor", password="run-auditor-pass-123", is_staff=True)
    user.user_permissions.add(Permission.objects.get(content_type__app_label="diagnosis", codename="view_diagnosisrun"))
    return user


@pytest.fixture
def api_client():
    """An API client signed in as the given user (session authentication, as the page uses), or anonymous."""

    def make(user=None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_login(user)
        return client

    return make


@pytest.fixture
def owned_run(owner):
    return make_run(make_session(owner))
