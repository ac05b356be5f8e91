"""How integration tests act as a user against a live server: a session cookie and an API token."""

from __future__ import annotations

import httpx
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token


def login(username: str) -> tuple[dict[str, str], dict[str, str]]:
    """A session cookie (for the browser-style SSE stream) and a token header (for the API)."""
    user = get_user_model().objects.create_user(username, password=f"{username}-pass-123")
    client = Client()
    client.force_login(user)
    token = Token.objects.create(user=user)
    return {"sessionid": client.cookies["sessionid"].value}, {"Authorization": f"Token {token.key}"}


def submit(base: str, headers: dict[str, str], message: str, **extra: str) -> dict[str, str]:
    response = httpx.post(f"{base}/api/chat", json={"message": message, **extra}, headers=headers, timeout=10)
    assert response.status_code == 202, response.text
    return response.json()
