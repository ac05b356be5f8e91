"""Writes of runs: the exactly-once claim, heartbeat, the provider used, cancellation and the terminal states.

The last link of the lifecycle (``diagnosis/submission.py`` says the whole chain): it never dispatches.

A run leaves RUNNING exactly once, through ``run_finish`` or ``run_fail``: both are conditional updates on
``status=RUNNING``, and only the caller whose update matched publishes the run's terminal events. That is
what guarantees "every run ends with exactly one ``done``" even when a worker and the reaper race.

Cancelling a run only marks it (``run_cancel``); its worker ends it at the next node boundary. A run no
worker has claimed is ended by the canceller itself, because no worker claims a run marked cancelled.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, F, Q, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from diagnosis import sse
from diagnosis.failures import FailureCode, failure_message
from diagnosis.models import DiagnosisRun, RunStatus
from diagnosis.pricing import run_cost
from diagnosis.signals import run_ended
from tracing.events import TimelineEvent
from tracing.models import COUNT_MAX, TraceEventKind
from tracing.timeline import append_event


@dataclass(frozen=True)
class RunResult:
    """What an intent path hands back to be persisted on the run."""

    final_answer: str
    conclusion: str = ""
    degraded: bool = False
    effective_verdict: str = ""
    self_evaluation: dict[str, Any] = field(default_factory=dict)
    orchestration_trace: dict[str, Any] | None = None
    # Evidence shown under the answer: [{"claim_id", "statement", "tool_name", "source_invocation_id", "excerpt"}]
    evidence: list[dict[str, Any]] = field(default_factory=list)
    # diagnosis.figures.evidence.build_figures of the released claims: {"metrics", "timeline", "claims"}
    figures: dict[str, Any] = field(default_factory=dict)


#: The length of ``diagnosis_run.claimed_by``: a longer worker name is cut there.
CLAIMED_BY_CHARS = 200


def run_claim(run_id: uuid.UUID | str, *, worker: str, again: bool = False) -> DiagnosisRun | None:
    """Claim a RUNNING, unclaimed run for this worker; None when another worker has it, it ended, or its
    cancellation was requested (the canceller ends such a run itself).

    ``again``: this worker's claim failed with a database error, whose commit may have gone through before the
    connection broke; a run claimed by this very worker is then its own (taken for another's, it was left
    RUNNING, claimed and executed by nobody, for the reaper). Not on a first claim: an embedded server's
    threads share one worker name. Nor for a name cut at the column's length, which another worker's may share."""
    now = timezone.now()
    running = DiagnosisRun.objects.filter(pk=run_id, status=RunStatus.RUNNING, cancel_requested_at__isnull=True)
    claimed = running.filter(claimed_at__isnull=True).update(
        claimed_at=now, claimed_by=worker[:CLAIMED_BY_CHARS], heartbeat_at=now
    )
    if not claimed:
        if again and len(worker) < CLAIMED_BY_CHARS:
            return running.select_related("session").filter(claimed_by=worker).first()
        return None
    # Written with the run's first reports: nobody is waiting for it.
    append_event(run_id, TraceEventKind.RUN, TimelineEvent.CLAIMED, {"worker": worker}, hold=True)
    return DiagnosisRun.objects.select_related("session").get(pk=run_id)


def run_record_provider(run_id: uuid.UUID | str, *, provider: str) -> None:
    DiagnosisRun.objects.filter(pk=run_id).update(provider=provider[:20])


def run_heartbeat(run_id: uuid.UUID | str) -> bool:
    """Record that the run's worker is alive; False when the run is no longer RUNNING."""
    return bool(DiagnosisRun.objects.filter(pk=run_id, status=RunStatus.RUNNING).update(heartbeat_at=timezone.now()))


def _totals(run: DiagnosisRun) -> dict[str, Any]:
    """Counts, token totals and the answering model from the audit rows, so the summary cannot drift."""
    totals = run.steps.aggregate(
        step_count=Count("id"),
        prompt_tokens=Sum("prompt_tokens"),
        completion_tokens=Sum("completion_tokens"),
        reasoning_tokens=Sum("reasoning_tokens"),
        unreported_calls=Sum("unreported_calls"),
    )
    summary: dict[str, Any] = {key: min(value or 0, COUNT_MAX) for key, value in totals.items()}
    unpriced = summary.pop("unreported_calls") > 0
    summary |= _usage_totals(summary["prompt_tokens"], summary["completion_tokens"], unpriced=unpriced)
    summary["tool_count"] = run.tool_invocations.count()
    model = run.steps.exclude(model="").values_list("model", flat=True).first()
    if model:
        summary["model"] = model[:100]
    return summary


def _usage_totals(prompt_tokens: int, completion_tokens: int, *, unpriced: bool) -> dict[str, Any]:
    """The run's total tokens, and its cost: None when no price is set, or when a model reply reported no
    usage (its tokens are unknown: a cost of the others would understate the bill, read as exact)."""
    cost = None if unpriced else run_cost(prompt_tokens, completion_tokens)
    return {"total_tokens": min(prompt_tokens + completion_tokens, COUNT_MAX), "cost": cost}


def _finish(run: DiagnosisRun, status: RunStatus, *, still: Q | None = None, **fields: Any) -> bool:
    """End a RUNNING run (of which ``still`` holds, checked in the same UPDATE); False when it was not."""
    now = timezone.now()
    # Capped where the column ends: a run reaped after weeks without a reaper must still end, not fail its
    # UPDATE out of range.
    duration_ms = min(COUNT_MAX, max(0, int((now - run.started_at).total_seconds() * 1000)))
    values = {"status": status, "finished_at": now, "duration_ms": duration_ms, **_totals(run), **fields}
    running = DiagnosisRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING)
    updated = (running if still is None else running.filter(still)).update(**values)
    if updated:
        # The row now holds exactly these values: the run is brought up to date without reading it back.
        for name, value in values.items():
            setattr(run, name, value)
    return bool(updated)


def _end_events(run: DiagnosisRun, event: sse.EventName, data: dict[str, Any]) -> None:
    """The run's terminal event and ``done``, stored in the transaction that ends the run and announced after
    its commit, after ``run_ended`` for other apps.

    The signal goes first and robustly (a failing receiver is logged), so that nothing it does can keep the
    stream from its ``done``; an announcement that fails (Redis down) is logged, and readers find the stored
    events (``sse``).
    """
    transaction.on_commit(lambda: run_ended.send_robust(sender=DiagnosisRun, run=run), robust=True)
    sse.store_with_transaction(run.pk, [(event, data), ("done", {"outcome": run.outcome, "run_id": str(run.pk)})])


def run_finish(run: DiagnosisRun, result: RunResult) -> bool:
    """Persist a released answer (SUCCESS, degraded or not) and publish ``content`` and ``done``."""
    from diagnosis.rendering import render_answer  # markdown-it + nh3 are only needed on this path

    with transaction.atomic():
        finished = _finish(
            run,
            RunStatus.SUCCESS,
            final_answer=result.final_answer,
            conclusion=result.conclusion,
            degraded=result.degraded,
            effective_verdict=result.effective_verdict,
            self_evaluation=result.self_evaluation,
            orchestration_trace=result.orchestration_trace,
            figures=result.figures,
        )
        if not finished:
            return False
        append_event(run.pk, TraceEventKind.RELEASE, TimelineEvent.ANSWER_RELEASED, {"degraded": result.degraded})
        content = {
            "markdown": result.final_answer,
            "html": render_answer(result.final_answer),
            "evidence": result.evidence,
            "degraded": result.degraded,
            "effective_verdict": result.effective_verdict,
        }
        _end_events(run, "content", content)
    return True


def run_fail(
    run: DiagnosisRun,
    *,
    reason: FailureCode,
    detail: str = "",
    orchestration_trace: dict[str, Any] | None = None,
    still: Q | None = None,
) -> bool:
    """Mark a run FAILED with its partial trace and publish ``failure`` and ``done``; False if it had ended,
    or if ``still`` no longer holds of it (the reaper's reason to end it, re-checked as it ends it). The
    event's message is the reason's sentence (``failures.failure_message``), ``detail`` after it."""
    with transaction.atomic():
        fields: dict[str, Any] = {"failure_reason": reason}
        if orchestration_trace is not None:
            fields["orchestration_trace"] = orchestration_trace
        if not _finish(run, RunStatus.FAILED, still=still, **fields):
            return False
        # The detail (a tool's error code, an exception's kind) kept in the timeline too: the run's trace, not
        # only its stream, says what failed.
        append_event(
            run.pk, TraceEventKind.RUN, TimelineEvent.FAILED, {"code": reason} | ({"detail": detail} if detail else {})
        )
        failure = {"code": reason, "message": failure_message(reason, detail)}
        _end_events(run, "failure", failure)
    return True


def run_cancel(run: DiagnosisRun, *, user: User) -> bool:
    """Ask a RUNNING run to stop; False when it had already ended. The timeline says who asked: its
    session's owner, or staff (``selectors.run_cancellable_by`` decides who may).

    A claimed run is only marked: its worker stops at the next node boundary and fails it ``cancelled``.
    An unclaimed (queued) run is failed here at once: once it is marked no worker will claim it, and the
    claim and the mark are conditional updates of the same row, so exactly one of them wins.
    """
    with transaction.atomic():
        marked = DiagnosisRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING).update(
            cancel_requested_at=Coalesce(F("cancel_requested_at"), Value(timezone.now()))
        )
        if not marked:
            return False
        by = "owner" if run.session.owner_id == user.pk else "staff"
        append_event(run.pk, TraceEventKind.RUN, TimelineEvent.CANCEL_REQUESTED, {"by": by})
    run.refresh_from_db()
    if run.claimed_at is None:
        run_fail(run, reason=FailureCode.CANCELLED)
    return True
