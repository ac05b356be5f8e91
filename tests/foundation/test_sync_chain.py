"""Under ASGI the middleware chain runs in one switch to the request's thread (``config.sync_chain``), not
one ``sync_to_async`` call per middleware method, and it behaves as before: headers, sessions, 404s."""

from __future__ import annotations

import pytest
from asgiref import sync
from asgiref.sync import async_to_sync
from django.test import AsyncClient

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def switches(monkeypatch) -> list[str]:
    """The names of the functions run through ``sync_to_async`` while the test runs."""
    names: list[str] = []
    original = sync.SyncToAsync.__call__

    async def counted(self, *args, **kwargs):
        names.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__call__", counted)
    return names


def get(path: str):
    """A GET through Django's ASGI handler (the chain as uvicorn runs it)."""
    return async_to_sync(AsyncClient().get)(path)


def test_no_middleware_method_switches_threads_on_its_own(switches):
    response = get("/accounts/login/")

    assert response.status_code == 200
    assert not [name for name in switches if ".process_request" in name or ".process_response" in name]
    assert response.headers["X-Frame-Options"] == "DENY"  # the chain's innermost middleware still ran
    assert "csrftoken" in response.cookies


def test_an_api_404_keeps_its_json_shape():
    response = get("/api/no-such-thing")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
