"""Exactly-once, in-order delivery on top of django-eventstream's stream, ended after the run's ``done``.

The library reads stored events, then switches to live notifications. An event is stored before it is
announced, so a read can already contain an event whose announcement arrives afterwards (delivered twice),
and an announcement sent before a process's Redis subscription is active is never seen (a gap). This
wrapper keeps the last id the client received, drops what it has already had, and fills a gap from storage
only when there is one to fill or could be one:

- when a later event arrives (its id jumps past the next one), and
- once per connection, at its first keep-alive: by then the process's Redis subscription is active, so
  this one read catches whatever was announced before it (a missed last event included).

Later keep-alives are bytes only, but for one in ``RECHECK_KEEP_ALIVES`` in a row without an event (five
minutes). The library sends one per stream every 20 s, so a fill at each of them made the cost of a process
grow with its open pages, not with its events (issue 19: 2,000 idle pages saturated a process). A missed
announcement of an open stream is recovered when the next event of its run arrives, when the client
reconnects, or at that quiet recheck: a run's last event, ``done``, has no next event, and a ``done``
stored but never announced (the worker's PUBLISH failed, or it died between its commit and its
announcement, while this process's subscription stayed up) would otherwise leave the page waiting for ever.

The stored events a connection asks for are read while its view checks the reader, on the same thread
(``read_opening``), and sent with the stream's opening as soon as the response starts: a new run's
``metadata`` does not wait for the library's first read, a hop to the read thread and back behind a run
executing in the same process (docs/performance.md, "SSE latency"). The library's own first read still
follows; what it repeats is dropped, with its opening.

The reader's access is asked again before an event is sent, at most once every ``SSE_ACCESS_RECHECK_SECONDS``,
and at the quiet rechecks of storage, five minutes apart (``access``): a reader signed out meanwhile gets the
library's ``stream-error`` ``forbidden`` in place of the event, and the stream ends.

A run's stream ends after its ``done`` (the last event of every run, docs/architecture.md): the wrapper
delivers it and ends the response; the library's stream and its listener go with it. A client that reconnects
replays from its last id and is closed again after ``done``; one that already had ``done`` (or gave no
last id on a finished run, which resumes at its last event) gets the stream's opening, and the end. A client
that gives no last id resumes after the channel's current event, as the library does, and is kept gap-free
from there in the same way.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from urllib.parse import unquote

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django_eventstream.storage import EventDoesNotExist
from django_eventstream.utils import get_storage, make_id, parse_last_event_id, sse_encode_event

from diagnosis.sse import LAST_EVENT
from diagnosis.sse.access import Access, forbidden
from diagnosis.sse.reads import stream_reads

BLOCK_END = "\n\n"
FILL_LIMIT = 1000
KEEP_ALIVE = "event: keep-alive"
# Keep-alives in a row without an event after which storage is read again (20 s apart: five minutes).
RECHECK_KEEP_ALIVES = 15
# django-eventstream's opening of a stream (``views.stream``): padding for buffering proxies, then ``stream-open``.
PADDING = ":" + " " * 2048
STREAM_OPEN = "event: stream-open\ndata:"


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


def _resume_point(request: HttpRequest, channel: str) -> int | None:
    """The id the stream resumes after: the client's last id for the channel, or without any last id the
    channel's current id (where the library starts). Read once per connection."""
    return _last_id(request, channel) if requested_last_event_id(request) else get_storage().get_current_id(channel)


def resumes_after_done(request: HttpRequest, channel: str) -> bool:
    """Whether the stream would resume right after the run's ``done``."""
    return _done_at(channel, _resume_point(request, channel))


def _done_at(channel: str, resume_at: int | None) -> bool:
    """Whether the event ``resume_at`` of ``channel`` is the run's ``done``."""
    if resume_at is None or resume_at < 1:
        return False
    try:
        stored = get_storage().get_events(channel, resume_at - 1, limit=1)
    except EventDoesNotExist:  # trimmed: the library's stream-reset tells the client
        return False
    return bool(stored) and stored[0].type == LAST_EVENT


def _block_field(block: str, name: str) -> str | None:
    """The value of one field (``id``, ``event``) of an SSE block; None when the block has none."""
    prefix = f"{name}: "
    return next((line[len(prefix) :] for line in block.split("\n") if line.startswith(prefix)), None)


def _block_id(block: str, channel: str) -> int | None:
    """The channel's event id of one SSE block; None for blocks without one (padding, keep-alive, errors)."""
    raw = _block_field(block, "id")
    if raw is None:
        return None
    try:
        value = parse_last_event_id(raw).get(channel, "")
    except ValueError:  # the library's "id: error" of a stream-error
        return None
    return int(value) if value.isdigit() else None


class _Cursor:
    """What one connection has sent: the last event id, whether the connect-time fill ran, the keep-alives
    since the last event, whether ``done`` went out, and the opening the wrapper sends itself
    (``read_opening``), if any; with its reader's ``access``, asked again before events are sent."""

    def __init__(self, channel: str, last: int | None, *, finished: bool = False, access: Access | None = None) -> None:
        self.channel, self.last, self.access = channel, last, access
        self.reconciled = False
        self.quiet = 0  # keep-alives since the last event or read of storage
        self.finished = finished
        self.opening = ""

    def read_opening(self) -> None:
        """The stream's opening with the stored events after the client's last id (none once ``done`` went
        out). Reads storage: call it on the SSE read thread. Without a last id the library starts at the
        channel's end and sends its own opening."""
        if self.last is not None:
            self.opening = (
                PADDING + BLOCK_END + STREAM_OPEN + BLOCK_END + ("" if self.finished else self.stored(FILL_LIMIT))
            )

    def stored(self, limit: int) -> str:
        """Up to ``limit`` stored events after the last one sent, encoded, up to ``done``. Reads storage."""
        if self.last is None or limit <= 0:
            return ""
        try:
            stored = get_storage().get_events(self.channel, self.last, limit=limit)
        except EventDoesNotExist:  # the last sent event was trimmed: the library's stream-reset resumes
            return ""
        body = ""
        for event in stored:
            body += sse_encode_event(event.type, event.data, event_id=make_id({self.channel: event.id}))
            self.last = event.id
            if event.type == LAST_EVENT:
                self.finished = True
                break
        return body

    async def missing(self, upto: int | None = None) -> str:
        """Stored events after the last one sent (up to ``upto``, exclusive), encoded; up to ``done``."""
        if self.last is None:
            return ""
        return await sync_to_async(self.stored)(FILL_LIMIT if upto is None else upto - self.last - 1)

    async def refused(self, *, now: bool = False) -> bool:
        """Whether the reader has lost access to the run: asked ``now``, else once the last answer is
        ``SSE_ACCESS_RECHECK_SECONDS`` old. Refused, the stream ends."""
        if self.access is None or not (now or self.access.due()) or await sync_to_async(self.access.allowed)():
            return False
        self.finished = True
        return True

    async def admit(self, block: str) -> str:
        """What to send for one block of the library's stream."""
        event_id = _block_id(block, self.channel)
        if event_id is None:
            if self.opening and block in (PADDING, STREAM_OPEN):  # the wrapper sent the opening
                return ""
            if block.startswith(KEEP_ALIVE):
                self.quiet += 1
                if not self.reconciled or self.quiet >= RECHECK_KEEP_ALIVES:
                    # Access at the quiet recheck only: the first keep-alive follows the check of the opening
                    # by 20 s, and 2,000 pages opened together would all ask at once.
                    quiet_recheck, self.reconciled, self.quiet = self.reconciled, True, 0
                    if quiet_recheck and await self.refused(now=True):
                        return forbidden(self.channel)
                    body = await self.missing()
                    return body if self.finished else body + block + BLOCK_END
            return block + BLOCK_END
        self.quiet = 0
        if self.last is not None and event_id <= self.last:
            return ""
        if await self.refused():
            return forbidden(self.channel)
        body = await self.missing(upto=event_id)
        if self.finished:  # the fill reached ``done``: nothing after it is sent
            return body
        if self.last is not None and event_id <= self.last:
            # The fill sent this event already: ids have a gap below it (a write rolled back after it was
            # numbered), so the rows counted up to it reached it.
            return body
        self.last = event_id
        self.finished = _block_field(block, "event") == LAST_EVENT
        return body + block + BLOCK_END


async def _ordered(chunks: AsyncIterator[bytes], cursor: _Cursor) -> AsyncIterator[str]:
    pending = ""
    async for chunk in chunks:
        pending += chunk.decode() if isinstance(chunk, bytes) else chunk
        *blocks, pending = pending.split(BLOCK_END)
        out = ""
        for block in blocks:
            if cursor.finished and _block_id(block, cursor.channel) is not None:
                break
            out += await cursor.admit(block)
        if out:
            yield out
        if cursor.finished:
            return


async def _ended_after_done(content: AsyncGenerator[bytes, None], cursor: _Cursor) -> AsyncIterator[str]:
    """``_ordered`` with its storage reads on the SSE read thread (``reads``), closing the content it was
    given when it ends (after ``done``, or a client gone). Django wraps the library's generator in that
    content and keeps it on the response, so the library's cleanup (its listener removed) runs when the
    response is released at the end of the request."""
    async with stream_reads(), aclosing(content) as chunks:
        if cursor.opening:
            yield cursor.opening
            if cursor.finished:  # the opening reached ``done``, or the client had it already
                return
        async for part in _ordered(chunks, cursor):
            yield part


def cursor_for(request: HttpRequest, channel: str, access: Access | None = None) -> _Cursor:
    """The connection's cursor, its opening read. Without a last id too it knows where the stream starts: a
    gap after it (an announcement this process missed, a ``done`` never announced) is then filled as it is
    for a client that gave one."""
    resume_at = _resume_point(request, channel)
    cursor = _Cursor(channel, resume_at, finished=_done_at(channel, resume_at), access=access)
    cursor.read_opening()
    return cursor


def ordered(response: HttpResponse, request: HttpRequest, channel: str, access: Access | None = None) -> HttpResponse:
    """django-eventstream's response for ``channel``, its stream made exactly-once, gap-free and finite, and
    ended for a reader who loses ``access`` meanwhile."""
    # An async response's content is an async generator; isinstance says so to the type checker too.
    if (
        isinstance(response, StreamingHttpResponse)
        and response.is_async
        and isinstance(content := response.streaming_content, AsyncGenerator)
    ):
        cursor = cursor_for(request, channel, access)
        response.streaming_content = _ended_after_done(content, cursor)
    return response
