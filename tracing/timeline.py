"""The append path of a run's event log (``diagnosis_trace_event``): its timeline and its SSE stream.

Details are whitelisted and bounded on the way in, because the timeline is shown to every reader of a
run's trace: no prompt, payload or reasoning text may ever be copied into it.

Numbers (``seq`` for timeline events, ``stream_id`` for stream events) are taken in memory, not by ``MAX`` queries: after
the claim a run has exactly one owner, its worker, which registers the run's ``RunLog`` (``owned_log``) and
numbers every row it writes, one insert each. The few other writers - the submission before the claim, a
canceller, the reaper - read where the log stands once. When two writers pick the same number the unique
constraint refuses the second insert; that writer reads the log's end again and retries, so rows are
never lost nor numbered twice, and a run's stream ids stay 1, 2, 3... in the order they were stored.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max

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


@dataclass(frozen=True)
class StreamEvent:
    """The SSE side of a log row: the event's name and its data, already JSON-encoded."""

    event: str
    data: str


#: Tries of one append when other writers keep taking the numbers it picked.
APPEND_TRIES = 5


def _insert(row: DiagnosisTraceEvent) -> None:
    """One INSERT; inside a transaction in a savepoint, so that a refused number leaves it usable."""
    if transaction.get_connection().in_atomic_block:
        with transaction.atomic():
            row.save(force_insert=True)
    else:
        row.save(force_insert=True)


class RunLog:
    """The append path of one run's log, numbering its rows in memory (thread-safe)."""

    def __init__(
        self, run_id: uuid.UUID | str, *, on_foreign_write: Callable[[], None] | None = None, empty: bool = False
    ) -> None:
        """``empty``: the run was created in this transaction, so its log starts at 0 without being read."""
        self.run_id = uuid.UUID(str(run_id))
        # Called when another writer has appended to this log meanwhile, before this one writes after it.
        self.on_foreign_write = on_foreign_write
        self._last: tuple[int, int] | None = (0, 0) if empty else None
        self._lock = threading.Lock()

    def _read_end(self) -> tuple[int, int]:
        ends = DiagnosisTraceEvent.log.filter(run_id=self.run_id).aggregate(seq=Max("seq"), stream=Max("stream_id"))
        return ends["seq"] or 0, ends["stream"] or 0

    def append(
        self,
        kind: TraceEventKind | str,
        name: str,
        details: Mapping[str, Any] | None = None,
        *,
        stream: StreamEvent | None = None,
    ) -> DiagnosisTraceEvent:
        """Append one row with the run's next numbers: a timeline event, a stream event, or both."""
        with self._lock:
            for tries_left in reversed(range(APPEND_TRIES)):
                if self._last is None:
                    self._last = self._read_end()
                seq, stream_id = self._last
                row = DiagnosisTraceEvent(
                    run_id=self.run_id,
                    seq=seq + 1 if kind else None,
                    kind=kind,
                    name=name[:60],
                    details=bounded_details(details or {}),
                    stream_id=stream_id + 1 if stream else None,
                    stream_event=stream.event if stream else "",
                    stream_data=stream.data if stream else "",
                )
                try:
                    _insert(row)
                except IntegrityError:
                    # Another writer took the number (or the run is gone): read the log's end again.
                    self._last = None
                    if not tries_left:
                        raise
                    if self.on_foreign_write:
                        self.on_foreign_write()
                    continue
                self._last = (row.seq or seq, row.stream_id or stream_id)
                return row
        raise AssertionError("unreachable: the last try returns or raises")


_owned: dict[str, RunLog] = {}
_owned_lock = threading.Lock()


@contextmanager
def owned_log(log: RunLog) -> Iterator[RunLog]:
    """Make ``log`` the one every writer of this process uses for its run, while the run is worked on."""
    key = str(log.run_id)
    with _owned_lock:
        _owned[key] = log
    try:
        yield log
    finally:
        with _owned_lock:
            if _owned.get(key) is log:
                del _owned[key]


def log_for(run_id: uuid.UUID | str) -> RunLog:
    """The run's log as its owner in this process numbers it, else one that reads the log's end first."""
    key = str(uuid.UUID(str(run_id)))
    with _owned_lock:
        owned = _owned.get(key)
    return owned or RunLog(key)


def append_event(
    run_id: uuid.UUID | str, kind: TraceEventKind, name: str, details: Mapping[str, Any] | None = None
) -> DiagnosisTraceEvent:
    """Append one timeline event (no stream event) with the next sequence number of its run."""
    return log_for(run_id).append(kind, name, details)
