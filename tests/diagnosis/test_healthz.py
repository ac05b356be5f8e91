"""GET /healthz in-process, embedded mode: the run pool's threads are the worker (the live processes, Redis
and Celery are in tests/integration/test_healthz.py)."""

from __future__ import annotations

import threading

import pytest
from rest_framework.test import APIClient

from diagnosis import dispatch
from tests.support.run_pool import stand_in_run_pool

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def embedded(settings):
    settings.RUN_EXECUTION = "embedded"
    settings.REDIS_URL = None


@pytest.fixture
def pool(monkeypatch):
    """A run pool of one thread, standing in for the one the ASGI app starts."""
    yield from stand_in_run_pool(monkeypatch, workers=1)


def test_it_answers_200_to_anyone_when_a_pool_thread_answers(pool):
    response = APIClient().get("/healthz", HTTP_AUTHORIZATION="Token not-a-token")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "worker"}
    assert all(check["ok"] and check["error"] == "" for check in body["checks"].values())


def test_it_answers_503_while_every_pool_thread_is_busy(pool):
    release = threading.Event()
    pool.submit(release.wait)
    try:
        response = APIClient().get("/healthz")
    finally:
        release.set()

    assert response.status_code == 503
    worker = response.json()["checks"]["worker"]
    assert (worker["ok"], worker["error"]) == (False, "no executor thread answered within 1 s")


def test_it_never_starts_the_pool_itself(monkeypatch):
    monkeypatch.setattr(dispatch, "_pool", None)

    response = APIClient().get("/healthz")

    assert response.status_code == 503
    assert response.json()["checks"]["worker"]["ok"] is False
    assert dispatch._pool is None
