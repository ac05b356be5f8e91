"""Reads of the audit records."""

from __future__ import annotations

import uuid

from tracing.models import DiagnosisTraceEvent, TraceEventKind

NODE_FINISHED = "node_finished"


def orchestration_events_from_timeline(run_id: uuid.UUID | str) -> list[dict[str, object]]:
    """The orchestration events a run's nodes reported, in order (for runs whose worker died)."""
    rows = DiagnosisTraceEvent.objects.filter(run_id=run_id, kind=TraceEventKind.NODE, name=NODE_FINISHED).order_by("seq")
    keys = ("node", "outcome", "reason_code", "attempt")
    return [{key: row.details.get(key) for key in keys} for row in rows]
