"""End to end through real parts: uvicorn, the run executor (in-process threads, or a Celery worker
process on Redis in the production-style pass), the database, and a real SSE client.

The run is read from its events_url, then read again with ``Last-Event-ID`` set to each event's id: the
replay must continue exactly after that event, with no loss and no duplicate.
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from diagnosis.models import DiagnosisRun, RunStatus
from tests.support.clients import login, submit
from tests.support.sse_client import read_events

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_streams_a_diagnosis_in_order_and_replays_it_without_loss(live_stack):
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    cookies, headers = login("streamer")

    accepted = submit(live_stack.base, headers, "payment-service p99 latency tripled since 10:05, why?")
    events = read_events(live_stack.base + accepted["events_url"], cookies=cookies)

    names = [event.event for event in events]
    assert names[0] == "metadata" and names[-2:] == ["content", "done"]
    assert set(names[1:-2]) == {"status"}
    assert events[0].data == {"session_id": accepted["session_id"], "run_id": accepted["run_id"]}
    assert events[-1].data == {"outcome": "SUCCESS", "run_id": accepted["run_id"]}
    statuses = [event.data for event in events if event.event == "status"]
    assert [s["node"] for s in statuses if s["phase"] == "started"] == [
        "planner",
        "executor",
        "gatekeeper",
        "verified_input",
        "verifier",
        "composer",
    ]
    assert any(s["phase"] == "tool" and s["detail"].startswith("query_logs") for s in statuses)
    content = events[-2].data
    assert "connection pool" in content["markdown"].lower()
    assert content["html"].startswith("<h2>") and content["evidence"]
    assert [event.id for event in events] == [f"run-{accepted['run_id']}:{n}" for n in range(1, len(events) + 1)]
    run = DiagnosisRun.objects.get(pk=accepted["run_id"])
    assert run.status == RunStatus.SUCCESS

    for index, event in enumerate(events[:-1]):
        replay = read_events(
            f"{live_stack.base}/events/run-{accepted['run_id']}/", cookies=cookies, last_event_id=event.id
        )
        assert replay == events[index + 1 :], f"replay after event {index} ({event.id})"


def test_it_refuses_the_stream_to_another_user(live_stack):
    _, owner_headers = login("stream-owner")
    intruder_cookies, _ = login("stream-intruder")
    accepted = submit(live_stack.base, owner_headers, "hi")

    events = read_events(live_stack.base + accepted["events_url"], cookies=intruder_cookies)

    assert [event.event for event in events] == ["stream-error"]
    assert events[0].data["condition"] == "forbidden"


def test_it_refuses_the_stream_to_anonymous_users(live_stack):
    _, headers = login("stream-owner2")
    accepted = submit(live_stack.base, headers, "hi")

    events = read_events(live_stack.base + accepted["events_url"], cookies={})

    assert events[0].event == "stream-error"
    assert events[0].data["condition"] == "forbidden"
