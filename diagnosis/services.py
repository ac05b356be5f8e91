"""Writes of sessions and runs: submission, the exactly-once claim, heartbeat and the terminal states.

A run leaves RUNNING exactly once, through ``run_finish`` or ``run_fail``: both are conditional updates on
``status=RUNNING``, and only the caller whose update matched publishes the run's terminal events. That is
what guarantees "every run ends with exactly one ``done``" even when a worker and the reaper race.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, Sum
from django.utils import timezone

from diagnosis import sse
from diagnosis.dispatch import dispatch_run
from diagnosis.intent import route_intent
from diagnosis.models import ChatSession, DiagnosisRun, RunStatus
from diagnosis.selectors import session_owned_by
from tracing.models import TraceEventKind
from tracing.timeline import append_event

MAX_MESSAGE_CHARS = 8000
TITLE_CHARS = 80


class SubmissionError(ValueError):
    """A chat message that cannot be accepted; ``code`` and ``status`` become the API's JSON error."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


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


def run_create(*, user: AbstractBaseUser, message: str, session_id: str | None = None) -> DiagnosisRun:
    """Validate a message and create (or continue) the session and the run, routed to its intent."""
    text = (message or "").strip()
    if not text:
        raise SubmissionError("empty_message", "message must not be empty")
    if len(text) > MAX_MESSAGE_CHARS:
        raise SubmissionError("message_too_long", f"message must be at most {MAX_MESSAGE_CHARS} characters")
    with transaction.atomic():
        if session_id:
            session = session_owned_by(user, session_id)
            if session is None:
                # Foreign and unknown sessions answer the same, so ids of other users cannot be probed.
                raise SubmissionError("session_not_found", "no such chat session", status=404)
            session.save(update_fields=["updated_at"])
        else:
            session = ChatSession.objects.create(owner=user, title=text[:TITLE_CHARS])
        run = DiagnosisRun.objects.create(session=session, query=text, intent=route_intent(text))
        append_event(run.id, TraceEventKind.ROUTING, "intent_routed", {"intent": run.intent})
        transaction.on_commit(
            lambda: sse.publish(run.id, "metadata", {"session_id": str(session.id), "run_id": str(run.id)})
        )
    return run


def chat_submit(*, user: AbstractBaseUser, message: str, session_id: str | None = None) -> DiagnosisRun:
    """``run_create``, then hand the run to the executor once the rows are committed."""
    with transaction.atomic():
        run = run_create(user=user, message=message, session_id=session_id)
        transaction.on_commit(lambda: dispatch_run(run.id))
    return run


def run_claim(run_id: uuid.UUID | str, *, worker: str) -> DiagnosisRun | None:
    """Claim a RUNNING, unclaimed run for this worker; None when another worker has it or it ended."""
    now = timezone.now()
    claimed = DiagnosisRun.objects.filter(pk=run_id, status=RunStatus.RUNNING, claimed_at__isnull=True).update(
        claimed_at=now, claimed_by=worker[:200], heartbeat_at=now
    )
    if not claimed:
        return None
    append_event(run_id, TraceEventKind.RUN, "claimed", {"worker": worker})
    return DiagnosisRun.objects.select_related("session").get(pk=run_id)


def run_record_provider(run_id: uuid.UUID | str, *, provider: str) -> None:
    DiagnosisRun.objects.filter(pk=run_id).update(provider=provider[:20])


def run_heartbeat(run_id: uuid.UUID | str) -> bool:
    """Record that the run's worker is alive; False when the run is no longer RUNNING."""
    return bool(DiagnosisRun.objects.filter(pk=run_id, status=RunStatus.RUNNING).update(heartbeat_at=timezone.now()))


def _totals(run: DiagnosisRun) -> dict[str, Any]:
    """Counts, token totals and the answering model from the audit rows, so the summary cannot drift."""
    totals = run.steps.aggregate(
        step_count=Count("id"), prompt_tokens=Sum("prompt_tokens"), completion_tokens=Sum("completion_tokens")
    )
    summary: dict[str, Any] = {key: value or 0 for key, value in totals.items()}
    summary["tool_count"] = run.tool_invocations.count()
    model = run.steps.exclude(model="").values_list("model", flat=True).first()
    if model:
        summary["model"] = model[:100]
    return summary


def _finish(run: DiagnosisRun, status: RunStatus, **fields: Any) -> bool:
    now = timezone.now()
    duration_ms = max(0, int((now - run.started_at).total_seconds() * 1000))
    updated = DiagnosisRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING).update(
        status=status, finished_at=now, duration_ms=duration_ms, **_totals(run), **fields
    )
    if updated:
        run.refresh_from_db()
    return bool(updated)


def _publish_end(run: DiagnosisRun, event: sse.EventName, data: dict[str, Any]) -> None:
    """The terminal event and ``done`` in one callback: ``done`` is sent even if the first publish fails."""
    try:
        sse.publish(run.pk, event, data)
    finally:
        sse.publish(run.pk, "done", {"outcome": run.outcome, "run_id": str(run.pk)})


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
        )
        if not finished:
            return False
        append_event(run.pk, TraceEventKind.RELEASE, "answer_released", {"degraded": result.degraded})
        content = {
            "markdown": result.final_answer,
            "html": render_answer(result.final_answer),
            "evidence": result.evidence,
            "degraded": result.degraded,
            "effective_verdict": result.effective_verdict,
        }
        transaction.on_commit(lambda: _publish_end(run, "content", content))
    return True


def run_fail(
    run: DiagnosisRun, *, reason: str, message: str, orchestration_trace: dict[str, Any] | None = None
) -> bool:
    """Mark a run FAILED with its partial trace and publish ``failure`` and ``done``; False if it had ended."""
    with transaction.atomic():
        fields: dict[str, Any] = {"failure_reason": reason[:100]}
        if orchestration_trace is not None:
            fields["orchestration_trace"] = orchestration_trace
        if not _finish(run, RunStatus.FAILED, **fields):
            return False
        append_event(run.pk, TraceEventKind.RUN, "failed", {"code": reason})
        failure = {"code": reason, "message": message}
        transaction.on_commit(lambda: _publish_end(run, "failure", failure))
    return True
