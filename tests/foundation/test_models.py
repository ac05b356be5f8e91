"""Model defaults and the database constraints that guard the audit records."""

from __future__ import annotations

import uuid

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from diagnosis.models import ChatSession, DiagnosisRun, Intent, RunStatus
from tools.models import InvocationStatus, ToolInvocation
from tracing.models import AgentReasoningAudit, AgentStep, DiagnosisTraceEvent, ReasoningSource

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(owner):
    session = ChatSession.objects.create(owner=owner, title="payment latency")
    return DiagnosisRun.objects.create(session=session, query="why is payment slow?")


def test_it_defaults_a_new_run_to_running_diagnosis(run):
    run.refresh_from_db()
    assert isinstance(run.id, uuid.UUID)
    assert run.status == RunStatus.RUNNING
    assert run.intent == Intent.DIAGNOSIS
    assert run.orchestration_trace is None
    assert run.self_evaluation == {}
    assert run.degraded is False
    assert (run.step_count, run.tool_count, run.prompt_tokens, run.completion_tokens) == (0, 0, 0, 0)
    assert run.finished_at is None


def test_it_rejects_an_unknown_status(run):
    with pytest.raises(IntegrityError), transaction.atomic():
        DiagnosisRun.objects.filter(pk=run.pk).update(status="PAUSED")


def test_it_rejects_a_finished_run_without_finish_time(run):
    with pytest.raises(IntegrityError), transaction.atomic():
        DiagnosisRun.objects.filter(pk=run.pk).update(status=RunStatus.SUCCESS)


def test_it_rejects_a_running_run_with_a_finish_time(run):
    with pytest.raises(IntegrityError), transaction.atomic():
        DiagnosisRun.objects.filter(pk=run.pk).update(finished_at=timezone.now())


def test_it_maps_status_to_the_done_outcome(run):
    assert run.outcome == "RUNNING"
    run.status, run.finished_at = RunStatus.SUCCESS, timezone.now()
    assert run.outcome == "SUCCESS"
    run.degraded = True
    assert run.outcome == "FALLBACK"
    run.status = RunStatus.FAILED
    assert run.outcome == "FAILED"


def test_it_keeps_step_and_event_order_unique_per_run(run):
    AgentStep.objects.create(run=run, seq=1, node="planner", outcome="COMPLETED")
    with pytest.raises(IntegrityError), transaction.atomic():
        AgentStep.objects.create(run=run, seq=1, node="executor", outcome="COMPLETED")
    DiagnosisTraceEvent.objects.create(run=run, seq=1, kind="RUN", name="started")
    with pytest.raises(IntegrityError), transaction.atomic():
        DiagnosisTraceEvent.objects.create(run=run, seq=1, kind="RUN", name="again")


def test_it_refuses_a_ready_invocation_without_digest(run):
    with pytest.raises(IntegrityError), transaction.atomic():
        ToolInvocation.objects.create(run=run, seq=1, tool_name="query_logs", status=InvocationStatus.READY)
    blocked = ToolInvocation.objects.create(
        run=run, seq=1, tool_name="query_logs", status=InvocationStatus.BLOCKED, error_code="bad_arguments"
    )
    assert isinstance(blocked.id, uuid.UUID)


def test_it_refuses_an_attempt_below_one(run):
    with pytest.raises(IntegrityError), transaction.atomic():
        AgentStep.objects.create(run=run, seq=1, node="planner", attempt=0, outcome="COMPLETED")


def test_it_defines_the_restricted_reasoning_permission(run):
    step = AgentStep.objects.create(run=run, seq=1, node="planner", outcome="COMPLETED")
    audit = AgentReasoningAudit.objects.create(
        run=run, step=step, node="planner", reasoning_source=ReasoningSource.UNAVAILABLE
    )
    permissions = dict(AgentReasoningAudit._meta.permissions)
    assert "view_reasoning" in permissions
    assert audit.reasoning_content == ""


def test_it_deletes_a_sessions_runs_and_their_records(run):
    AgentStep.objects.create(run=run, seq=1, node="planner", outcome="COMPLETED")
    run.session.delete()
    assert not DiagnosisRun.objects.exists()
    assert not AgentStep.objects.exists()
