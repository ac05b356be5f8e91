"""A stream's stored events go out with its opening, read with the view's checks: a new run's ``metadata``
does not wait for django-eventstream's first read. What that read repeats is dropped, opening included."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_eventstream.utils import sse_encode_event

from diagnosis import sse
from diagnosis.sse.ordering import PADDING, STREAM_OPEN, _Cursor, _ended_after_done
from tests.diagnosis.test_sse_idle import library_stream

pytestmark = pytest.mark.django_db(transaction=True)

LIBRARY_OPENING = PADDING + "\n\n" + STREAM_OPEN


def publish_run(*names: str) -> str:
    run_id = uuid.uuid4()
    for n, name in enumerate(names, start=1):
        sse.publish(run_id, name, {"n": n})  # type: ignore[arg-type]  # names are the protocol's
    return sse.channel_for(run_id)


def block(channel: str, n: int, name: str) -> str:
    return sse_encode_event(name, f'{{"n": {n}}}', event_id=f"{channel}:{n}").removesuffix("\n\n")


def stream(cursor: _Cursor, library_blocks: list[str], closed: list[bool]) -> list[str]:
    """The parts the wrapper sends, up to its end or the first keep-alive after the given blocks."""

    async def collect() -> list[str]:
        parts = []
        async for part in _ended_after_done(library_stream(library_blocks, closed), cursor):
            parts.append(part)
            if "keep-alive" in part:
                break
        return parts

    return asyncio.run(asyncio.wait_for(collect(), timeout=5))


def test_the_opening_carries_the_stored_events_in_one_read():
    channel = publish_run("metadata", "status")
    cursor = _Cursor(channel, last=0)

    with CaptureQueriesContext(connection) as queries:
        cursor.read_opening()

    assert len(queries) == 1
    assert cursor.opening == cursor_opening_of(channel, 2)
    assert cursor.last == 2


def test_the_opening_is_the_first_part_and_the_library_repeats_are_dropped():
    channel = publish_run("metadata", "status")
    cursor = _Cursor(channel, last=0)
    cursor.read_opening()
    sse.publish(uuid.UUID(channel.removeprefix("run-")), "status", {"n": 3})  # stored after the opening's read
    # The library's first read has its opening and all three events.
    library = [LIBRARY_OPENING, block(channel, 1, "metadata"), block(channel, 2, "status"), block(channel, 3, "status")]

    parts = stream(cursor, library, closed=[])

    assert parts[0] == cursor_opening_of(channel, 2)
    sent = "".join(parts)
    assert sent.count("event: stream-open") == 1 and sent.count(PADDING) == 1
    assert [line for line in sent.split("\n") if line.startswith("id: ")] == [f"id: {channel}:{n}" for n in (1, 2, 3)]


def cursor_opening_of(channel: str, events: int) -> str:
    """The opening a connection from event 0 gets when ``events`` events are stored."""
    names = ["metadata", *["status"] * (events - 1)]
    stored = "".join(block(channel, n, name) + "\n\n" for n, name in enumerate(names, start=1))
    return LIBRARY_OPENING + "\n\n" + stored


def test_an_opening_that_reaches_done_ends_the_stream_without_the_library():
    channel = publish_run("metadata", "done")
    cursor = _Cursor(channel, last=0)
    cursor.read_opening()
    closed: list[bool] = []

    parts = stream(cursor, [LIBRARY_OPENING], closed)

    assert parts == [cursor.opening]
    assert cursor.finished and "event: done" in parts[0]


def test_without_a_last_id_the_library_sends_its_own_opening():
    channel = publish_run("metadata")
    cursor = _Cursor(channel, last=None)

    with CaptureQueriesContext(connection) as queries:
        cursor.read_opening()

    assert cursor.opening == "" and len(queries) == 0
    assert "".join(stream(cursor, [LIBRARY_OPENING], closed=[])).startswith(LIBRARY_OPENING + "\n\n")
