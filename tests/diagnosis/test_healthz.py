"""GET /healthz in-process, embedded mode: the run pool's threads are the worker (the live processes, Redis
and Celery are in tests/integration/test_healthz.py)."""

from __future__ import annotations

import threading

import pytest
from django.core.cache import cache
from django.db import OperationalError
from rest_framework.test import APIClient

from diagnosis import dispatch, reaper
from diagnosis.health import checks
from tests.support.run_pool import stand_in_run_pool

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def embedded(settings):
    settings.RUN_EXECUTION = "embedded"
    settings.REDIS_URL = None


@pytest.fixture(autouse=True)
def reaped():
    """A reaper pass just ended (the embedded timer's first one, in a served process)."""
    cache.delete(reaper.LAST_PASS_KEY)
    reaper.scheduled_pass()
    yield
    cache.delete(reaper.LAST_PASS_KEY)


@pytest.fixture
def pool(monkeypatch):
    """A run pool of one thread, standing in for the one the ASGI app starts."""
    yield from stand_in_run_pool(monkeypatch, workers=1)


def test_it_answers_200_to_anyone_when_a_pool_thread_answers(pool):
    response = APIClient().get("/healthz", HTTP_AUTHORIZATION="Token not-a-token")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "worker", "reaper"}
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


def test_it_is_degraded_but_up_when_no_reaper_pass_is_recorded(pool):
    """Workers without celery beat: runs are answered, but one whose worker dies would stay RUNNING."""
    cache.delete(reaper.LAST_PASS_KEY)

    response = APIClient().get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["checks"]["reaper"]["ok"] is False
    assert body["checks"]["reaper"]["error"] == "no reaper pass recorded: the embedded timer has not completed one"
    assert body["checks"]["worker"]["ok"] is True


def test_it_is_degraded_when_the_last_pass_is_three_intervals_old(pool, settings, monkeypatch):
    last = reaper.last_pass()
    assert last is not None
    late = 3 * settings.REAPER_INTERVAL_SECONDS
    monkeypatch.setattr(checks.time, "time", lambda: last + late - 1)
    assert APIClient().get("/healthz").json()["status"] == "ok"

    monkeypatch.setattr(checks.time, "time", lambda: last + late + 5)
    response = APIClient().get("/healthz")

    assert (response.status_code, response.json()["status"]) == (200, "degraded")
    assert response.json()["checks"]["reaper"]["error"] == f"the last reaper pass ended {late + 5:.0f} s ago"


def test_a_failed_pass_is_not_recorded(monkeypatch):
    cache.delete(reaper.LAST_PASS_KEY)

    def database_down(**limits):
        raise OperationalError("gone")

    monkeypatch.setattr(reaper, "reap_stale_runs", database_down)
    with pytest.raises(OperationalError):
        reaper.scheduled_pass()

    assert reaper.last_pass() is None


def test_the_reaper_is_not_asked_when_its_cache_the_database_is_down(pool, monkeypatch):
    def down() -> None:
        raise OperationalError("gone")

    monkeypatch.setattr(checks, "_database", down)

    body = APIClient().get("/healthz").json()

    assert body["status"] == "unavailable"
    assert body["checks"]["reaper"] == {
        "ok": False,
        "latency_ms": 0,
        "error": "not asked: its cache (database) is down",
    }


def test_unavailable_wins_over_degraded(monkeypatch):
    monkeypatch.setattr(dispatch, "_pool", None)
    cache.delete(reaper.LAST_PASS_KEY)

    response = APIClient().get("/healthz")

    assert (response.status_code, response.json()["status"]) == (503, "unavailable")
