"""Idle streams cost nothing, finished streams end: keep-alives are bytes, ``done`` closes the stream.

Queries are counted on the test's own connection: ``async_to_sync`` runs the wrapper's storage reads in
this thread (asgiref's thread-sensitive mode), so ``CaptureQueriesContext`` sees every one of them.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django_eventstream.utils import sse_encode_event

from diagnosis import sse
from diagnosis.sse.ordering import RECHECK_KEEP_ALIVES, _Cursor, _ordered, cursor_for, resumes_after_done
from tracing.timeline import RunLog, StreamEvent

pytestmark = pytest.mark.django_db(transaction=True)

KEEP_ALIVE = "event: keep-alive\ndata:"


def publish_run(*names: str) -> str:
    run_id = uuid.uuid4()
    for n, name in enumerate(names, start=1):
        sse.publish(run_id, name, {"n": n})  # type: ignore[arg-type]  # names are the protocol's
    return sse.channel_for(run_id)


def block(channel: str, n: int, name: str = "status") -> str:
    return sse_encode_event(name, f'{{"n": {n}}}', event_id=f"{channel}:{n}").removesuffix("\n\n")


def names(text: str) -> list[str]:
    return [line.removeprefix("event: ") for line in text.split("\n") if line.startswith("event: ")]


def admit_counting(cursor: _Cursor, blocks: list[str]) -> tuple[str, int]:
    """What the cursor sends for ``blocks``, and how many database queries that took."""

    async def run() -> str:
        return "".join([await cursor.admit(b) for b in blocks])

    with CaptureQueriesContext(connection) as queries:
        out = async_to_sync(run)()
    return out, len(queries)


def test_keep_alives_after_the_first_of_a_connection_do_no_database_work_until_a_quiet_recheck():
    channel = publish_run("metadata", "status")
    cursor = _Cursor(channel, last=2)
    _, first = admit_counting(cursor, [KEEP_ALIVE])

    out, later = admit_counting(cursor, [KEEP_ALIVE] * (RECHECK_KEEP_ALIVES - 1))
    _, recheck = admit_counting(cursor, [KEEP_ALIVE])

    assert first > 0, "the first keep-alive of a connection is its one reconciliation with storage"
    assert later == 0
    assert out == (KEEP_ALIVE + "\n\n") * (RECHECK_KEEP_ALIVES - 1)
    assert recheck > 0, "five quiet minutes: storage is read once more"


def test_an_event_puts_off_the_quiet_recheck():
    channel = publish_run("metadata", "status", "status")
    cursor = _Cursor(channel, last=2)
    admit_counting(cursor, [KEEP_ALIVE] * (RECHECK_KEEP_ALIVES - 1))

    _, queries = admit_counting(cursor, [block(channel, 3), *[KEEP_ALIVE] * (RECHECK_KEEP_ALIVES - 1)])

    assert queries == 0


def test_a_done_stored_but_never_announced_reaches_the_page_at_the_quiet_recheck():
    run_id = uuid.uuid4()
    sse.publish(run_id, "metadata", {"n": 1})
    cursor = _Cursor(sse.channel_for(run_id), last=1)
    admit_counting(cursor, [KEEP_ALIVE])
    # The run ends while the page is open: its events are stored, their announcement is lost.
    RunLog(run_id).append_streams([StreamEvent("failure", '{"code": "worker_lost"}'), StreamEvent("done", "{}")])

    out, _ = admit_counting(cursor, [KEEP_ALIVE] * RECHECK_KEEP_ALIVES)

    assert names(out)[-2:] == ["failure", "done"]
    assert cursor.finished


def test_a_stream_opened_without_a_last_id_is_kept_gap_free_from_where_it_started():
    """EventSource without ``lastEventId`` resumes after the channel's current event, as the library does:
    a ``done`` never announced still arrives at the quiet recheck, a missed event when the next one does."""
    run_id = uuid.uuid4()
    sse.publish(run_id, "metadata", {"n": 1})
    channel = sse.channel_for(run_id)
    cursor = cursor_for(RequestFactory().get("/"), channel)
    admit_counting(cursor, [KEEP_ALIVE])
    sse.publish(run_id, "status", {"n": 2})  # this stream misses its announcement
    sse.publish(run_id, "status", {"n": 3})
    out, _ = admit_counting(cursor, [block(channel, 3)])
    assert [line for line in out.split("\n") if line.startswith("id: ")] == [f"id: {channel}:2", f"id: {channel}:3"]
    RunLog(run_id).append_streams([StreamEvent("failure", '{"code": "worker_lost"}'), StreamEvent("done", "{}")])

    out, _ = admit_counting(cursor, [KEEP_ALIVE] * RECHECK_KEEP_ALIVES)

    assert names(out)[-2:] == ["failure", "done"]
    assert cursor.finished


def test_an_event_right_after_the_last_one_sent_does_no_database_work():
    channel = publish_run("metadata", "status", "status")
    cursor = _Cursor(channel, last=1)

    out, queries = admit_counting(cursor, [block(channel, 2), block(channel, 3)])

    assert queries == 0
    assert names(out) == ["status", "status"]


def test_a_jump_still_fills_the_gap_from_storage():
    channel = publish_run("metadata", "status", "status", "status")
    cursor = _Cursor(channel, last=1)

    out, queries = admit_counting(cursor, [block(channel, 4)])

    assert queries > 0
    assert [line for line in out.split("\n") if line.startswith("id: ")] == [f"id: {channel}:{n}" for n in (2, 3, 4)]


async def library_stream(blocks: list[str], closed: list[bool]) -> AsyncIterator[bytes]:
    """A stream like the library's: the given blocks, then keep-alives for ever; notes when it is closed."""
    try:
        for b in blocks:
            yield (b + "\n\n").encode()
        while True:
            yield (KEEP_ALIVE + "\n\n").encode()
            await asyncio.sleep(0)
    finally:
        closed.append(True)


def read_to_end(channel: str, blocks: list[str], last: int | None, *, finished: bool = False) -> str:
    async def collect() -> str:
        chunks = library_stream(blocks, closed=[])
        cursor = _Cursor(channel, last=last, finished=finished)
        return "".join([part async for part in _ordered(chunks, cursor)])

    async def bounded() -> str:
        return await asyncio.wait_for(collect(), timeout=5)

    return asyncio.run(bounded())


def test_the_stream_ends_after_done():
    channel = publish_run("metadata", "content", "done")
    blocks = [block(channel, 1, "metadata"), block(channel, 2, "content"), block(channel, 3, "done")]

    out = read_to_end(channel, blocks, last=0)

    assert names(out) == ["metadata", "content", "done"]
    assert out.endswith("\n\n")


def test_a_done_found_by_the_connection_fill_ends_the_stream():
    # The library read up to event 1; the announcements of 2 and 3 were lost (Redis subscription not yet
    # active): the first keep-alive fills them from storage, and the stream ends after ``done``.
    channel = publish_run("metadata", "failure", "done")

    out = read_to_end(channel, [block(channel, 1, "metadata")], last=0)

    assert names(out) == ["metadata", "failure", "done"]


def test_nothing_after_done_is_sent_when_a_fill_reaches_it():
    channel = publish_run("metadata", "done", "status")

    out = read_to_end(channel, [block(channel, 3)], last=0)

    assert names(out) == ["metadata", "done"]


def test_a_stream_resumed_after_done_sends_the_opening_and_ends():
    channel = publish_run("metadata", "done")
    # The library sends its opening as one chunk, as here.
    opening = ":" + " " * 2048 + "\n\nevent: stream-open\ndata:"

    out = read_to_end(channel, [opening], last=2, finished=True)

    assert out == opening + "\n\n"


def test_the_wrapper_closes_the_library_stream_when_it_ends():
    channel = publish_run("metadata", "done")
    closed: list[bool] = []

    async def collect() -> None:
        from diagnosis.sse.ordering import _ended_after_done

        chunks = library_stream([block(channel, 1, "metadata"), block(channel, 2, "done")], closed)
        async for _ in _ended_after_done(chunks, _Cursor(channel, last=0)):
            pass

    asyncio.run(asyncio.wait_for(collect(), timeout=5))

    assert closed == [True]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"lastEventId": "{channel}:3"}, True),  # had ``done``: nothing left
        ({"lastEventId": "{channel}:2"}, False),  # replays ``done``, then ends
        ({"lastEventId": "{channel}:0"}, False),
        ({}, True),  # no last id: the library would start at the current one, ``done``
        ({"lastEventId": "error"}, False),  # the library's own answer stands
    ],
)
def test_a_resume_right_after_done_is_recognised(query, expected):
    channel = publish_run("metadata", "content", "done")
    request = RequestFactory().get("/", {key: value.format(channel=channel) for key, value in query.items()})

    assert resumes_after_done(request, channel) is expected


def test_a_resume_on_a_running_run_is_never_after_done():
    channel = publish_run("metadata", "status")

    assert resumes_after_done(RequestFactory().get("/"), channel) is False
    assert resumes_after_done(RequestFactory().get("/", HTTP_LAST_EVENT_ID=f"{channel}:2"), channel) is False
    assert resumes_after_done(RequestFactory().get("/"), sse.channel_for(uuid.uuid4())) is False
