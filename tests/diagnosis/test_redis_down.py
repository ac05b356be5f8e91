"""Redis (broker and SSE fan-out) down: a quick JSON 503 and nothing written, or - when it goes away between
the check and the hand-off - the run failed at once with ``failure`` and one ``done``; the reaper finishes
cleanly. Redis is really down here: its URL points at a loopback port nothing listens on (bound, closed).
"""

from __future__ import annotations

import time
from datetime import timedelta

import django_eventstream.eventstream
import pytest
import redis
from django.utils import timezone
from rest_framework.test import APIClient

from config.celery import app as celery_app
from diagnosis import sse, submission
from diagnosis.models import ChatSession, DiagnosisRun, RunStatus
from tests.support.live import closed_port, closed_redis_url, database_url, silent_port
from tests.support.stored_events import payload, stored_events, stored_names
from tracing.models import DiagnosisTraceEvent

pytestmark = pytest.mark.django_db(transaction=True)

URL = "/api/chat"
UNAVAILABLE = {
    "error": {
        "code": "service_unavailable",
        "message": "The service cannot start runs right now (its broker is unreachable); try again shortly.",
    }
}


def stream_names(run_id) -> list[str]:
    return stored_names(run_id)


@pytest.fixture
def api(owner) -> APIClient:
    client = APIClient()
    client.force_authenticate(owner)
    return client


@pytest.fixture
def fan_out_down(monkeypatch):
    """django-eventstream's Redis client (built from EVENTSTREAM_REDIS at import) aimed at a closed port."""
    monkeypatch.setattr(django_eventstream.eventstream, "redis_client", redis.Redis(port=closed_port(), retry=None))


@pytest.fixture
def broker_down(settings, monkeypatch):
    """Runs go to Celery, whose broker (the app's own settings, its pools reset) is a closed port."""
    settings.RUN_EXECUTION = "celery"
    monkeypatch.setitem(celery_app.conf, "broker_url", closed_redis_url())
    monkeypatch.setattr(celery_app, "_pool", None)
    monkeypatch.setattr(celery_app.amqp, "_producer_pool", None)


def test_it_answers_503_quickly_and_writes_nothing_when_redis_is_down(api, settings):
    settings.REDIS_URL = closed_redis_url()

    started = time.monotonic()
    response = api.post(URL, {"message": "payment-service p99 tripled, why?"}, format="json")

    assert time.monotonic() - started < 1.5
    assert response.status_code == 503
    assert response["Retry-After"] == str(submission.RETRY_UNAVAILABLE_SECONDS)
    assert response.json() == UNAVAILABLE
    assert not ChatSession.objects.exists() and not DiagnosisRun.objects.exists()
    assert not DiagnosisTraceEvent.log.exists()


def test_it_gives_up_on_a_silent_redis_within_the_socket_timeout(api, settings):
    settings.REDIS_SOCKET_TIMEOUT_SECONDS = 0.5
    with silent_port() as port:
        settings.REDIS_URL = f"redis://127.0.0.1:{port}/10"
        started = time.monotonic()
        response = api.post(URL, {"message": "hi"}, format="json")

    assert time.monotonic() - started < 3
    assert response.status_code == 503
    assert response["Retry-After"] == str(submission.RETRY_UNAVAILABLE_SECONDS)
    assert not DiagnosisRun.objects.exists()


def test_a_bad_message_is_still_a_400_when_redis_is_down(api, settings):
    settings.REDIS_URL = closed_redis_url()

    response = api.post(URL, {"message": "   "}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "empty_message"


def test_a_run_the_broker_refuses_after_the_check_is_failed_at_once_with_one_done(api, broker_down, monkeypatch):
    # The quick check passed a moment before; then Redis went away before the hand-off.
    monkeypatch.setattr(submission, "redis_reachable", lambda: True)

    started = time.monotonic()
    response = api.post(URL, {"message": "payment-service p99 tripled, why?"}, format="json")

    assert time.monotonic() - started < 5
    assert response.status_code == 503
    assert response["Retry-After"] == str(submission.RETRY_UNAVAILABLE_SECONDS)
    assert response.json() == UNAVAILABLE
    run = DiagnosisRun.objects.get()
    assert run.status == RunStatus.FAILED and run.failure_reason == "broker_unavailable"
    assert run.finished_at is not None and run.claimed_at is None
    assert stream_names(run.pk) == ["metadata", "failure", "done"]
    [failure] = [event for event in stored_events(run.pk) if event.type == "failure"]
    assert payload(failure)["code"] == "broker_unavailable"
    assert DiagnosisTraceEvent.objects.filter(run=run, name="failed").exists()


def test_an_event_is_stored_when_its_announcement_fails(fan_out_down):
    run_id = "3f0c1a36-5b8e-4d7a-9d47-0d1b1c0f8e11"

    announced = sse.publish(run_id, "status", {"n": 1})

    assert announced is False
    assert stream_names(run_id) == ["status"]


def make_stale_run(owner, *, age_minutes: int = 60) -> DiagnosisRun:
    """A run claimed ``age_minutes`` ago by a worker that has not been heard of since."""
    run = DiagnosisRun.objects.create(session=ChatSession.objects.create(owner=owner), query="why?")
    then = timezone.now() - timedelta(minutes=age_minutes)
    DiagnosisRun.objects.filter(pk=run.pk).update(started_at=then, claimed_at=then, heartbeat_at=then)
    return run


def test_the_reaper_finishes_cleanly_with_redis_down(owner, manage_py):
    stale = [make_stale_run(owner), make_stale_run(owner)]
    live = make_stale_run(owner, age_minutes=0)
    redis_url = closed_redis_url()

    result = manage_py("reap_stale_runs", env={"DATABASE_URL": database_url(), "REDIS_URL": redis_url})

    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert "2 stale run(s) reaped" in result.stdout
    address = redis_url.removeprefix("redis://").removesuffix("/10")
    assert f"warning: Redis at {address} is unreachable: the 2 run(s) above are FAILED" in result.stderr
    for run in stale:
        run.refresh_from_db()
        assert run.status == RunStatus.FAILED and run.failure_reason == "worker_lost"
        assert stream_names(run.pk) == ["failure", "done"]
    live.refresh_from_db()
    assert live.status == RunStatus.RUNNING and stream_names(live.pk) == []

    again = manage_py("reap_stale_runs", env={"DATABASE_URL": database_url(), "REDIS_URL": redis_url})

    assert again.returncode == 0, again.stderr
    assert "0 stale run(s) reaped" in again.stdout and "Traceback" not in again.stderr
