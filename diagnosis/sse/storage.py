"""django-eventstream's storage over the runs' event log (``EVENTSTREAM_STORAGE_CLASS``).

A run channel's events are the stream rows of the run's log (``tracing.timeline``): ``append_event`` is one
INSERT numbered in memory by the run's owner, ``get_events`` one range read on the (run, stream_id) index.
The library's own ``DjangoModelStorage`` costs four queries an event (a counter row locked, read and
updated, then the event) plus a trim query, and keeps a second copy of what the timeline already says.

``publish`` in ``diagnosis.sse`` hands the timeline side of a progress report to ``append_event`` through
``timeline_entry``, so that the report's timeline event and its SSE event are the same row: the library's
``send_event`` stays the one way an event is stored and announced. A progress report the run's log held
back and wrote with others (``tracing.timeline``) is announced the same way, with ``stored_row`` telling
``append_event`` that the row is already written.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Max
from django_eventstream.event import Event
from django_eventstream.storage import EventDoesNotExist, StorageBase

from tracing.models import DiagnosisTraceEvent, TraceEventKind
from tracing.timeline import StreamEvent, log_for

CHANNEL_PREFIX = "run-"


@dataclass(frozen=True)
class TimelineEntry:
    """The timeline side of a stream event: the same row records it for auditors."""

    kind: TraceEventKind
    name: str
    details: Mapping[str, Any] = field(default_factory=dict)


_pending_entry: ContextVar[TimelineEntry | None] = ContextVar("pending_timeline_entry", default=None)
_stored_row: ContextVar[DiagnosisTraceEvent | None] = ContextVar("stored_row", default=None)


@contextmanager
def timeline_entry(entry: TimelineEntry | None) -> Iterator[None]:
    """While inside, the event ``append_event`` stores is also this timeline event."""
    token = _pending_entry.set(entry)
    try:
        yield
    finally:
        _pending_entry.reset(token)


@contextmanager
def stored_row(row: DiagnosisTraceEvent) -> Iterator[None]:
    """While inside, ``append_event`` returns this written row's event instead of writing one."""
    token = _stored_row.set(row)
    try:
        yield
    finally:
        _stored_row.reset(token)


def run_of(channel: str) -> uuid.UUID | None:
    """The run a channel belongs to; None for any other channel name."""
    if not channel.startswith(CHANNEL_PREFIX):
        return None
    try:
        return uuid.UUID(channel.removeprefix(CHANNEL_PREFIX))
    except ValueError:
        return None


def _stream_rows(run_id: uuid.UUID) -> Any:
    return DiagnosisTraceEvent.log.filter(run_id=run_id, stream_id__isnull=False)


class RunEventStorage(StorageBase):
    def append_event(self, channel: str, event_type: str, data: str) -> Event:
        """Store one event (``data`` is the JSON text ``send_event`` encoded) as the next of its run."""
        run_id = run_of(channel)
        if run_id is None:
            raise ValueError(f"not a run channel: {channel!r}")
        if (written := _stored_row.get()) is not None:
            return Event(channel, event_type, data, id=written.stream_id)
        entry = _pending_entry.get()
        stream = StreamEvent(event_type, data)
        log = log_for(run_id)
        row = (
            log.append(entry.kind, entry.name, entry.details, stream=stream)
            if entry
            else log.append("", "", stream=stream)
        )
        return Event(channel, event_type, data, id=row.stream_id)

    def get_events(self, channel: str, last_id: int, limit: int = 100) -> list[Event]:
        """The events after ``last_id``, oldest first; ``EventDoesNotExist`` for an id past the last one."""
        run_id = run_of(channel)
        if run_id is None:
            return []
        rows = list(
            _stream_rows(run_id)
            .filter(stream_id__gt=last_id)
            .order_by("stream_id")
            .values_list("stream_id", "stream_event", "stream_data")[:limit]
        )
        if not rows and last_id > 0 and last_id > (current := self.get_current_id(channel)):
            raise EventDoesNotExist(f"No such event {last_id}", current)
        return [Event(channel, event, data, id=stream_id) for stream_id, event, data in rows]

    def get_current_id(self, channel: str) -> int:
        run_id = run_of(channel)
        if run_id is None:
            return 0
        return _stream_rows(run_id).aggregate(last=Max("stream_id"))["last"] or 0
