"""The exactly-once wrapper over django-eventstream's stream: duplicates dropped, gaps filled from storage."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from django.test import RequestFactory
from django_eventstream.utils import sse_encode_event

from diagnosis import sse
from diagnosis.sse.ordering import _Cursor, _last_id, _ordered
from tracing.models import DiagnosisTraceEvent

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def channel():
    run_id = uuid.uuid4()
    for n in range(1, 5):
        sse.publish(run_id, "status", {"n": n})
    return sse.channel_for(run_id)


def block(channel: str, n: int) -> str:
    return sse_encode_event("status", f'{{"n": {n}}}', event_id=f"{channel}:{n}").removesuffix("\n\n")


def ids(text: str) -> list[int]:
    return [int(line.rsplit(":", 1)[1]) for line in text.split("\n") if line.startswith("id: ")]


def admit_all(cursor: _Cursor, blocks: list[str]) -> str:
    async def run() -> str:
        return "".join([await cursor.admit(b) for b in blocks])

    return asyncio.run(run())


def test_it_drops_events_the_client_already_has(channel):
    cursor = _Cursor(channel, last=2)

    out = admit_all(cursor, [block(channel, 1), block(channel, 2), block(channel, 3), block(channel, 3)])

    assert ids(out) == [3]


def test_it_fills_a_gap_from_storage_before_the_later_event(channel):
    cursor = _Cursor(channel, last=0)

    out = admit_all(cursor, [block(channel, 1), block(channel, 4)])

    assert ids(out) == [1, 2, 3, 4]
    assert '"n": 3' in out


def test_a_gap_in_the_stored_ids_delivers_the_later_event_once():
    """A write numbered then rolled back leaves ids 1, 3: the fill counted up to 3 reads 3 itself."""
    run_id = uuid.uuid4()
    sse.publish(run_id, "status", {"n": 1})
    stored = sse.channel_for(run_id)
    DiagnosisTraceEvent.log.create(run_id=run_id, stream_id=3, stream_event="status", stream_data='{"n": 3}')
    cursor = _Cursor(stored, last=1)

    out = admit_all(cursor, [block(stored, 3)])

    assert ids(out) == [3]


def test_it_delivers_a_missed_last_event_at_the_next_keep_alive(channel):
    cursor = _Cursor(channel, last=2)

    out = admit_all(cursor, ["event: keep-alive\ndata:"])

    assert ids(out) == [3, 4]
    assert out.endswith("event: keep-alive\ndata:\n\n")


def test_it_passes_blocks_without_ids_through(channel):
    cursor = _Cursor(channel, last=None)
    error = 'event: stream-error\nid: error\ndata: {"condition": "forbidden"}'

    out = admit_all(cursor, [":" + " " * 10, "event: stream-open\ndata:", error])

    assert out == ":" + " " * 10 + "\n\n" + "event: stream-open\ndata:\n\n" + error + "\n\n"


def test_it_reassembles_blocks_split_across_chunks(channel):
    text = (block(channel, 1) + "\n\n" + block(channel, 2) + "\n\n").encode()

    async def chunks():
        for piece in (text[:7], text[7:40], text[40:]):
            yield piece

    async def collect() -> str:
        return "".join([part async for part in _ordered(chunks(), _Cursor(channel, last=0))])

    assert ids(asyncio.run(collect())) == [1, 2]


def test_it_reads_the_clients_last_id_from_header_or_query(channel):
    factory = RequestFactory()

    assert _last_id(factory.get("/", HTTP_LAST_EVENT_ID=f"{channel}:3"), channel) == 3
    assert _last_id(factory.get("/", {"lastEventId": f"{channel}:0"}), channel) == 0
    assert _last_id(factory.get("/"), channel) is None
    assert _last_id(factory.get("/", {"lastEventId": "garbage"}), channel) is None
