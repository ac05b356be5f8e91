"""Audit rows built with the ORM: runs of a known shape (happy, retried, fallback, failed) with steps,
tool invocations, a timeline and reasoning audits whose text is a sentinel the tests look for."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from django.utils import timezone

from diagnosis.graph.trace_builder import build_partial_trace, build_trace
from diagnosis.models import ChatSession, DiagnosisRun, Intent, RunStatus, Verdict
from tools.models import InvocationStatus, ToolInvocation
from tracing.models import (
    AgentReasoningAudit,
    AgentStep,
    DiagnosisTraceEvent,
    ReasoningSource,
    StepOutcome,
    TraceEventKind,
)

REASONING_SECRET = "SECRET-REASONING-7f3a1c"
ASSISTANT_SECRET = "SECRET-ASSISTANT-9c1e44"


def ev(node: str, reason_code: str = "completed", attempt: int = 1, outcome: str = "COMPLETED") -> dict[str, Any]:
    return {"node": node, "outcome": outcome, "reason_code": reason_code, "attempt": attempt}


HAPPY_EVENTS = [
    ev("planner"),
    ev("executor"),
    ev("gatekeeper", "pass", outcome="PASS"),
    ev("verified_input"),
    ev("verifier", "pass"),
    ev("composer"),
]
# A planner technical retry, then an evidence retry and a second round that composes.
RETRIED_EVENTS = [
    ev("planner", "invalid_output", outcome="INVALID_OUTPUT"),
    ev("planner", attempt=2),
    ev("executor"),
    ev("gatekeeper", "pass", outcome="PASS"),
    ev("verified_input"),
    ev("verifier", "low_confid"),
    ev("evidence_retry"),
    ev("planner"),
    ev("executor"),
    ev("gatekeeper", "pass", outcome="PASS"),
    ev("verified_input"),
    ev("verifier", "retryable_failed", outcome="RETRYABLE_FAILED"),
    ev("verifier", "pass", attempt=2),
    ev("composer"),
]
FALLBACK_EVENTS = [
    ev("planner"),
    ev("executor", "tool_blocked", outcome="TOOL_BLOCKED"),
    ev("fallback", "executor_tool_blocked"),
]

HAPPY_TRACE = build_trace(HAPPY_EVENTS, evidence_retry_count=0).to_dict()
RETRIED_TRACE = build_trace(RETRIED_EVENTS, evidence_retry_count=1).to_dict()
FALLBACK_TRACE = build_trace(FALLBACK_EVENTS, evidence_retry_count=0).to_dict()
FAILED_TRACE = build_partial_trace(HAPPY_EVENTS[:2], evidence_retry_count=0, failed_node="gatekeeper").to_dict()
# Cancelled while the verifier ran: stopped at the boundary after it.
CANCELLED_TRACE = build_partial_trace(
    HAPPY_EVENTS[:5], evidence_retry_count=0, termination_reason="cancelled"
).to_dict()


def make_session(owner, title: str = "payment latency") -> ChatSession:
    return ChatSession.objects.create(owner=owner, title=title)


def make_run(
    session: ChatSession,
    *,
    trace: dict[str, Any] | None = HAPPY_TRACE,
    status: str = RunStatus.SUCCESS,
    steps: int = 3,
    invocations: int = 2,
    events: int = 4,
    query: str = "payment-service p99 latency tripled since 10:05, why?",
    intent: str = Intent.DIAGNOSIS,
    verdict: str = Verdict.PASS,
) -> DiagnosisRun:
    """A finished run with its audit rows; every reasoning row carries the sentinels."""
    degraded = bool(trace and trace["degraded"])
    now = timezone.now()
    run = DiagnosisRun.objects.create(
        session=session,
        query=query,
        intent=intent,
        status=status,
        final_answer="" if status == RunStatus.FAILED else "The pool is exhausted.",
        conclusion="" if status == RunStatus.FAILED else "HikariPool exhausted at 10:05",
        failure_reason="gatekeeper_error" if status == RunStatus.FAILED else "",
        orchestration_trace=trace,
        degraded=degraded,
        effective_verdict="" if degraded or status == RunStatus.FAILED else verdict,
        self_evaluation={"released_claim_ids": ["c1"], "prompt_versions": {"planner": "planner-v4"}},
        step_count=steps,
        tool_count=invocations,
        finished_at=None if status == RunStatus.RUNNING else now + timedelta(seconds=3),
        duration_ms=None if status == RunStatus.RUNNING else 3000,
    )
    rows = AgentStep.objects.bulk_create(
        AgentStep(
            run=run,
            seq=seq,
            node="planner" if seq == 1 else "executor",
            attempt=1,
            role="planner",
            model="scripted",
            outcome=StepOutcome.COMPLETED,
            summary=f"step {seq} produced a plan",
        )
        for seq in range(1, steps + 1)
    )
    AgentReasoningAudit.objects.bulk_create(
        AgentReasoningAudit(
            run=run,
            step=step,
            node=step.node,
            attempt=step.attempt,
            reasoning_source=ReasoningSource.PROVIDER,
            reasoning_content=f"{REASONING_SECRET} step {step.seq}",
            assistant_text=ASSISTANT_SECRET,
        )
        for step in rows
    )
    ToolInvocation.objects.bulk_create(
        ToolInvocation(
            id=uuid.uuid4(),
            run=run,
            seq=seq,
            tool_name="query_logs",
            args_sha256="b" * 64,
            args_shape={"service": "str(15)"},
            status=InvocationStatus.READY,
            row_count=12,
            payload_sha256="a" * 64,
            payload_bytes=2048,
            latency_ms=7,
        )
        for seq in range(1, invocations + 1)
    )
    DiagnosisTraceEvent.objects.bulk_create(
        DiagnosisTraceEvent(
            run=run, seq=seq, kind=TraceEventKind.NODE, name="node_finished", details={"node": "planner"}
        )
        for seq in range(1, events + 1)
    )
    return run
