"""An open stream asks again whether its reader may still read the run, and ends with ``forbidden`` if not.

The credentials a stream remembers are read afresh: a deleted session or token, a deactivated user and a
lost audit permission all refuse; the wrapper asks before an event at most once per
``SSE_ACCESS_RECHECK_SECONDS`` and at the keep-alives on which it reads storage.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django_eventstream.utils import sse_encode_event
from rest_framework.authtoken.models import Token

from diagnosis import sse
from diagnosis.sse.access import Access, Credentials, forbidden
from diagnosis.sse.ordering import RECHECK_KEEP_ALIVES, _Cursor
from tests.conftest import make_staff
from tests.support.clients import auditors_group
from tests.tracing.factories import make_run, make_session

pytestmark = pytest.mark.django_db(transaction=True)

KEEP_ALIVE = "event: keep-alive\ndata:"


def session_of(user) -> Credentials:
    client = Client()
    client.force_login(user)
    return Credentials(session_key=client.session.session_key)


def token_of(user) -> Credentials:
    return Credentials(token_key=Token.objects.create(user=user).key)


@pytest.fixture
def run(owner):
    return make_run(make_session(owner))


@pytest.mark.parametrize("credentials_of", [session_of, token_of])
def test_the_owners_credentials_still_read_their_run(owner, run, credentials_of):
    assert Access(credentials_of(owner), run.pk).allowed()


def test_a_deleted_session_reads_nothing(owner, run):
    credentials = session_of(owner)
    Session.objects.filter(session_key=credentials.session_key).delete()  # what signing out does

    assert not Access(credentials, run.pk).allowed()


def test_a_deleted_token_reads_nothing(owner, run):
    credentials = token_of(owner)
    Token.objects.filter(key=credentials.token_key).delete()

    assert not Access(credentials, run.pk).allowed()


@pytest.mark.parametrize("credentials_of", [session_of, token_of])
def test_a_deactivated_user_reads_nothing(owner, run, credentials_of):
    credentials = credentials_of(owner)
    owner.is_active = False
    owner.save()

    assert not Access(credentials, run.pk).allowed()


def test_a_changed_password_ends_the_old_sessions_reading(owner, run):
    credentials = session_of(owner)
    owner.set_password("another-pass-456")
    owner.save()

    assert not Access(credentials, run.pk).allowed()


def test_an_auditor_removed_from_the_group_reads_other_runs_no_more(run):
    auditor = make_staff("auditor")
    auditor.groups.add(auditors_group())
    credentials = token_of(auditor)
    assert Access(credentials, run.pk).allowed()

    auditor.groups.remove(auditors_group())

    assert not Access(credentials, run.pk).allowed()


def test_no_credentials_read_nothing(run):
    assert not Access(Credentials(), run.pk).allowed()


def event_block(channel: str, n: int) -> str:
    return sse_encode_event("status", json.dumps({"n": n}), event_id=f"{channel}:{n}").removesuffix("\n\n")


def admit(cursor: _Cursor, block: str) -> str:
    return asyncio.run(cursor.admit(block))


def revoked_cursor(owner, run) -> _Cursor:
    """A cursor at the first of the run's three events whose reader's token was deleted after it opened."""
    for n in range(1, 4):
        sse.publish(run.pk, "status", {"n": n})
    credentials = token_of(owner)
    cursor = _Cursor(sse.channel_for(run.pk), last=1, access=Access(credentials, run.pk))
    Token.objects.filter(key=credentials.token_key).delete()
    return cursor


@pytest.fixture
def revoked(owner, run, settings):
    settings.SSE_ACCESS_RECHECK_SECONDS = 0
    return revoked_cursor(owner, run)


def test_the_next_event_of_a_revoked_reader_is_a_forbidden_stream_error_and_the_end(revoked):
    out = admit(revoked, event_block(revoked.channel, 2))

    assert out == forbidden(revoked.channel)
    assert revoked.finished and revoked.last == 1
    assert json.loads(out.split("data: ", 1)[1])["condition"] == "forbidden"


def test_a_quiet_stream_asks_at_its_five_minute_recheck_not_at_its_first_keep_alive(revoked):
    """The first keep-alive comes 20 s after the opening's own check: 2,000 pages opened together would all
    ask at once. A quiet stream asks at its recheck, and a revoked reader gets no missed events there."""
    first = admit(revoked, KEEP_ALIVE)
    assert first != forbidden(revoked.channel) and '"n": 2' in first  # the gap filled, access not asked
    for _ in range(RECHECK_KEEP_ALIVES - 1):
        assert admit(revoked, KEEP_ALIVE).startswith("event: keep-alive")

    assert admit(revoked, KEEP_ALIVE) == forbidden(revoked.channel)
    assert revoked.finished


def test_access_is_asked_once_per_interval_before_events(owner, run, settings, django_assert_num_queries):
    settings.SSE_ACCESS_RECHECK_SECONDS = 3600
    cursor = revoked_cursor(owner, run)

    with django_assert_num_queries(0):  # checked when the stream opened: not again within the hour
        out = admit(cursor, event_block(cursor.channel, 2))

    assert '"n": 2' in out and not cursor.finished


def test_a_reader_who_keeps_access_reads_every_event(owner, run, settings):
    settings.SSE_ACCESS_RECHECK_SECONDS = 0
    for n in range(1, 4):
        sse.publish(run.pk, "status", {"n": n})
    cursor = _Cursor(sse.channel_for(run.pk), last=0, access=Access(session_of(owner), run.pk))

    out = "".join(admit(cursor, event_block(cursor.channel, n)) for n in range(1, 4))

    assert [line for line in out.split("\n") if line.startswith("id: ")] == [
        f"id: {cursor.channel}:{n}" for n in range(1, 4)
    ]
    assert not cursor.finished


@pytest.mark.parametrize("method", ["options", "put", "delete", "patch"])
def test_a_stream_answers_only_reads(owner, run, method):
    """An OPTIONS replayed the run's events as a GET does: a stream is read, never written."""
    sse.publish(run.pk, "status", {"n": 1})
    client = Client(enforce_csrf_checks=False)
    client.force_login(owner)

    response = getattr(client, method)(f"/events/run-{run.pk}/?lastEventId=run-{run.pk}:0")

    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"
    assert b"status" not in response.content
