"""A reader who loses access while a run's stream is open stops receiving its events, through a real server.

The run is held in its planner by a delayed scripted reply, its stream opened and its ``metadata`` read;
then the reader is signed out, deactivated, has their token deleted or their audit permission taken away.
The run's next event reaches them as ``stream-error`` ``forbidden`` and the stream ends, the run itself going
on to its end. ``SSE_ACCESS_RECHECK_SECONDS=0`` asks before every event (the default is every ten seconds).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from rest_framework.authtoken.models import Token

from diagnosis.models import DiagnosisRun, RunStatus
from tests.integration.conftest import LiveStack, start_stack
from tests.support.clients import auditors_group, login, submit
from tests.support.held_runs import delayed_script
from tests.support.sse_client import SseEvent, read_events

pytestmark = pytest.mark.django_db(transaction=True)

HOLD_SECONDS = 3


@pytest.fixture(scope="module")
def held_stack(static_root, django_db_setup, django_db_blocker, tmp_path_factory):
    """One stack for the module whose runs wait in the planner, with access asked before every event."""
    script = delayed_script(tmp_path_factory.mktemp("script"), planner=HOLD_SECONDS)
    with django_db_blocker.unblock(), ExitStack() as stack:
        yield start_stack(
            stack, static_root, LLM_PROVIDER="scripted", LLM_SCRIPT_PATH=str(script), SSE_ACCESS_RECHECK_SECONDS="0"
        )


def user(username: str):
    return get_user_model().objects.get(username=username)


def sign_out(username: str) -> None:
    Session.objects.all().delete()  # what signing out does to the one session these tests open


def deactivate(username: str) -> None:
    get_user_model().objects.filter(username=username).update(is_active=False)


def delete_token(username: str) -> None:
    Token.objects.filter(user__username=username).delete()


def no_longer_audit(username: str) -> None:
    user(username).groups.remove(auditors_group())


def read_then(live: LiveStack, url: str, credentials: dict, act: Callable[[], None]) -> list[SseEvent]:
    """The run's events as the reader gets them, ``act`` done once its ``metadata`` arrived."""

    def on_event(event: SseEvent) -> None:
        if event.event == "metadata":
            act()

    return read_events(live.base + url, **credentials, on_event=on_event, timeout=60)


@pytest.mark.parametrize(
    ("revoke", "reads_with"),
    [(sign_out, "cookies"), (deactivate, "cookies"), (deactivate, "headers"), (delete_token, "headers")],
)
def test_an_owner_who_loses_access_gets_forbidden_and_the_stream_ends(held_stack, revoke, reads_with):
    name = f"reader-{revoke.__name__}-{reads_with}".replace("_", "-")
    cookies, headers = login(name)
    accepted = submit(held_stack.base, headers, "payment-service p99 latency tripled since 10:05, why?")

    events = read_then(
        held_stack,
        accepted["events_url"],
        {reads_with: cookies if reads_with == "cookies" else headers},
        lambda: revoke(name),
    )

    names = [event.event for event in events]
    assert names[0] == "metadata" and names[-1] == "stream-error" and "done" not in names, names
    assert events[-1].data["condition"] == "forbidden"
    deadline = time.monotonic() + 60
    while DiagnosisRun.objects.filter(pk=accepted["run_id"], status=RunStatus.RUNNING).exists():
        assert time.monotonic() < deadline, "the run never ended"  # it goes on without its reader
        time.sleep(0.2)


def test_an_auditor_taken_out_of_the_group_stops_reading_other_runs(held_stack):
    _, owner_headers = login("audited-owner")
    _, auditor_headers = login("former-auditor", auditor=True)
    accepted = submit(held_stack.base, owner_headers, "payment-service p99 latency tripled since 10:05, why?")

    events = read_then(
        held_stack, accepted["events_url"], {"headers": auditor_headers}, lambda: no_longer_audit("former-auditor")
    )

    assert [event.event for event in events][-1] == "stream-error"
    assert events[-1].data["condition"] == "forbidden"


def test_a_reader_who_keeps_access_reads_to_done_with_access_asked_before_every_event(held_stack):
    cookies, headers = login("steady-reader")
    accepted = submit(held_stack.base, headers, "payment-service p99 latency tripled since 10:05, why?")

    events = read_events(held_stack.base + accepted["events_url"], cookies=cookies, timeout=60)

    assert [event.event for event in events][-1] == "done"
    assert "stream-error" not in [event.event for event in events]
