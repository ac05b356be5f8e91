"""Exactly-once, in-order delivery on top of django-eventstream's stream.

The library reads stored events, then switches to live notifications. An event is stored before it is
announced, so a read can already contain an event whose announcement arrives afterwards (delivered twice),
and an announcement sent before a process's Redis subscription is active is never seen (a gap). This
wrapper keeps the last id the client received, drops what it has already had, and fills any gap from
storage - when a later event arrives, and at every keep-alive, so a missed last event is still delivered.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import unquote

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django_eventstream.storage import EventDoesNotExist
from django_eventstream.utils import get_storage, make_id, parse_last_event_id, sse_encode_event

BLOCK_END = "\n\n"
FILL_LIMIT = 1000


def requested_last_event_id(request: HttpRequest) -> str:
    """The raw Last-Event-ID, read as the library reads it: the header, else the last non-empty query value."""
    return request.META.get("HTTP_LAST_EVENT_ID") or next(
        (value for value in reversed(request.GET.getlist("lastEventId")) if value), ""
    )


def channel_last_ids(raw: str) -> dict[str, str]:
    """``channel:id`` pairs of a Last-Event-ID by (unquoted) channel; ValueError when it is not such pairs."""
    return {unquote(name): value for name, value in parse_last_event_id(raw).items()} if raw else {}


def _last_id(request: HttpRequest, channel: str) -> int | None:
    """The id the client says it has for ``channel``; None without one (the view has refused malformed ones)."""
    try:
        ids = channel_last_ids(requested_last_event_id(request))
        return int(ids[channel]) if channel in ids else None
    except ValueError:
        return None


def _block_id(block: str, channel: str) -> int | None:
    """The channel's event id of one SSE block; None for blocks without one (padding, keep-alive, errors)."""
    for line in block.split("\n"):
        if line.startswith("id: "):
            try:
                value = parse_last_event_id(line[4:]).get(channel, "")
            except ValueError:  # the library's "id: error" of a stream-error
                return None
            return int(value) if value.isdigit() else None
    return None


class _Cursor:
    def __init__(self, channel: str, last: int | None) -> None:
        self.channel, self.last = channel, last

    async def missing(self, upto: int | None = None) -> str:
        """Stored events after the last one sent (up to ``upto``, exclusive), encoded."""
        if self.last is None:
            return ""
        limit = FILL_LIMIT if upto is None else upto - self.last - 1
        if limit <= 0:
            return ""
        try:
            stored = await sync_to_async(get_storage().get_events)(self.channel, self.last, limit=limit)
        except EventDoesNotExist:  # the last sent event was trimmed: the library's stream-reset resumes
            return ""
        body = ""
        for event in stored:
            body += sse_encode_event(event.type, event.data, event_id=make_id({self.channel: event.id}))
            self.last = event.id
        return body

    async def admit(self, block: str) -> str:
        """What to send for one block of the library's stream."""
        event_id = _block_id(block, self.channel)
        if event_id is None:
            if block.startswith("event: keep-alive"):
                return await self.missing() + block + BLOCK_END
            return block + BLOCK_END
        if self.last is not None and event_id <= self.last:
            return ""
        body = await self.missing(upto=event_id)
        self.last = event_id
        return body + block + BLOCK_END


async def _ordered(chunks: AsyncIterator[bytes], cursor: _Cursor) -> AsyncIterator[str]:
    pending = ""
    async for chunk in chunks:
        pending += chunk.decode() if isinstance(chunk, bytes) else chunk
        *blocks, pending = pending.split(BLOCK_END)
        out = "".join([await cursor.admit(block) for block in blocks])
        if out:
            yield out


def ordered(response: HttpResponse, request: HttpRequest, channel: str) -> HttpResponse:
    """django-eventstream's response for ``channel``, its stream made exactly-once and gap-free."""
    # An async response's content is an async iterator; isinstance says so to the type checker too.
    if (
        isinstance(response, StreamingHttpResponse)
        and response.is_async
        and isinstance(content := response.streaming_content, AsyncIterator)
    ):
        response.streaming_content = _ordered(content, _Cursor(channel, _last_id(request, channel)))
    return response
