"""django-eventstream's storage over the runs' event log (``EVENTSTREAM_STORAGE_CLASS``).

A run channel's events are the stream rows of the run's log (``tracing.timeline``), written by
``diagnosis.sse`` (one INSERT numbered in memory by the run's owner, the row often also a timeline event);
the library reads them here: ``get_events`` is one range read on the (run, stream_id) index. The library's
own ``DjangoModelStorage`` costs four queries an event (a counter row locked, read and updated, then the
event) plus a trim query, and keeps a second copy of what the timeline already says.

Nothing stores through this class: ``append_event`` is left to ``StorageBase``, which refuses, so that the
library's ``send_event`` cannot write a run's event behind its log's numbering.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Max
from django_eventstream.event import Event
from django_eventstream.storage import EventDoesNotExist, StorageBase

from tracing.models import DiagnosisTraceEvent

CHANNEL_PREFIX = "run-"


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
