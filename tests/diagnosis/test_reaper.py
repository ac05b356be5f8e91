"""The stale-run reaper: a run left RUNNING by a dead worker ends FAILED with its partial trace, once; a run
no worker claimed ends only past the queue timeout, as not started."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import DatabaseError
from django.utils import timezone

from diagnosis import reaper
from diagnosis.models import ChatSession, DiagnosisRun, RunStatus
from diagnosis.progress import RunProgress
from diagnosis.reaper import reap_stale_runs, stale_runs
from diagnosis.services import run_claim
from tests.support.stored_events import stored_names
from tracing.models import COUNT_MAX, AgentStep

pytestmark = pytest.mark.django_db(transaction=True)


def age(run: DiagnosisRun, *, age_seconds: int, heartbeat_age: int | None = None) -> None:
    """Start the run ``age_seconds`` ago; with a ``heartbeat_age``, a worker claimed it then and was last
    heard of ``heartbeat_age`` ago, without one it is still queued."""
    now = timezone.now()
    started_at = now - timedelta(seconds=age_seconds)
    DiagnosisRun.objects.filter(pk=run.pk).update(
        started_at=started_at,
        claimed_at=None if heartbeat_age is None else started_at,
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


def test_it_spares_live_queued_and_finished_runs(make_run, settings):
    settings.RUN_QUEUE_TIMEOUT_SECONDS = 1800
    young = make_run(age_seconds=30)
    alive = make_run(age_seconds=900, heartbeat_age=10)
    queued = make_run(age_seconds=900)  # older than the stale age, but nobody has claimed it: a backlog
    finished = make_run(age_seconds=900, heartbeat_age=900)
    DiagnosisRun.objects.filter(pk=finished.pk).update(status=RunStatus.SUCCESS, finished_at=timezone.now())

    assert reap_stale_runs(stale_after_seconds=600) == []
    assert set(DiagnosisRun.objects.filter(status=RunStatus.RUNNING).values_list("pk", flat=True)) == {
        young.pk,
        alive.pk,
        queued.pk,
    }


def test_a_run_queued_past_the_queue_timeout_ends_as_not_started(make_run, settings):
    settings.RUN_QUEUE_TIMEOUT_SECONDS = 1800
    queued = make_run(age_seconds=2000)
    lost = make_run(age_seconds=2000, heartbeat_age=700)

    reaped = reap_stale_runs(stale_after_seconds=600)

    assert {run.pk: run.failure_reason for run in reaped} == {queued.pk: "not_started", lost.pk: "worker_lost"}
    queued.refresh_from_db()
    assert (queued.status, queued.failure_reason, queued.orchestration_trace) == (RunStatus.FAILED, "not_started", None)
    assert stream_names(queued) == ["failure", "done"]


def test_a_run_claimed_while_the_reaper_looked_is_left_to_its_worker(make_run, monkeypatch):
    run = make_run(age_seconds=2000)
    seen = stale_runs(queue_timeout_seconds=1800)
    assert [r.pk for r in seen] == [run.pk]
    assert run_claim(run.pk, worker="late-worker") is not None  # the backlog cleared just then
    monkeypatch.setattr(reaper, "stale_runs", lambda **_: seen)

    assert reap_stale_runs(queue_timeout_seconds=1800) == []

    run.refresh_from_db()
    assert (run.status, run.claimed_by) == (RunStatus.RUNNING, "late-worker")
    assert "failure" not in stream_names(run)


def test_a_heartbeat_written_while_the_reaper_looked_keeps_the_run(make_run, monkeypatch):
    run = make_run(age_seconds=900, heartbeat_age=700)
    seen = stale_runs(stale_after_seconds=600)
    assert [r.pk for r in seen] == [run.pk]
    DiagnosisRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now())  # the worker was only slow
    monkeypatch.setattr(reaper, "stale_runs", lambda **_: seen)

    assert reap_stale_runs(stale_after_seconds=600) == []

    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING


def test_a_queued_run_whose_cancellation_was_not_carried_out_ends_at_once_as_cancelled(make_run):
    """``run_cancel`` marks a queued run, then ends it in a second transaction; if that one failed, no worker
    would ever claim the run (the claim skips marked runs)."""
    run = make_run(age_seconds=5)
    DiagnosisRun.objects.filter(pk=run.pk).update(cancel_requested_at=timezone.now())

    reaped = reap_stale_runs(stale_after_seconds=600, queue_timeout_seconds=1800)

    assert [(r.pk, r.failure_reason) for r in reaped] == [(run.pk, "cancelled")]
    assert stream_names(run) == ["failure", "done"]


def test_a_claimed_run_asked_to_stop_a_time_limit_ago_ends_as_cancelled_not_lost(make_run, settings):
    """Its worker would have stopped it at a node boundary before its hard time limit: it is gone."""
    run = make_run(age_seconds=400, heartbeat_age=350)
    asked = timezone.now() - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 1)
    DiagnosisRun.objects.filter(pk=run.pk).update(cancel_requested_at=asked)
    recent = make_run(age_seconds=400, heartbeat_age=350)
    DiagnosisRun.objects.filter(pk=recent.pk).update(cancel_requested_at=timezone.now() - timedelta(seconds=30))

    reaped = reap_stale_runs(stale_after_seconds=600)

    assert [(ended.pk, ended.failure_reason) for ended in reaped] == [(run.pk, "cancelled")]
    assert DiagnosisRun.objects.get(pk=recent.pk).status == RunStatus.RUNNING  # its worker may still stop it


def test_it_ends_a_run_only_once(make_run):
    run = make_run(age_seconds=900, heartbeat_age=900)

    reap_stale_runs(stale_after_seconds=600)
    reap_stale_runs(stale_after_seconds=600)

    assert stream_names(run).count("done") == 1


def test_a_run_older_than_its_duration_column_still_ends(make_run):
    # A reaper down for two months: the run's duration in milliseconds is past what the column holds.
    run = make_run(age_seconds=60 * 24 * 3600, heartbeat_age=60 * 24 * 3600)

    assert reap_stale_runs(stale_after_seconds=600) == [run]
    run.refresh_from_db()
    assert (run.status, run.duration_ms) == (RunStatus.FAILED, COUNT_MAX)


def test_a_run_whose_model_reported_more_tokens_than_a_column_holds_still_ends(make_run):
    # Each reply may report up to 2**31-1 tokens (openai_reply's bound): two of them add up past the column.
    run = make_run(age_seconds=3600, heartbeat_age=3600)
    for seq in (1, 2):
        AgentStep.objects.create(
            run=run, seq=seq, node="planner", prompt_tokens=COUNT_MAX, completion_tokens=COUNT_MAX, outcome="OK"
        )

    assert reap_stale_runs(stale_after_seconds=600) == [run]
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.prompt_tokens == run.completion_tokens == run.total_tokens == COUNT_MAX


def test_a_run_that_cannot_be_ended_does_not_keep_the_later_ones_running(make_run, monkeypatch):
    poison, later = make_run(age_seconds=900, heartbeat_age=700), make_run(age_seconds=800, heartbeat_age=700)
    ending = reaper.fail_with_partial_trace

    def fail_the_first(run, **kwargs):
        if run.pk == poison.pk:
            raise DatabaseError("Out of range value for column 'duration_ms'")
        return ending(run, **kwargs)

    monkeypatch.setattr(reaper, "fail_with_partial_trace", fail_the_first)
    purged = []
    monkeypatch.setattr(reaper, "purge_expired", lambda: purged.append(True) or 0)

    with pytest.raises(DatabaseError):
        reaper.scheduled_pass(stale_after_seconds=600)

    assert DiagnosisRun.objects.get(pk=later.pk).status == RunStatus.FAILED
    assert DiagnosisRun.objects.get(pk=poison.pk).status == RunStatus.RUNNING  # left for the next pass
    assert purged == [True]  # the store is purged all the same


def test_the_command_reports_what_it_reaped(make_run):
    lost = make_run(age_seconds=900, heartbeat_age=900)
    queued = make_run(age_seconds=900)
    out = StringIO()

    call_command("reap_stale_runs", "--stale-after", "600", "--queue-timeout", "800", stdout=out)

    assert f"failed stale run {lost.pk} (started {lost.started_at.isoformat()}, worker_lost)" in out.getvalue()
    assert f"failed stale run {queued.pk} (started {queued.started_at.isoformat()}, not_started)" in out.getvalue()
    assert "2 stale run(s) reaped" in out.getvalue()


@pytest.mark.parametrize("value", ["0", "1000000000000"])
@pytest.mark.parametrize("option", ["--stale-after", "--queue-timeout"])
def test_the_command_refuses_a_limit_no_run_can_have(option, value, make_run):
    run = make_run(age_seconds=900)
    err = StringIO()

    with pytest.raises(SystemExit) as exit_info:
        call_command("reap_stale_runs", option, value, stdout=StringIO(), stderr=err)

    assert exit_info.value.code == 2
    least = 301 if option == "--stale-after" else 1
    assert err.getvalue().strip() == f"{option} must be from {least} to 3153600000 seconds"
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING


def test_the_command_refuses_a_stale_age_a_working_run_reaches(make_run, settings):
    """A run waits on one model call without a heartbeat for up to the hard time limit: ``--stale-after`` at
    or below it would fail a run that is working."""
    settings.CELERY_TASK_TIME_LIMIT = 300
    working = make_run(age_seconds=310, heartbeat_age=300)
    err = StringIO()

    with pytest.raises(SystemExit) as exit_info:
        call_command("reap_stale_runs", "--stale-after", "300", stdout=StringIO(), stderr=err)

    assert exit_info.value.code == 2
    assert err.getvalue().strip() == "--stale-after must be from 301 to 3153600000 seconds"
    working.refresh_from_db()
    assert working.status == RunStatus.RUNNING
