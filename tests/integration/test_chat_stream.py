"""End to end through real parts: uvicorn, the run executor (in-process threads, or a Celery worker
process on Redis in the production-style pass), the database, and a real SSE client.

The run is read from its events_url, then read again with ``Last-Event-ID`` set to each event's id: the
replay must continue exactly after that event, with no loss and no duplicate.
"""

from __future__ import annotations

import pytest

from diagnosis.models import DiagnosisRun, RunStatus
from tests.support.clients import login, submit
from tests.support.sse_client import read_events

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_streams_a_run_in_order_and_replays_it_without_loss(live_stack):
    cookies, headers = login("streamer")

    accepted = submit(live_stack.base, headers, "hello")
    events = read_events(live_stack.base + accepted["events_url"], cookies=cookies)

    names = [event.event for event in events]
    assert names[0] == "metadata"
    assert names[-1] == "done"
    assert names.count("done") == 1
    assert "content" in names and "failure" not in names
    assert set(names[1:-2]) <= {"status"}
    assert events[0].data == {"session_id": accepted["session_id"], "run_id": accepted["run_id"]}
    assert events[-1].data == {"outcome": "SUCCESS", "run_id": accepted["run_id"]}
    content = next(event for event in events if event.event == "content")
    assert "diagnose" in content.data["markdown"]
    assert content.data["html"].startswith("<p>")
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
