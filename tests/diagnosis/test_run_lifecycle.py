"""A run always leaves RUNNING exactly once, with one ``done``, whatever fails on the way."""

from __future__ import annotations

from io import StringIO

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.core.management import call_command
from django.utils import timezone

from diagnosis import services, sse
from diagnosis.execution import run_execute
from diagnosis.models import DiagnosisRun, RunStatus
from diagnosis.nodes import planner, verifier
from diagnosis.progress import RunEnded, RunProgress
from diagnosis.submission import run_create
from tests.support.stored_events import stored_names
from tracing.models import DiagnosisTraceEvent

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = "payment-service p99 latency tripled since 10:05, why?"


@pytest.fixture
def run(owner):
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    return run_create(user=owner, message=QUESTION)


def stream(run: DiagnosisRun) -> list[str]:
    return stored_names(run.pk)


def test_it_fails_a_run_that_hits_its_time_limit_with_the_partial_trace(run, monkeypatch):
    def too_slow(*args, **kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(verifier, "verify", too_slow)

    run = run_execute(run.pk, worker="test")

    assert (run.status, run.failure_reason) == (RunStatus.FAILED, "time_limit")
    assert run.orchestration_trace["final_node"] == "verifier"
    assert run.orchestration_trace["termination_reason"] == "verifier_error"
    assert stream(run)[-2:] == ["failure", "done"]


def test_it_fails_a_run_whose_finishing_step_breaks(run, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("markdown renderer crashed")

    monkeypatch.setattr("diagnosis.rendering.render_answer", broken)

    run = run_execute(run.pk, worker="test")

    assert (run.status, run.failure_reason) == (RunStatus.FAILED, "internal_error")
    assert stream(run).count("done") == 1


def test_it_still_sends_done_when_the_terminal_event_cannot_be_published(run, monkeypatch):
    published = []
    real_publish = sse.publish

    def flaky(run_id, event, data):
        if event == "content":
            raise ConnectionError("redis went away")
        published.append(event)
        real_publish(run_id, event, data)

    monkeypatch.setattr(sse, "publish", flaky)

    with pytest.raises(ConnectionError):
        services._publish_end(run, "content", {"markdown": "x"})

    assert published == ["done"]


def test_it_stops_reporting_for_a_run_that_was_ended(run):
    DiagnosisRun.objects.filter(pk=run.pk).update(status=RunStatus.FAILED, finished_at=timezone.now())
    before = DiagnosisTraceEvent.objects.filter(run=run).count()

    with pytest.raises(RunEnded):
        RunProgress(run.pk).status("planner", "started")

    assert DiagnosisTraceEvent.objects.filter(run=run).count() == before


def test_it_stops_a_worker_whose_run_was_reaped_meanwhile(run, monkeypatch):
    real_plan = planner.plan

    def reaped_while_planning(context, state, config):
        update = real_plan(context, state, config)
        DiagnosisRun.objects.filter(pk=run.pk).update(
            status=RunStatus.FAILED, finished_at=timezone.now(), failure_reason="worker_lost"
        )
        return update

    monkeypatch.setattr(planner, "plan", reaped_while_planning)

    run = run_execute(run.pk, worker="test")

    assert (run.status, run.failure_reason) == (RunStatus.FAILED, "worker_lost")
    assert not run.tool_invocations.exists()
    assert "done" not in stream(run)  # the reaper, not this worker, owns the end of this stream


def test_it_never_streams_a_tool_name_no_tool_has(run):
    progress = RunProgress(run.pk)
    progress.tool("<script>alert(1)</script>" * 50, "BLOCKED")
    progress.flush()

    event = DiagnosisTraceEvent.objects.filter(run=run, name="tool_called").get()
    assert event.details == {"tool": "unknown_tool", "status": "BLOCKED"}
