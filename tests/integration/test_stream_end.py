"""A finished run's stream ends, through a real server: closed after ``done``, replayed and closed again on
a reconnect from an earlier event, opened and closed at once on a reconnect from ``done`` itself.

``httpx.get`` reads a response to its end: a stream the server left open would fail it with a read timeout.
"""

from __future__ import annotations

import httpx
import pytest

from diagnosis import sse
from tests.support.clients import login, submit
from tests.support.sse_client import read_events

pytestmark = pytest.mark.django_db(transaction=True)

# Long enough for a short run, far shorter than the library's 20 s keep-alive: a stream the server
# left open would end the read with a TimeoutError (or httpx's read timeout), never with a list.
READ_SECONDS = 15


def test_the_stream_is_closed_after_done(module_stack):
    cookies, headers = login("ended-reader")
    accepted = submit(module_stack.base, headers, "hi")

    events = read_events(module_stack.base + accepted["events_url"], cookies=cookies, until=None, timeout=READ_SECONDS)

    names = [event.event for event in events]
    assert names[0] == "metadata" and names[-1] == "done" and names.count("done") == 1


def test_a_reconnect_before_done_replays_and_is_closed(module_stack):
    cookies, headers = login("replay-reader")
    accepted = submit(module_stack.base, headers, "hi")
    url = module_stack.base + accepted["events_url"]
    first = read_events(url, cookies=cookies, until=None, timeout=READ_SECONDS)

    again = read_events(url, cookies=cookies, until=None, timeout=READ_SECONDS)
    resumed = read_events(
        f"{module_stack.base}/events/{sse.channel_for(accepted['run_id'])}/",
        cookies=cookies,
        last_event_id=first[-2].id,
        until=None,
        timeout=READ_SECONDS,
    )

    assert again == first
    assert resumed == first[-1:]


def test_a_reconnect_after_done_gets_the_opening_and_the_end(module_stack):
    cookies, headers = login("done-reader")
    accepted = submit(module_stack.base, headers, "hi")
    events = read_events(module_stack.base + accepted["events_url"], cookies=cookies, timeout=READ_SECONDS)
    plain = f"{module_stack.base}/events/{sse.channel_for(accepted['run_id'])}/"

    after_done = httpx.get(plain, cookies=cookies, headers={"Last-Event-ID": events[-1].id}, timeout=READ_SECONDS)
    without_id = httpx.get(plain, headers=headers, timeout=READ_SECONDS)

    for response in (after_done, without_id):
        assert response.status_code == 200
        assert [line for line in response.text.split("\n") if line.strip(" :")] == ["event: stream-open", "data:"]


def test_a_reconnect_after_done_still_refuses_other_users(module_stack):
    _, headers = login("done-owner")
    intruder_cookies, _ = login("done-intruder")
    accepted = submit(module_stack.base, headers, "hi")
    read_events(module_stack.base + accepted["events_url"], headers=headers, timeout=READ_SECONDS)

    events = read_events(
        f"{module_stack.base}/events/{sse.channel_for(accepted['run_id'])}/", cookies=intruder_cookies, timeout=5
    )

    assert [event.event for event in events] == ["stream-error"]
    assert events[0].data["condition"] == "forbidden"
