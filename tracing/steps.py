"""Recording model-backed node attempts: one ``agent_step`` and one ``agent_reasoning_audit`` row each.

The step row holds bounded metadata that every reader of a trace may see; what the model reasoned goes to
the restricted audit table only, and only what the provider really returned (``UNAVAILABLE`` otherwise).
Every text is redacted on the way in (``config.redaction``): a model that echoes a key in its answer must
not get it stored. A run's ``StepLog`` numbers its steps in memory (one read of the last ``seq``, then
none): after the claim the run's worker is the only writer of its steps. Given the run's event log, a step is
written with its held progress reports (``tracing.timeline``), in their transaction: as late as a report,
and the steps held together in one INSERT.
"""

from __future__ import annotations

import functools
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from config.redaction import redact
from tracing.models import COUNT_MAX, AgentReasoningAudit, AgentStep, ReasoningSource
from tracing.timeline import RunLog


@dataclass(frozen=True)
class StepRecord:
    """What one node attempt did, gathered by the node over all of its model calls."""

    node: str
    attempt: int
    outcome: str
    summary: str = ""
    role: str = ""
    """The model role, when it is not the node's own (the semantic guard runs inside the composer)."""
    model: str = ""
    prompt_version: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    model_calls: int = 0
    unreported_calls: int = 0
    """Replies among ``model_calls`` whose usage the endpoint did not report (their tokens are unknown)."""
    latency_ms: int = 0
    reasoning_content: str | None = None
    assistant_text: str = ""
    findings: list[dict[str, str]] = field(default_factory=list)
    """Why the release guard blocked a draft, quoting it: restricted like the reasoning."""


_Step = tuple[int, StepRecord, datetime]
"""A step recorded: its number in the run, what it did, when it was recorded."""


class StepLog:
    """The steps of one run, numbered in memory."""

    def __init__(self, run_id: uuid.UUID | str, *, empty: bool = False, log: RunLog | None = None) -> None:
        """``empty``: the run has no steps yet (it was just claimed), so they are numbered from 1 unread.
        ``log``: the run's event log, whose next write of held reports writes the steps recorded since the
        last one in its transaction (``RunLog.hold_write``); without one, a step is written at once, in a
        transaction of its own."""
        self.run_id = uuid.UUID(str(run_id))
        self.log = log
        self._last: int | None = 0 if empty else None
        # Steps recorded and not yet taken by a write (their number, what they did, when they were recorded);
        # one held write takes them all, in two INSERTs.
        self._pending: list[_Step] = []
        # Never held while the log's lock is taken (the log calls ``_write_pending`` under its own).
        self._lock = threading.Lock()

    def record(self, record: StepRecord) -> None:
        with self._lock:
            if self._last is None:
                self._last = AgentStep.objects.filter(run_id=self.run_id).aggregate(last=Max("seq"))["last"] or 0
            self._last += 1
            step = (self._last, record, timezone.now())
            if self.log is not None:
                self._pending.append(step)
        if self.log is None:
            _insert(self.run_id, [step])
        else:
            # One held write per step: the first to run takes every step pending, the others find none. Held
            # every time (not only for the first pending step) so that steps a failed write left pending are
            # taken by the next one.
            self.log.hold_write(self._write_pending)

    def _write_pending(self) -> Callable[[], None] | None:
        """Write the steps pending; returns what puts them back, should the transaction roll back (they are
        then written by the next write, with the steps recorded since)."""
        with self._lock:
            steps, self._pending = self._pending, []
        if not steps:
            return None
        put_back = functools.partial(self._put_back, steps)
        try:
            _insert(self.run_id, steps)
        except BaseException:
            put_back()
            raise
        return put_back

    def _put_back(self, steps: list[_Step]) -> None:
        with self._lock:
            self._pending = steps + self._pending


def _insert(run_id: uuid.UUID | str, steps: list[_Step]) -> None:
    """The steps' rows, then their audit rows, one INSERT each where the database returns the steps' ids
    from a multi-row INSERT (SQLite, MariaDB); MySQL does not, and gets one INSERT per step."""
    rows = [_step_row(run_id, seq, record, at) for seq, record, at in steps]
    # Its own transaction, or a part of the run log's write that holds it (no savepoint: nothing to retry).
    with transaction.atomic(savepoint=False):
        if connection.features.can_return_rows_from_bulk_insert:
            AgentStep.objects.bulk_create(rows)
        else:
            for row in rows:
                row.save(force_insert=True)
        AgentReasoningAudit.objects.bulk_create(
            [_audit_row(row, record) for row, (_, record, _) in zip(rows, steps, strict=True)]
        )


def _step_row(run_id: uuid.UUID | str, seq: int, record: StepRecord, at: datetime) -> AgentStep:
    return AgentStep(
        run_id=run_id,
        seq=seq,
        created_at=at,
        node=record.node,
        attempt=record.attempt,
        role=record.role or record.node,
        model=record.model[:100],
        prompt_version=record.prompt_version[:40],
        prompt_tokens=min(record.prompt_tokens, COUNT_MAX),
        completion_tokens=min(record.completion_tokens, COUNT_MAX),
        reasoning_tokens=min(record.reasoning_tokens, COUNT_MAX),
        model_calls=record.model_calls,
        unreported_calls=record.unreported_calls,
        latency_ms=min(record.latency_ms, COUNT_MAX),
        outcome=record.outcome,
        summary=redact(record.summary)[: AgentStep.SUMMARY_MAX_CHARS],
    )


def _audit_row(step: AgentStep, record: StepRecord) -> AgentReasoningAudit:
    return AgentReasoningAudit(
        run_id=step.run_id,
        step=step,
        created_at=step.created_at,
        node=record.node,
        attempt=record.attempt,
        reasoning_source=ReasoningSource.PROVIDER if record.reasoning_content else ReasoningSource.UNAVAILABLE,
        reasoning_content=redact(record.reasoning_content or ""),
        assistant_text=redact(record.assistant_text),
        findings=[{key: redact(value) for key, value in finding.items()} for finding in record.findings],
    )
