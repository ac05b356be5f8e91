"""Recording model-backed node attempts: one ``agent_step`` and one ``agent_reasoning_audit`` row each.

The step row holds bounded metadata that every reader of a trace may see; what the model reasoned goes to
the restricted audit table only, and only what the provider really returned (``UNAVAILABLE`` otherwise).
Every text is redacted on the way in (``config.redaction``): a model that echoes a key in its answer must
not get it stored. A run's ``StepLog`` numbers its steps in memory (one read of the last ``seq``, then
none): after the claim the run's worker is the only writer of its steps. Given the run's event log, a step is
written with its held progress reports (``tracing.timeline``), in their transaction: as late as a report.
"""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Max

from config.redaction import redact
from tracing.models import AgentReasoningAudit, AgentStep, ReasoningSource
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
    latency_ms: int = 0
    reasoning_content: str | None = None
    assistant_text: str = ""
    findings: list[dict[str, str]] = field(default_factory=list)
    """Why the release guard blocked a draft, quoting it: restricted like the reasoning."""


class StepLog:
    """The steps of one run, numbered in memory."""

    def __init__(self, run_id: uuid.UUID | str, *, empty: bool = False, log: RunLog | None = None) -> None:
        """``empty``: the run has no steps yet (it was just claimed), so they are numbered from 1 unread.
        ``log``: the run's event log, whose next write of held reports writes each step in its transaction
        (``RunLog.hold_write``); without one, a step is written at once, in a transaction of its own."""
        self.run_id = uuid.UUID(str(run_id))
        self.log = log
        self._last: int | None = 0 if empty else None

    def record(self, record: StepRecord) -> None:
        if self._last is None:
            self._last = AgentStep.objects.filter(run_id=self.run_id).aggregate(last=Max("seq"))["last"] or 0
        self._last += 1
        if self.log is None:
            _insert(self.run_id, self._last, record)
        else:
            self.log.hold_write(functools.partial(_insert, self.run_id, self._last, record))


def _insert(run_id: uuid.UUID | str, seq: int, record: StepRecord) -> AgentStep:
    # Its own transaction, or a part of the run log's write that holds it (no savepoint: nothing to retry).
    with transaction.atomic(savepoint=False):
        step = AgentStep.objects.create(
            run_id=run_id,
            seq=seq,
            node=record.node,
            attempt=record.attempt,
            role=record.role or record.node,
            model=record.model[:100],
            prompt_version=record.prompt_version[:40],
            prompt_tokens=record.prompt_tokens,
            completion_tokens=record.completion_tokens,
            reasoning_tokens=record.reasoning_tokens,
            model_calls=record.model_calls,
            latency_ms=record.latency_ms,
            outcome=record.outcome,
            summary=redact(record.summary)[: AgentStep.SUMMARY_MAX_CHARS],
        )
        AgentReasoningAudit.objects.create(
            run_id=run_id,
            step=step,
            node=record.node,
            attempt=record.attempt,
            reasoning_source=ReasoningSource.PROVIDER if record.reasoning_content else ReasoningSource.UNAVAILABLE,
            reasoning_content=redact(record.reasoning_content or ""),
            assistant_text=redact(record.assistant_text),
            findings=[{key: redact(value) for key, value in finding.items()} for finding in record.findings],
        )
    return step
