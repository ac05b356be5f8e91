"""The run event stream: the only code that touches django-eventstream.

Each run has one channel, ``run-<run_id>``. Events are stored (``storage.RunEventStorage``, in the run's
event log) so that a client connecting late, or reconnecting with ``Last-Event-ID``, receives every event
exactly once. Without a last id the stream would start at the current event, so the ``events_url`` handed
out by the chat API asks for everything after event 0 (``lastEventId=run-<id>:0``; ids start at 1).

The stored event is the truth; announcing it (Redis pub/sub, or in-process listeners) is a wake-up call.
When Redis is down the event is still stored, ``publish`` logs a warning and returns False, and readers
get it from storage: when they connect, at their first keep-alive, and when a later event of the run
arrives (``ordering``). The stream ends after the run's ``done``.

Events are stored in the run's log and announced here, as django-eventstream's ``send_event`` would store
them (through the storage class) and announce them, less its last step: a publish to a GRIP proxy
(Pushpin), which this service does not have, after escaping the event character by character in Python
(about a tenth of a millisecond per kilobyte, 2.5 ms of every offline run; docs/performance.md).
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import django_eventstream.eventstream
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.urls import reverse
from django_eventstream.channelmanager import DefaultChannelManager
from django_eventstream.event import Event
from django_eventstream.views import get_listener_manager
from redis.exceptions import RedisError

from diagnosis.selectors import run_visible_to
from diagnosis.sse.listener import ANNOUNCEMENTS
from diagnosis.sse.storage import CHANNEL_PREFIX
from tracing.models import DiagnosisTraceEvent, TraceEventKind
from tracing.timeline import RunLog, StreamEvent, log_for

logger = logging.getLogger(__name__)

EventName = Literal["metadata", "status", "content", "failure", "done"]
# Every run's last event: its stream ends once this has been delivered (``ordering``).
LAST_EVENT: EventName = "done"


@dataclass(frozen=True)
class TimelineEntry:
    """The timeline side of a stream event: the same row records it for auditors."""

    kind: TraceEventKind
    name: str
    details: Mapping[str, Any] = field(default_factory=dict)


def channel_for(run_id: uuid.UUID | str) -> str:
    return f"{CHANNEL_PREFIX}{run_id}"


def events_url(run_id: uuid.UUID | str) -> str:
    """Where a client reads a run's events, replayed from the first one."""
    return f"{reverse('run-events', kwargs={'run_id': str(run_id)})}?lastEventId={channel_for(run_id)}:0"


def publish(
    run_id: uuid.UUID | str, event: EventName, data: dict[str, Any], *, timeline: TimelineEntry | None = None
) -> bool:
    """Store and announce one named event of a run; False when only the announcement failed (Redis down).

    With ``timeline``, the stored row is also that timeline event (one insert for both). The event is
    stored before it is announced, so a failed announcement loses only the wake-up. Database errors are not
    caught.
    """
    stream, log = _stream_event(event, data), log_for(run_id)
    if timeline is None:
        (row,) = log.append_streams([stream])
    else:
        row = log.append(timeline.kind, timeline.name, timeline.details, stream=stream)
    return _announce(row)


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
        if row.stream_id is not None:
            _announce(row)


def _announce(row: DiagnosisTraceEvent) -> bool:
    """Wake the readers of a stored stream row: through Redis to every web process (the message
    django-eventstream's listeners read), or in this process without Redis. False when Redis failed."""
    channel = channel_for(row.run_id)
    redis_client = django_eventstream.eventstream.redis_client
    try:
        if redis_client is None:
            get_listener_manager().add_to_queues(
                channel, Event(channel, row.stream_event, row.stream_data, row.stream_id)
            )
        else:
            message = {
                "channel": channel,
                "event_type": row.stream_event,
                "data": row.stream_data,
                "pub_id": str(row.stream_id),
            }
            redis_client.publish(ANNOUNCEMENTS, json.dumps(message))
    except RedisError as error:
        logger.warning("run %s: %s event stored but not announced (Redis: %s)", row.run_id, row.stream_event, error)
        return False
    return True


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
