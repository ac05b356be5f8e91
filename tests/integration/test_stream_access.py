"""Who may read a run's SSE stream through a real server, and what a malformed Last-Event-ID gets.

Token clients read the ``events_url`` the chat API hands them with the same ``Authorization: Token`` header:
the run's owner and auditors; anyone else gets ``stream-error`` ``forbidden``. A Last-Event-ID that names no
event of the run is answered with ``stream-error`` ``bad-request`` (header or query), the stream closed cleanly,
and so is django-eventstream's signed ``es-meta`` parameter, which would otherwise choose reader and channels.
"""

from __future__ import annotations

import time
from urllib.parse import urlencode

import httpx
import jwt
import pytest
from django.conf import settings
from django.contrib.auth.models import User

from tests.support.clients import login, submit
from tests.support.sse_client import read_events

pytestmark = pytest.mark.django_db(transaction=True)

BAD_REQUEST_TEXT = "Invalid request: Last-Event-ID or lastEventId names no event of this run."


@pytest.fixture
def finished_run(module_stack):
    """A short run (system chat), submitted by token and read to its end with the session cookie:
    (owner's cookies, owner's token headers, the chat API's answer, the events)."""
    cookies, headers = login("token-owner")
    accepted = submit(module_stack.base, headers, "hi")
    events = read_events(module_stack.base + accepted["events_url"], cookies=cookies)
    assert events[-1].event == "done", events
    return cookies, headers, accepted, events


def test_the_owner_reads_the_stream_with_a_token(module_stack, finished_run):
    _, headers, accepted, events = finished_run

    assert read_events(module_stack.base + accepted["events_url"], headers=headers) == events
    names = [event.event for event in events]
    assert names[0] == "metadata" and names[-1] == "done"
    assert events[-1].data == {"outcome": "SUCCESS", "run_id": accepted["run_id"]}


def test_an_auditor_reads_any_stream_with_a_token(module_stack, finished_run):
    _, _, accepted, events = finished_run
    _, auditor_headers = login("token-auditor", auditor=True)

    assert read_events(module_stack.base + accepted["events_url"], headers=auditor_headers) == events


def test_a_token_that_may_not_read_the_run_gets_a_stream_error(module_stack, finished_run):
    _, _, accepted, _ = finished_run
    _, intruder_headers = login("token-intruder")
    url = module_stack.base + accepted["events_url"]

    for headers in (intruder_headers, {"Authorization": "Token 0123456789abcdef0123456789abcdef01234567"}):
        events = read_events(url, headers=headers)
        assert [event.event for event in events] == ["stream-error"]
        assert events[0].data["condition"] == "forbidden"


def test_an_unknown_run_is_refused_like_a_foreign_one_and_a_bad_path_is_a_404(module_stack, finished_run):
    _, headers, _, _ = finished_run

    events = read_events(f"{module_stack.base}/events/run-3f0c1a36-5b8e-4d7a-9d47-0d1b1c0f8e11/", headers=headers)
    assert [event.event for event in events] == ["stream-error"]
    assert events[0].data["condition"] == "forbidden"
    assert httpx.get(f"{module_stack.base}/events/run-not-a-uuid/", headers=headers).status_code == 404


@pytest.mark.parametrize("where", ["header", "query"])
def test_a_malformed_last_event_id_is_answered_with_a_stream_error(module_stack, finished_run, where):
    cookies, _, accepted, events = finished_run
    channel = f"run-{accepted['run_id']}"
    malformed = [
        f"{channel}:abc",
        f"{channel}:1.5",
        f"{channel}:-1",
        f"{channel}:",
        f"{channel}: 1",
        f"{channel}:１",  # a full-width digit: a digit to str.isdigit, not to the storage (query only)
        f"{channel}:{len(events) + 1}",  # past the run's last event
        f"{channel}:{10**30}",
        "garbage",
        f"{channel}:1:2",
        "run-3f0c1a36-5b8e-4d7a-9d47-0d1b1c0f8e11:1",  # only another channel's id
        f"{channel}:1,",
    ]
    base = f"{module_stack.base}/events/{channel}/"
    for value in malformed:
        if where == "header" and not value.isascii():
            continue  # HTTP header values are ASCII
        if where == "header":
            replay = read_events(base, cookies=cookies, last_event_id=value, timeout=20)
        else:
            replay = read_events(f"{base}?{urlencode({'lastEventId': value})}", cookies=cookies, timeout=20)
        assert [event.event for event in replay] == ["stream-error"], value
        assert replay[0].id == "error"
        assert replay[0].data == {"condition": "bad-request", "text": BAD_REQUEST_TEXT}, value


def opening(url: str, cookies: dict[str, str], last_event_id: str) -> str:
    """What the server sends before it waits for new events: padding and ``stream-open``, or an error."""
    text = ""
    with httpx.stream("GET", url, headers={"Last-Event-ID": last_event_id}, cookies=cookies, timeout=10) as response:
        for chunk in response.iter_text():
            text += chunk
            if "stream-open" in text or "stream-error" in text:
                break
    return text


def test_a_well_formed_last_event_id_still_replays(module_stack, finished_run):
    cookies, _, accepted, events = finished_run
    url = f"{module_stack.base}/events/run-{accepted['run_id']}/"

    assert read_events(url, cookies=cookies, last_event_id=events[0].id) == events[1:]
    # The last event's id is valid too: nothing follows it, so the stream opens and waits.
    text = opening(url, cookies, events[-1].id)
    assert "event: stream-open" in text and "stream-error" not in text


def test_after_a_stream_error_a_browser_is_told_to_stop(module_stack, finished_run):
    cookies, _, accepted, _ = finished_run

    response = httpx.get(
        f"{module_stack.base}/events/run-{accepted['run_id']}/", headers={"Last-Event-ID": "error"}, cookies=cookies
    )

    # EventSource reconnects with the stream-error's id, "error"; the library's 400 ends its retries.
    assert response.status_code == 400


def test_a_signed_es_meta_cannot_name_another_run_nor_break_the_stream(module_stack, finished_run):
    """django-eventstream would read ``es-meta`` (a JWT under SECRET_KEY) as the reader and the channels: with
    the key, a reader of its own run could name the owner and the channel of another."""
    _, _, victim, _ = finished_run
    cookies, headers = login("token-intruder")
    own = submit(module_stack.base, headers, "hi")
    victim_channel = f"run-{victim['run_id']}"
    owner = User.objects.get(username="token-owner")
    forged = jwt.encode(
        {"user": owner.pk, "channels": [victim_channel], "exp": int(time.time()) + 600},
        settings.SECRET_KEY.encode(),
        algorithm="HS256",
    )
    url = f"{module_stack.base}/events/run-{own['run_id']}/"

    for meta in (forged, "garbage"):
        query = urlencode({"es-meta": meta, "lastEventId": f"{victim_channel}:0"})
        events = read_events(f"{url}?{query}", cookies=cookies, timeout=20)
        assert [event.event for event in events] == ["stream-error"], events
        assert events[0].data["condition"] == "bad-request"
        assert "es-meta" in events[0].data["text"]


def test_a_grip_proxys_recover_parameter_is_a_stream_error_not_a_500(module_stack, finished_run):
    """``recover=true`` makes the library read the GRIP proxy's ``Grip-Last``; no proxy serves this stream."""
    cookies, _, accepted, _ = finished_run
    url = f"{module_stack.base}/events/run-{accepted['run_id']}/?recover=true"

    events = read_events(url, cookies=cookies, timeout=20)

    assert [event.event for event in events] == ["stream-error"], events
    assert events[0].data["condition"] == "bad-request"
    assert "recover" in events[0].data["text"]
