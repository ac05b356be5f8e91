"""The stale-run reaper: a run left RUNNING by a dead worker ends FAILED with its partial trace, once."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from diagnosis.models import ChatSession, DiagnosisRun, RunStatus
from diagnosis.progress import RunProgress
from diagnosis.reaper import reap_stale_runs
from tests.support.stored_events import stored_names

pytestmark = pytest.mark.django_db(transaction=True)


def age(run: DiagnosisRun, *, age_seconds: int, heartbeat_age: int | None = None) -> None:
    now = timezone.now()
    DiagnosisRun.objects.filter(pk=run.pk).update(
        started_at=now - timedelta(seconds=age_seconds),
        heartbeat_at=None if heartbeat_age is None else now - timedelta(seconds=heartbeat_age),
    )
    run.refresh_from_db()


@pytest.fixture
def make_run(owner):
    def make(*, age_seconds: int, heartbeat_age: int | None = None) -> DiagnosisRun:
        run = DiagnosisRun.objects.create(session=ChatSession.objects.create(owner=owner), query="why?")
        age(run, age_seconds=age_seconds, heartbeat_age=heartbeat_age)
        return run

    return make


def stream_names(run: DiagnosisRun) -> list[str]:
    return stored_names(run.pk)


def test_it_fails_a_stale_run_with_its_partial_trace_and_ends_its_stream(make_run):
    run = make_run(age_seconds=0)
    progress = RunProgress(run.pk)
    progress.node_finished(node="planner", outcome="COMPLETED", reason_code="completed", attempt=1)
    progress.node_finished(node="executor", outcome="COMPLETED", reason_code="completed", attempt=1)
    progress.flush()  # the reports reached the log (a worker killed outright loses those it still held)
    # Then the worker died: nothing touched the run for longer than the stale limit.
    age(run, age_seconds=900, heartbeat_age=700)

    reaped = reap_stale_runs(stale_after_seconds=600)

    assert [r.pk for r in reaped] == [run.pk]
    run.refresh_from_db()
    assert (run.status, run.failure_reason) == (RunStatus.FAILED, "worker_lost")
    assert run.finished_at is not None
    trace = run.orchestration_trace
    assert trace["transitions"] == [{"from": "planner", "to": "executor", "reason_code": "completed", "attempt": 1}]
    assert (trace["final_node"], trace["termination_reason"]) == ("executor", "worker_lost")
    assert stream_names(run)[-2:] == ["failure", "done"]


def test_it_ends_the_partial_trace_in_the_node_that_never_finished(make_run):
    run = make_run(age_seconds=0)
    progress = RunProgress(run.pk)
    progress.status("planner", "started")
    progress.node_finished(node="planner", outcome="COMPLETED", reason_code="completed", attempt=1)
    progress.status("executor", "started")
    progress.flush()
    age(run, age_seconds=900, heartbeat_age=700)

    reap_stale_runs(stale_after_seconds=600)

    run.refresh_from_db()
    assert run.orchestration_trace["transitions"] == [
        {"from": "planner", "to": "executor", "reason_code": "completed", "attempt": 1}
    ]
    assert run.orchestration_trace["final_node"] == "executor"


def test_it_spares_live_and_finished_runs(make_run):
    young = make_run(age_seconds=30)
    alive = make_run(age_seconds=900, heartbeat_age=10)
    finished = make_run(age_seconds=900, heartbeat_age=900)
    DiagnosisRun.objects.filter(pk=finished.pk).update(status=RunStatus.SUCCESS, finished_at=timezone.now())

    assert reap_stale_runs(stale_after_seconds=600) == []
    assert set(DiagnosisRun.objects.filter(status=RunStatus.RUNNING).values_list("pk", flat=True)) == {
        young.pk,
        alive.pk,
    }


def test_it_ends_a_run_only_once(make_run):
    run = make_run(age_seconds=900)

    reap_stale_runs(stale_after_seconds=600)
    reap_stale_runs(stale_after_seconds=600)

    assert stream_names(run).count("done") == 1


def test_the_command_reports_what_it_reaped(make_run):
    run = make_run(age_seconds=900)
    out = StringIO()

    call_command("reap_stale_runs", "--stale-after", "600", stdout=out)

    assert f"failed stale run {run.pk}" in out.getvalue()
    assert "1 stale run(s) reaped" in out.getvalue()
