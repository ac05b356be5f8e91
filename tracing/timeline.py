"""The append-only run timeline (``diagnosis_trace_event``).

Details are whitelisted and bounded on the way in, because the timeline is shown to every reader of a
run's trace: no prompt, payload or reasoning text may ever be copied into it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django.db import transaction

from config.sequence import next_seq
from tracing.models import DiagnosisTraceEvent, TraceEventKind

DETAIL_KEYS = frozenset(
    {
        "intent",
        "node",
        "phase",
        "detail",
        "attempt",
        "outcome",
        "reason_code",
        "tool",
        "invocation_id",
        "status",
        "error_code",
        "row_count",
        "verdict",
        "passed",
        "failed",
        "claims",
        "released_claim_ids",
        "degraded",
        "code",
        "worker",
        "duration_ms",
        "decision",
        "rule",
        "rules",
        "unsupported",
        "policy_version",
        "guard_version",
        "by",
    }
)
MAX_VALUE_CHARS = 200
MAX_LIST_ITEMS = 20


def _bounded(value: Any) -> Any:
    if isinstance(value, bool | int | float) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_bounded(item) for item in list(value)[:MAX_LIST_ITEMS]]
    return str(value)[:MAX_VALUE_CHARS]


def bounded_details(details: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _bounded(value) for key, value in details.items() if key in DETAIL_KEYS}


def append_event(
    run_id: uuid.UUID | str, kind: TraceEventKind, name: str, details: Mapping[str, Any] | None = None
) -> DiagnosisTraceEvent:
    """Append one event with the next sequence number of its run."""
    with transaction.atomic():
        return DiagnosisTraceEvent.objects.create(
            run_id=run_id,
            seq=next_seq(DiagnosisTraceEvent, run_id),
            kind=kind,
            name=name[:60],
            details=bounded_details(details or {}),
        )
