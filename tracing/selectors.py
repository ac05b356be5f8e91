"""Reads of the audit records that need no chat session: the timeline's node events, the reasoning rule."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import AnonymousUser, User

from tracing.events import TimelineEvent
from tracing.models import DiagnosisTraceEvent, TraceEventKind


def orchestration_events_from_timeline(run_id: uuid.UUID) -> tuple[list[dict[str, object]], str | None]:
    """The orchestration events a run's nodes reported, in order, and the node that had started after the
    last of them and never finished (for runs whose worker died)."""
    rows = DiagnosisTraceEvent.objects.filter(run_id=run_id, kind=TraceEventKind.NODE).order_by("seq")
    keys = ("node", "outcome", "reason_code", "attempt")
    events: list[dict[str, object]] = []
    unfinished: str | None = None
    for row in rows:
        if row.name == TimelineEvent.NODE_FINISHED:
            events.append({key: row.details.get(key) for key in keys})
            unfinished = None
        elif row.details.get("phase") == "started":
            unfinished = row.details.get("node")
    return events, unfinished


# --- The restricted reasoning audit ------------------------------------------------------------------
# The Trace API's reads of sessions and runs live in ``diagnosis.trace.selectors``; who may see a session
# is decided by ``diagnosis.selectors``.

REASONING_PERMISSION = "tracing.view_reasoning"


def can_view_reasoning(user: User | AnonymousUser | None) -> bool:
    """The restricted reasoning audit is for holders of ``tracing.view_reasoning`` only, owners included."""
    return bool(user and user.is_authenticated and user.has_perm(REASONING_PERMISSION))
