"""A real server whose Redis is down (``REDIS_URL`` at a loopback port nothing listens on).

The chat API answers the project's JSON 503 within a second or two, with nothing committed, and a run that
has ended can still be read from its stream: events are stored in the database, Redis only announces them.
"""

from __future__ import annotations

import time

import httpx
import pytest
from django.contrib.auth import get_user_model

from diagnosis import sse
from diagnosis.failures import FailureCode
from diagnosis.models import ChatSession, DiagnosisRun
from diagnosis.services import run_fail
from tests.support.clients import login
from tests.support.live import closed_redis_url, process_env, uvicorn_server
from tests.support.sse_client import read_events

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def redis_down_server(static_root):
    with uvicorn_server(process_env(REDIS_URL=closed_redis_url(), STATIC_ROOT=static_root)) as server:
        yield server


def test_the_chat_api_answers_a_json_503_and_commits_nothing(redis_down_server):
    _, headers = login("redis-down")

    started = time.monotonic()
    response = httpx.post(
        f"{redis_down_server.base}/api/chat", json={"message": "payment-service p99 tripled, why?"}, headers=headers
    )

    assert time.monotonic() - started < 2
    assert response.status_code == 503
    assert response.headers["content-type"] == "application/json"
    assert response.json()["error"]["code"] == "service_unavailable"
    assert not ChatSession.objects.exists() and not DiagnosisRun.objects.exists()


def test_an_ended_run_is_still_read_from_storage(redis_down_server):
    cookies, _ = login("redis-down-reader")
    owner = get_user_model().objects.get(username="redis-down-reader")
    run = DiagnosisRun.objects.create(session=ChatSession.objects.create(owner=owner), query="why?")
    run_fail(run, reason=FailureCode.WORKER_LOST)

    events = read_events(redis_down_server.base + sse.events_url(run.pk), cookies=cookies, timeout=30)

    assert [event.event for event in events] == ["failure", "done"]
    assert events[-1].data == {"outcome": "FAILED", "run_id": str(run.pk)}
