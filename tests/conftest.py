"""Shared fixtures: the people every API test is run as (owner, other user, auditor, superuser, anonymous)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import translation

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """The default hasher costs about a second per user; tests check authorisation, not hashing."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def default_language():
    """Each test starts in the default language: LocaleMiddleware activates a request's language in the
    thread that answers it and nothing deactivates it, so a test client request in Chinese would leave the
    next test (a command's message, a template) speaking Chinese."""
    yield
    translation.deactivate()


@pytest.fixture
def owner(db):
    return get_user_model().objects.create_user("owner", password="owner-pass-123")


@pytest.fixture
def other_user(db):
    return get_user_model().objects.create_user("other", password="other-pass-123")


def make_staff(username: str):
    """A staff user (may sign in to the admin) with no permission yet."""
    return get_user_model().objects.create_user(username, password=f"{username}-pass-123", is_staff=True)


@pytest.fixture
def auditor(db):
    """A member of the ``auditors`` group (created by tracing/migrations/0002), staff to use the admin."""
    user = make_staff("auditor")
    user.groups.add(Group.objects.get(name="auditors"))
    return user


@pytest.fixture
def superuser(db):
    return get_user_model().objects.create_superuser("root", password="root-pass-123")


@pytest.fixture
def manage_py():
    """Run ``manage.py`` in a subprocess with this run's environment; ``env`` overrides, None unsets."""
    import subprocess

    def run(*args: str, env: dict[str, str | None] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
        merged = {key: value for key, value in {**os.environ, **(env or {})}.items() if value is not None}
        return subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), *args],
            cwd=ROOT,
            env=merged,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run
