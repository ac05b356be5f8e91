"""The run event stream: the only code that touches django-eventstream.

Each run has one channel, ``run-<run_id>``. Events are stored (``storage.RunEventStorage``, in the run's
event log) so that a client connecting late, or reconnecting with ``Last-Event-ID``, receives every event
exactly once. Without a last id the stream would start at the current event, so the ``events_url`` handed
out by the chat API asks for everything after event 0 (``lastEventId=run-<id>:0``; ids start at 1).

The stored event is the truth; announcing it (Redis pub/sub, or in-process listeners) is a wake-up call.
When Redis is down the event is still stored, ``publish`` logs a warning and returns False, and readers
get it from storage: when they connect, at their first keep-alive, and when a later event of the run
arrives (``ordering``). The stream ends after the run's ``done``.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Collection, Iterable, Sequence
from typing import Any, Literal

from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.urls import reverse
from django_eventstream import send_event
from django_eventstream.channelmanager import DefaultChannelManager
from redis.exceptions import RedisError

from diagnosis.selectors import run_visible_to
from diagnosis.sse.storage import CHANNEL_PREFIX, TimelineEntry, stored_row, timeline_entry
from tracing.models import DiagnosisTraceEvent
from tracing.timeline import RunLog, StreamEvent, log_for

logger = logging.getLogger(__name__)

EventName = Literal["metadata", "status", "content", "failure", "done"]
# Every run's last event: its stream ends once this has been delivered (``ordering``).
LAST_EVENT: EventName = "done"


def channel_for(run_id: uuid.UUID | str) -> str:
    return f"{CHANNEL_PREFIX}{run_id}"


def events_url(run_id: uuid.UUID | str) -> str:
    """Where a client reads a run's events, replayed from the first one."""
    return f"{reverse('run-events', kwargs={'run_id': str(run_id)})}?lastEventId={channel_for(run_id)}:0"


def publish(
    run_id: uuid.UUID | str, event: EventName, data: dict[str, Any], *, timeline: TimelineEntry | None = None
) -> bool:
    """Store and announce one named event of a run; False when only the announcement failed (Redis down).

    With ``timeline``, the stored row is also that timeline event (one insert for both). django-eventstream
    stores the event (database) before it publishes to Redis, so a ``RedisError`` here means the event is
    stored and only the wake-up was lost. Database errors are not caught.
    """
    try:
        with timeline_entry(timeline):
            send_event(channel_for(run_id), event, data)
    except RedisError as error:
        logger.warning("run %s: %s event stored but not announced (Redis: %s)", run_id, event, error)
        return False
    return True


def _stream_event(event: EventName, data: dict[str, Any]) -> StreamEvent:
    return StreamEvent(event, json.dumps(data, cls=DjangoJSONEncoder))  # as ``send_event`` encodes it


def hold(log: RunLog, event: EventName, data: dict[str, Any], *, timeline: TimelineEntry) -> None:
    """Hand one event of a run to its owner's ``log``, to be stored with the log's next write and then
    announced (``announce``): a progress report, which may wait a few milliseconds for others."""
    log.append(timeline.kind, timeline.name, timeline.details, stream=_stream_event(event, data), hold=True)


def store_with_transaction(run_id: uuid.UUID | str, events: Sequence[tuple[EventName, dict[str, Any]]]) -> None:
    """Store ``events`` of a run in the current transaction, and announce them once it commits.

    For the events of a change the transaction makes (a run's end and its ``done``): stored with the change,
    they exist exactly when it does. Stored after the commit instead, anything between the two (a database
    error, a killed worker, a soft time limit) left a run ended for good with no ``done`` on its stream."""
    rows = log_for(run_id).append_streams([_stream_event(event, data) for event, data in events])
    transaction.on_commit(lambda: announce(rows))


def announce(rows: Iterable[DiagnosisTraceEvent]) -> None:
    """Announce stored stream rows of a run, in order, as ``publish`` announces the event it stores."""
    for row in rows:
        if row.stream_id is None:
            continue
        try:
            with stored_row(row):
                send_event(channel_for(row.run_id), row.stream_event, row.stream_data, json_encode=False)
        except RedisError as error:
            logger.warning("run %s: %s event stored but not announced (Redis: %s)", row.run_id, row.stream_event, error)


def publish_on_commit(
    run_id: uuid.UUID | str, event: EventName, data: dict[str, Any], *, timeline: TimelineEntry | None = None
) -> None:
    """``publish`` once the current transaction commits (at once outside one), so readers never see an event
    about rows that could still roll back. Robust: an event that cannot be stored (the database lost just
    after the commit) is logged, and the callbacks after it, such as the run's hand-off to a worker, still run."""
    transaction.on_commit(lambda: publish(run_id, event, data, timeline=timeline), robust=True)


def released_evidence(run_ids: Collection[uuid.UUID]) -> dict[uuid.UUID, list[dict[str, Any]]]:
    """The verified excerpts each of these runs released with its answer, as its stored ``content`` event
    carried them to the page: a page drawn after the run shows what the live page showed."""
    rows = DiagnosisTraceEvent.log.filter(run_id__in=run_ids, stream_event="content")
    return {
        run_id: json.loads(data).get("evidence") or [] for run_id, data in rows.values_list("run_id", "stream_data")
    }


class RunChannelManager(DefaultChannelManager):
    """Only the run's session owner, or an auditor, may read a run channel."""

    def can_read_channel(self, user, channel: str) -> bool:
        if not channel.startswith(CHANNEL_PREFIX):
            return False
        return run_visible_to(user, channel.removeprefix(CHANNEL_PREFIX)) is not None
