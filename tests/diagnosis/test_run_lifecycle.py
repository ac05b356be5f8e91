"""A run always leaves RUNNING exactly once, with one ``done``, whatever fails on the way."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta
from io import StringIO

import django_eventstream.eventstream
import pytest
import tenacity
from celery.exceptions import SoftTimeLimitExceeded
from django.core.management import call_command
from django.db import DataError, OperationalError, connections
from django.db.models.query import QuerySet
from django.utils import timezone
from redis.exceptions import RedisError

from diagnosis import execution, services
from diagnosis.execution import run_execute
from diagnosis.failures import FailureCode
from diagnosis.models import ChatSession, DiagnosisRun, RunStatus
from diagnosis.nodes import planner, verifier
from diagnosis.progress import RunEnded, RunProgress
from diagnosis.reaper import fail_with_partial_trace, reap_stale_runs
from diagnosis.services import run_claim
from diagnosis.submission import run_create
from diagnosis.tasks import execute_run
from tests.support.stored_events import stored_names
from tracing import timeline
from tracing.models import AgentStep, DiagnosisTraceEvent
from tracing.steps import StepLog, StepRecord
from tracing.timeline import owned_log

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = "payment-service p99 latency tripled since 10:05, why?"


@pytest.fixture
def run(owner):
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    return run_create(user=owner, message=QUESTION)


def in_own_thread(action) -> None:
    """``action`` on another thread, with its own database connection (another process's writer)."""

    def run_and_close() -> None:
        try:
            action()
        finally:
            connections.close_all()

    thread = threading.Thread(target=run_and_close)
    thread.start()
    thread.join(timeout=30)


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
    # The graph had ended: its trace is kept (every graph run has one), and not the answer that rolled back.
    assert run.orchestration_trace["termination_reason"] == "internal_error"
    assert run.orchestration_trace["transitions"]
    assert (run.final_answer, run.degraded) == (DiagnosisRun().final_answer, DiagnosisRun().degraded)
    run.refresh_from_db()
    assert run.orchestration_trace["termination_reason"] == "internal_error"


def test_it_still_announces_done_when_the_terminal_event_cannot_be_announced(run, monkeypatch):
    announced = []

    class FlakyRedis:
        def publish(self, channel, message):
            event = json.loads(message)["event_type"]
            if event == "content":
                raise RedisError("redis went away")
            announced.append(event)

    monkeypatch.setattr(django_eventstream.eventstream, "redis_client", FlakyRedis())

    run = run_execute(run.pk, worker="test")

    assert run.status == RunStatus.SUCCESS
    assert announced[-1] == "done" and "content" not in announced
    assert stream(run)[-2:] == ["content", "done"]  # stored with the end: readers find both


def test_a_run_never_ends_without_its_done(run, monkeypatch):
    """The end and its events are one transaction: when they cannot be stored the run stays RUNNING, for
    the reaper to end with its ``done``, instead of ending with none (its stream open for good)."""
    real_insert = timeline._insert

    def unstorable(rows):
        if any(row.stream_event in ("content", "failure", "done") for row in rows):
            raise OperationalError("database is locked")
        real_insert(rows)

    monkeypatch.setattr(timeline, "_insert", unstorable)
    monkeypatch.setattr(execution._on_lost_connection, "sleep", lambda seconds: None)
    # A few tries, not the time limit's worth: the database never comes back here.
    monkeypatch.setattr(execution._Limits, "end_retries", lambda self: tenacity.stop_after_attempt(3))
    with pytest.raises(OperationalError):
        run_execute(run.pk, worker="test")
    monkeypatch.setattr(timeline, "_insert", real_insert)

    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING and "done" not in stream(run)
    reaped = reap_stale_runs(now=timezone.now() + timedelta(days=1))
    assert [ended.pk for ended in reaped] == [run.pk]
    assert stream(run).count("done") == 1 and stream(run)[-1] == "done"


def test_a_connection_the_database_broke_mid_run_still_lets_the_run_end(run, monkeypatch):
    """A database that went away while the model was asked: the path fails on its next write, and the
    first read of the run's end finds the connection broken too. The end is tried again on a new one, so the
    run ends with its reason and its ``done`` now, not RUNNING until the reaper calls its worker lost."""
    real_exists = QuerySet.exists
    failures = iter([OperationalError("server has gone away")])

    def broken_once(queryset):
        if queryset.model is DiagnosisRun and (error := next(failures, None)) is not None:
            raise error
        return real_exists(queryset)

    def database_gone(*args):
        raise OperationalError("Lost connection to server during query")

    monkeypatch.setattr(execution, "_execute_path", database_gone)
    monkeypatch.setattr(QuerySet, "exists", broken_once)
    monkeypatch.setattr(execution._on_lost_connection, "sleep", lambda seconds: None)

    run = run_execute(run.pk, worker="test")

    assert (run.status, run.failure_reason) == (RunStatus.FAILED, "internal_error")
    assert stream(run).count("done") == 1 and stream(run)[-1] == "done"


def test_a_value_the_database_refuses_is_not_tried_again(run, monkeypatch):
    """Only a connection lost or a server gone for a moment is worth the retry's seconds."""
    calls = []

    def refused(*args, **kwargs):
        calls.append(1)
        raise DataError("Out of range value")

    monkeypatch.setattr(execution, "fail_with_partial_trace", refused)
    monkeypatch.setattr(execution._on_lost_connection, "sleep", lambda seconds: None)

    with pytest.raises(DataError):
        execution._on_lost_connection(
            execution._fail_once, run, reason=FailureCode.INTERNAL_ERROR, detail="", trace=None
        )
    assert calls == [1]


def test_a_database_gone_for_longer_than_a_few_tries_still_lets_the_run_end_with_its_answer(run, monkeypatch):
    """A MariaDB restart or failover outlasts three tries a second apart: the answer's end is tried again for
    as long as the time limit allows, and the run ends SUCCESS, not RUNNING for the reaper's "worker lost"."""
    real_insert = timeline._insert
    failures = iter([OperationalError("Can't connect to server")] * 8)
    slept = []

    def away(rows):
        if any(row.stream_event in ("content", "done") for row in rows):
            error = next(failures, None)
            if error is not None:
                raise error
        real_insert(rows)

    monkeypatch.setattr(timeline, "_insert", away)
    monkeypatch.setattr(execution._on_lost_connection, "sleep", slept.append)

    run = run_execute(run.pk, worker="test")

    assert run.status == RunStatus.SUCCESS and len(slept) == 8
    assert stream(run).count("done") == 1 and stream(run)[-2:] == ["content", "done"]


def test_a_claim_the_database_fails_for_a_moment_is_tried_again(run, monkeypatch):
    """The claim's UPDATE is conditional, so trying it again is safe; failed, the task's message was
    acknowledged and lost, and the run waited RUNNING half an hour for the reaper's "not started"."""
    real_claim = execution.run_claim
    failures = iter([OperationalError("Can't connect to server")] * 2)

    def flaky(*args, **kwargs):
        if (error := next(failures, None)) is not None:
            raise error
        return real_claim(*args, **kwargs)

    monkeypatch.setattr(execution, "run_claim", flaky)
    monkeypatch.setattr(execution._on_lost_connection, "sleep", lambda seconds: None)

    assert run_execute(run.pk, worker="test").status == RunStatus.SUCCESS


def test_a_claim_the_database_fails_for_longer_is_sent_again_not_lost(run, monkeypatch):
    """Past the claim's own tries the task raises, and Celery sends it again (``autoretry_for``) instead of
    acknowledging a message that no one would execute."""
    real_claim = execution.run_claim
    failures = iter([OperationalError("Can't connect to server")] * 4)  # one more than a call tries

    def away(*args, **kwargs):
        if (error := next(failures, None)) is not None:
            raise error
        return real_claim(*args, **kwargs)

    monkeypatch.setattr(execution, "run_claim", away)
    monkeypatch.setattr(execution._on_lost_connection, "sleep", lambda seconds: None)

    result = execute_run.apply(args=(str(run.pk),))

    run.refresh_from_db()
    assert result.successful() and run.status == RunStatus.SUCCESS


@pytest.mark.parametrize(
    ("elapsed", "limit"), [(0, 240 - 5), (100, 240 - 5 - 100), (238, 300 - 5 - 238), (250, 300 - 5 - 250), (400, 0)]
)
def test_the_retries_of_an_end_stop_before_the_time_limit_that_would_interrupt_them(settings, elapsed, limit):
    settings.CELERY_TASK_SOFT_TIME_LIMIT, settings.CELERY_TASK_TIME_LIMIT = 240, 300

    stop = execution._Limits(started=time.monotonic() - elapsed).end_retries()

    assert max(0.0, stop.deadline - time.monotonic()) == pytest.approx(limit, abs=0.5)


def test_an_end_made_of_two_calls_keeps_to_one_deadline(run, monkeypatch):
    """The run read again, then failed: each call counted its own window from its first try, and the second
    slept on past the soft time limit that then interrupted it, leaving the run RUNNING."""
    clock = [1000.0]
    monkeypatch.setattr(execution.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(
        execution._on_lost_connection, "sleep", lambda seconds: clock.__setitem__(0, clock[0] + seconds)
    )
    tries = []

    def back_late(*args, **kwargs):  # the database is back 120 s into the end...
        if clock[0] < 1000 + 120:
            raise OperationalError("Can't connect to server")
        return True

    def away_again(*args, **kwargs):  # ...and away again as the run is failed
        tries.append(clock[0])
        raise OperationalError("Can't connect to server")

    monkeypatch.setattr(execution, "_still_there_once", back_late)
    monkeypatch.setattr(execution, "_fail_once", away_again)
    limits = execution._Limits(started=clock[0] - 100)  # a soft limit 240 s after the start: 135 s left

    with pytest.raises(OperationalError):
        execution._fail(run, RunProgress(run.pk), limits, reason=FailureCode.INTERNAL_ERROR)

    assert tries and max(tries) < 1000 + 135


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


def test_nothing_of_the_worker_follows_the_reapers_done_not_even_a_held_step(run, settings):
    """The reaper ended a run whose worker was alive (a stalled thread of the embedded mode): the worker's next
    write of its log meets the reaper's rows. Written by a step lingering past its time rather than by a
    report, it used to number the worker's held reports after the reaper's ``done`` and store them."""
    settings.RUN_EVENT_LINGER_MS = 50
    progress = RunProgress(run.pk)
    with owned_log(progress.log):
        run_claim(run.pk, worker="test")
        progress.claimed()
        progress.flush()
        progress.status("verifier", "started", attempt=1)  # held
        in_own_thread(
            lambda: fail_with_partial_trace(DiagnosisRun.objects.get(pk=run.pk), reason=FailureCode.WORKER_LOST)
        )
        time.sleep(0.06)  # the held report has lingered: the step's write writes it
        with pytest.raises(RunEnded):
            StepLog(run.pk, empty=True, log=progress.log).record(
                StepRecord(node="verifier", attempt=1, outcome="COMPLETED")
            )

    assert stored_names(run.pk)[-1] == "done"
    assert not AgentStep.objects.filter(run=run).exists()


def test_a_run_deleted_with_its_session_while_it_runs_ends_the_task_quietly(run, monkeypatch):
    real_plan = planner.plan

    def deleted_while_planning(context, state, config):
        ChatSession.objects.filter(pk=run.session_id).delete()
        return real_plan(context, state, config)

    monkeypatch.setattr(planner, "plan", deleted_while_planning)

    assert run_execute(run.pk, worker="test") is None  # not a DoesNotExist out of the task
    assert not DiagnosisTraceEvent.objects.filter(run_id=run.pk).exists()


def test_it_never_streams_a_tool_name_no_tool_has(run):
    progress = RunProgress(run.pk)
    progress.tool("<script>alert(1)</script>" * 50, "BLOCKED")
    progress.flush()

    event = DiagnosisTraceEvent.objects.filter(run=run, name="tool_called").get()
    assert event.details == {"tool": "unknown_tool", "status": "BLOCKED"}


def test_a_claim_whose_commit_went_through_before_the_connection_broke_is_this_workers(run, monkeypatch):
    """The claim's UPDATE committed, then the connection broke: tried again, the claim found the run claimed
    - by this very worker - and it was left RUNNING, executed by nobody, for the reaper's "worker lost"."""
    real_append = services.append_event
    failures = iter([OperationalError("Lost connection to server during query")])

    def broken_after_commit(*args, **kwargs):
        if (error := next(failures, None)) is not None:
            raise error
        return real_append(*args, **kwargs)

    monkeypatch.setattr(services, "append_event", broken_after_commit)
    monkeypatch.setattr(execution._on_lost_connection, "sleep", lambda seconds: None)

    assert run_execute(run.pk, worker="test-host:1").status == RunStatus.SUCCESS


def test_an_end_the_soft_time_limit_interrupts_is_tried_again_before_the_hard_one(run, monkeypatch):
    """A database that hangs rather than refuses holds one try past the soft limit, which interrupts it."""
    real_fail = execution._fail_once
    interruptions = iter([SoftTimeLimitExceeded()])

    def slow_then_back(*args, **kwargs):
        if (interruption := next(interruptions, None)) is not None:
            raise interruption
        return real_fail(*args, **kwargs)

    def path_fails(*args):
        raise RuntimeError("the graph broke")

    monkeypatch.setattr(execution, "_execute_path", path_fails)
    monkeypatch.setattr(execution, "_fail_once", slow_then_back)

    run = run_execute(run.pk, worker="test")

    assert (run.status, run.failure_reason) == (RunStatus.FAILED, "internal_error")
