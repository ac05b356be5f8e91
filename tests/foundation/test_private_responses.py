"""A signed-in reader's responses are kept by no cache; what says how it may be cached keeps its word."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db


def directives(response) -> set[str]:
    return {part.strip() for part in response.get("Cache-Control", "").split(",") if part.strip()}


@pytest.mark.parametrize("path", ["/", "/sessions/", "/knowledge/", "/api/documents"])
def test_a_session_readers_pages_and_answers_are_stored_by_no_cache(client, owner, path):
    client.force_login(owner)

    response = client.get(path)

    assert response.status_code == 200
    assert {"private", "no-store"} <= directives(response)


def test_a_token_readers_answers_are_stored_by_no_cache_and_vary_with_the_token(client, owner):
    token = Token.objects.create(user=owner)

    response = client.get("/api/documents", HTTP_AUTHORIZATION=f"Token {token.key}")

    assert response.status_code == 200
    assert {"private", "no-store"} <= directives(response)
    assert "Authorization" in response["Vary"]


def test_an_anonymous_readers_pages_are_left_alone(client):
    assert "Cache-Control" not in client.get("/healthz")


def test_a_response_that_declares_its_own_caching_keeps_it(client, owner):
    """The language catalogue is the same text for every reader of a language: private, not unstorable."""
    client.force_login(owner)

    assert directives(client.get("/jsi18n/")) == {"private"}
