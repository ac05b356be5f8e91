"""The run event log: one row per event for the timeline and the SSE stream, numbered in memory by the
run's owner, with its stream replayable through django-eventstream's storage interface."""

from __future__ import annotations

import json
import re
import threading
import time
from io import StringIO

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.core.management import call_command
from django.db import OperationalError, connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_eventstream.storage import EventDoesNotExist
from django_eventstream.utils import get_storage

from config.run_scope import run_scope, waiting
from diagnosis import sse
from diagnosis.execution import run_execute
from diagnosis.failures import FailureCode
from diagnosis.models import ChatSession, DiagnosisRun, RunStatus
from diagnosis.progress import EventLogUnwritable, RunEnded, RunProgress
from diagnosis.services import run_cancel, run_fail
from diagnosis.submission import run_create
from tests.support.stored_events import payload, stored_events
from tracing import steps as steps_module
from tracing import timeline
from tracing.events import TimelineEvent
from tracing.models import AgentReasoningAudit, AgentStep, DiagnosisTraceEvent, TraceEventKind
from tracing.steps import StepLog, StepRecord
from tracing.timeline import append_event, owned_log

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def run(owner) -> DiagnosisRun:
    return DiagnosisRun.objects.create(session=ChatSession.objects.create(owner=owner), query="why?")


def statements(captured: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in captured.captured_queries]


def test_reports_are_held_then_written_in_one_insert_serving_the_timeline_and_the_stream(run, settings):
    settings.RUN_EVENT_LINGER_MS = 60_000  # nothing is written for the linger's sake here
    progress = RunProgress(run.pk)
    with owned_log(progress.log):
        progress.status("planner", "started")  # the first report also beats; held, like every report

        with CaptureQueriesContext(connection) as captured:
            progress.tool("query_logs", "READY")
        assert statements(captured) == [] and stored_events(run.pk) == []

        with CaptureQueriesContext(connection) as captured:
            progress.flush()

    # Besides the log's end, read once by the first write, and transaction control: one INSERT for both reports.
    control = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE")
    sent = [sql.split()[0] for sql in statements(captured) if "MAX(" not in sql and not sql.startswith(control)]
    assert sent == ["INSERT"]
    row = DiagnosisTraceEvent.objects.get(run=run, name=TimelineEvent.TOOL_CALLED)
    assert (row.kind, row.details) == (TraceEventKind.TOOL, {"tool": "query_logs", "status": "READY"})
    started, tool = stored_events(run.pk)
    assert (started.id, tool.id, tool.type) == (1, row.stream_id, "status")
    assert payload(tool) == {
        "node": "executor",
        "phase": "tool",
        "detail": "query_logs READY",
        "args": {"tool": "query_logs", "status": "READY"},
    }


def test_held_reports_are_written_once_the_oldest_has_lingered(run, settings):
    settings.RUN_EVENT_LINGER_MS = 0
    progress = RunProgress(run.pk)
    progress.status("planner", "started")
    assert [event.type for event in stored_events(run.pk)] == ["status"]

    settings.RUN_EVENT_LINGER_MS = 20
    progress = RunProgress(run.pk)
    progress.status("planner", "completed")
    assert len(stored_events(run.pk)) == 1
    time.sleep(0.03)
    progress.status("executor", "started")  # the first has waited its linger: both go out together
    assert [payload(event)["phase"] for event in stored_events(run.pk)] == ["started", "completed", "started"]


def test_held_reports_go_out_before_the_run_waits_and_before_anything_written_at_once(run, settings):
    settings.RUN_EVENT_LINGER_MS = 60_000
    progress = RunProgress(run.pk)
    with owned_log(progress.log), run_scope(before_wait=progress.flush):
        progress.status("planner", "started")
        waiting()  # a model, a backend, the statement's child process: what came before is on the page
        assert [event.type for event in stored_events(run.pk)] == ["status"]

        progress.status("planner", "completed")
        sse.publish(run.pk, "content", {"answer": "..."})  # written at once, after what was held
    assert [event.type for event in stored_events(run.pk)] == ["status", "status", "content"]
    times = [row.created_at for row in DiagnosisTraceEvent.log.filter(run=run).order_by("stream_id")]
    assert times == sorted(times)


def test_the_stream_replays_from_any_id_through_the_storage_interface(run):
    for n in range(1, 6):
        sse.publish(run.pk, "status", {"n": n})
    append_event(run.pk, TraceEventKind.RUN, TimelineEvent.CLAIMED)  # timeline only: takes no stream id
    sse.publish(run.pk, "done", {"outcome": "SUCCESS"})
    storage, channel = get_storage(), sse.channel_for(run.pk)

    assert [event.id for event in storage.get_events(channel, 0)] == [1, 2, 3, 4, 5, 6]
    assert [json.loads(event.data) for event in storage.get_events(channel, 3, limit=2)] == [{"n": 4}, {"n": 5}]
    assert storage.get_events(channel, 6) == []
    assert storage.get_current_id(channel) == 6
    with pytest.raises(EventDoesNotExist):
        storage.get_events(channel, 7)
    # A stream-only row (``done``) is not part of the audit timeline.
    assert [row.name for row in DiagnosisTraceEvent.objects.filter(run=run)] == [TimelineEvent.CLAIMED]


def test_a_foreign_write_is_not_overwritten_and_the_numbers_stay_gapless(run):
    progress = RunProgress(run.pk)
    with owned_log(progress.log):
        progress.status("planner", "started")
        progress.flush()
        # Other processes append with numbers read from the database: a timeline event, a stream event.
        DiagnosisTraceEvent.log.create(run=run, seq=2, kind="RUN", name="cancel_requested")
        DiagnosisTraceEvent.log.create(run=run, stream_id=2, stream_event="status", stream_data="{}")
        progress.status("planner", "completed")
        progress.flush()

    rows = list(DiagnosisTraceEvent.log.filter(run=run).order_by("id"))
    assert [row.seq for row in rows] == [1, 2, None, 3]
    assert [row.stream_id for row in rows] == [1, None, 2, 3]
    assert rows[-1].name == "planner_completed"


def test_the_owner_stops_instead_of_writing_after_the_reapers_done(run, settings):
    settings.RUN_HEARTBEAT_SECONDS = 3600  # no heartbeat due: only the taken number can tell
    progress = RunProgress(run.pk)
    with owned_log(progress.log):
        progress.status("planner", "started")
        progress.flush()
        # The reaper, in another process, ends the run: its failure and done take the next numbers.
        DiagnosisRun.objects.filter(pk=run.pk).update(status=RunStatus.FAILED, finished_at=timezone.now())
        for stream_id, event in ((2, "failure"), (3, "done")):
            DiagnosisTraceEvent.log.create(run=run, stream_id=stream_id, stream_event=event, stream_data="{}")

        progress.status("planner", "completed")  # held: the taken numbers are found when it is written
        with pytest.raises(RunEnded):
            progress.flush()

    assert [event.type for event in stored_events(run.pk)] == ["status", "failure", "done"]


def test_the_heartbeat_is_written_by_time_not_per_report(run, settings):
    settings.RUN_HEARTBEAT_SECONDS = 3600
    progress = RunProgress(run.pk)

    with CaptureQueriesContext(connection) as captured:
        for _ in range(5):
            progress.status("planner", "started")

    assert sum(sql.startswith("UPDATE") for sql in statements(captured)) == 1

    settings.RUN_HEARTBEAT_SECONDS = 0
    with CaptureQueriesContext(connection) as captured:
        progress.status("planner", "completed")
    assert sum(sql.startswith("UPDATE") for sql in statements(captured)) == 1


def test_a_worker_notices_at_the_next_node_boundary_that_its_run_was_ended(owner, settings):
    """With the heartbeat written by time, a run ended without a log write is noticed at a boundary."""
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    created = run_create(user=owner, message="payment-service p99 latency tripled since 10:05, why?")
    settings.RUN_HEARTBEAT_SECONDS = 3600
    from diagnosis.nodes import planner

    real_plan = planner.plan

    def ended_while_planning(context, state, config):
        DiagnosisRun.objects.filter(pk=created.pk).update(status=RunStatus.FAILED, finished_at=timezone.now())
        return real_plan(context, state, config)

    planner.plan = ended_while_planning
    try:
        run = run_execute(created.pk, worker="test")
    finally:
        planner.plan = real_plan

    assert run is not None and not run.tool_invocations.exists()


def test_a_new_runs_first_events_are_numbered_without_reading_its_log(owner):
    with CaptureQueriesContext(connection) as captured:
        run = run_create(user=owner, message="why?")

    assert not [sql for sql in statements(captured) if "MAX(" in sql]
    assert list(
        DiagnosisTraceEvent.log.filter(run=run).order_by("pk").values_list("seq", "name", "stream_id", "stream_event")
    ) == [(1, TimelineEvent.INTENT_ROUTED, None, ""), (None, "", 1, "metadata")]


@pytest.fixture
def offline_run(owner) -> tuple[DiagnosisRun, list[str]]:
    """An offline diagnosis executed to its end, and the statements its execution sent."""
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    created = run_create(user=owner, message="payment-service p99 latency tripled since 10:05, why?")

    with CaptureQueriesContext(connection) as captured:
        run = run_execute(created.pk, worker="test")

    assert run is not None and run.status == RunStatus.SUCCESS
    return run, statements(captured)


def test_a_run_asks_no_maximum_and_counts_no_table(offline_run):
    """No ``MAX(seq)`` per row, no counter rows, no count of the invocation store, per run."""
    _, sql = offline_run
    assert sum("MAX(" in text for text in sql) <= 3  # the log, the invocations, the steps: once each at most
    assert not [text for text in sql if "eventcounter" in text or 'COUNT(*) FROM "superbiz_cache"' in text]


def test_invocations_are_written_per_executor_attempt_and_read_per_node_not_per_call(offline_run):
    run, sql = offline_run
    attempts = run.steps.filter(node="executor").count()
    assert run.tool_invocations.count() > 4 * attempts  # many calls per attempt, or this would prove nothing

    def touching(verb: str) -> list[str]:
        return [text for text in sql if re.match(rf"{verb} .*[`\"]tool_invocation[`\"]", text)]

    assert len(touching("INSERT INTO")) == attempts
    # The budget's count, the gatekeeper's and the figures' batch loads, the run's summary: not one per call.
    assert len(touching("SELECT")) <= 4


def test_the_owners_own_terminal_events_are_written_after_a_foreign_write(run):
    """A canceller elsewhere took the next number; the worker that fails the run still sends failure and done."""
    progress = RunProgress(run.pk)
    with owned_log(progress.log):
        progress.status("planner", "started")
        progress.flush()
        DiagnosisTraceEvent.log.create(run=run, seq=2, kind="RUN", name="cancel_requested")
        DiagnosisRun.objects.filter(pk=run.pk).update(started_at=timezone.now())

        with progress.ending():  # as ``execution`` ends its run
            assert run_fail(DiagnosisRun.objects.get(pk=run.pk), reason=FailureCode.CANCELLED)

    assert [event.type for event in stored_events(run.pk)] == ["status", "failure", "done"]
    assert [row.name for row in DiagnosisTraceEvent.objects.filter(run=run).order_by("seq")] == [
        "planner_started",
        "cancel_requested",
        "failed",
    ]


def in_own_connection(action) -> None:
    """``action`` on this (new) thread's own database connection, closed after."""
    try:
        action()
    finally:
        connections.close_all()


def in_thread(action) -> None:
    """``action`` on a thread of its own (its own database connection, closed after), as a canceller's."""
    thread = threading.Thread(target=lambda: in_own_connection(action))
    thread.start()
    thread.join(timeout=30)


def test_another_threads_write_does_not_take_the_held_reports_along(run, settings):
    """A canceller's thread of the same process writes its own row; the run's held reports follow it."""
    settings.RUN_EVENT_LINGER_MS = 60_000
    progress = RunProgress(run.pk)
    with owned_log(progress.log):
        progress.status("planner", "started")
        in_thread(lambda: append_event(run.pk, TraceEventKind.RUN, TimelineEvent.CANCEL_REQUESTED, {"by": "owner"}))
        assert list(DiagnosisTraceEvent.objects.filter(run=run).values_list("name", flat=True)) == ["cancel_requested"]

        progress.flush()

    rows = DiagnosisTraceEvent.objects.filter(run=run).order_by("seq").values_list("seq", "name")
    assert list(rows) == [(1, "cancel_requested"), (2, "planner_started")]


def test_reports_interrupted_while_being_written_are_never_written_twice(run, settings, monkeypatch):
    settings.RUN_EVENT_LINGER_MS = 60_000
    real_insert = timeline._insert

    def insert_then_interrupted(rows):
        real_insert(rows)
        raise SoftTimeLimitExceeded()  # Celery's soft limit lands anywhere, here right after the INSERT

    progress = RunProgress(run.pk)
    with owned_log(progress.log):
        progress.status("planner", "started")
        monkeypatch.setattr(timeline, "_insert", insert_then_interrupted)
        with pytest.raises(SoftTimeLimitExceeded):
            progress.flush()
        monkeypatch.setattr(timeline, "_insert", real_insert)

        progress.flush()  # nothing is held any more
        progress.status("planner", "completed")
        progress.flush()

    assert [payload(event)["phase"] for event in stored_events(run.pk)] == ["started", "completed"]


def test_reports_that_cannot_be_written_before_a_wait_fail_the_run_not_the_tool(run, settings, monkeypatch):
    """A tool handler calls ``waiting()``; the database failing then is the event log's, not the backend's."""
    settings.RUN_EVENT_LINGER_MS = 60_000

    def refused(rows):
        raise OperationalError("database is locked")

    progress = RunProgress(run.pk)
    with owned_log(progress.log), run_scope(before_wait=progress.flush):
        progress.status("executor", "started")
        monkeypatch.setattr(timeline, "_insert", refused)
        with pytest.raises(EventLogUnwritable):
            waiting()


def test_a_canceller_appending_inside_its_transaction_never_waits_for_the_writing_owner(run, settings):
    """A canceller of the same process appends inside its transaction, holding the database's write lock
    (SQLite); the owner, writing its reports at that moment, waits for that lock. Were the canceller to wait
    for the owner's log in turn, the owner would wait out its lock timeout and lose its reports: the
    canceller writes as another process would, and the owner numbers after it."""
    settings.RUN_EVENT_LINGER_MS = 60_000
    # The owner's lock wait, shortened so that a deadlock fails this test in seconds.
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA busy_timeout = 3000")
        else:
            cursor.execute("SET SESSION innodb_lock_wait_timeout = 3")
    locked = threading.Event()

    def cancel() -> None:
        with transaction.atomic():
            DiagnosisRun.objects.filter(pk=run.pk).update(cancel_requested_at=timezone.now())
            locked.set()
            time.sleep(0.5)  # meanwhile the owner writes, waiting for this transaction's lock under its own
            append_event(run.pk, TraceEventKind.RUN, TimelineEvent.CANCEL_REQUESTED, {"by": "owner"})

    progress = RunProgress(run.pk)
    with owned_log(progress.log):
        progress.status("planner", "started")
        canceller = threading.Thread(target=lambda: in_own_connection(cancel))
        canceller.start()
        locked.wait(timeout=10)
        progress.flush()
        canceller.join(timeout=30)

    # SQLite makes the owner wait for the canceller's commit, so its row comes second; MariaDB's row lock on
    # the run does not stop the owner's INSERT, so it may come first. Either way both are written, numbered.
    rows = list(DiagnosisTraceEvent.objects.filter(run=run).order_by("seq").values_list("seq", "name"))
    assert [seq for seq, _ in rows] == [1, 2]
    assert sorted(name for _, name in rows) == ["cancel_requested", "planner_started"]
    assert [event.type for event in stored_events(run.pk)] == ["status"]


def test_a_cancel_while_the_owner_writes_its_held_steps_and_reports_does_not_deadlock(owner, settings):
    """The canceller locks the run's row, then appends to the log; the owner's write of its held steps and
    reports must take the run's row (a step's foreign key) before the log's numbers, or on MariaDB each waits
    for the other and the database fails the owner's write, and with it the run."""
    settings.RUN_EVENT_LINGER_MS = 60_000
    run = run_create(user=owner, message="why is p99 up?")
    DiagnosisRun.objects.filter(pk=run.pk).update(claimed_at=timezone.now(), claimed_by="test")
    progress = RunProgress(run.pk)
    cancelled: list[bool] = []
    canceller = threading.Thread(
        target=lambda: in_own_connection(
            lambda: cancelled.append(
                run_cancel(DiagnosisRun.objects.select_related("session").get(pk=run.pk), user=owner)
            )
        )
    )

    def cancel_meanwhile() -> None:  # a held write of the owner's: the canceller starts inside its transaction
        canceller.start()
        # The canceller locks the run's row, then waits for a number of the log this transaction holds (the
        # reports first), or for nothing (the steps first): it commits, and the owner numbers after it.
        time.sleep(1)

    with owned_log(progress.log):
        progress.status("verifier", "started", attempt=1)
        progress.log.hold_write(cancel_meanwhile)
        StepLog(run.pk, empty=True, log=progress.log).record(
            StepRecord(node="verifier", attempt=1, outcome="COMPLETED")
        )
        progress.flush()
    canceller.join(timeout=30)

    assert cancelled == [True]
    assert AgentStep.objects.filter(run=run).count() == 1
    names = list(
        DiagnosisTraceEvent.objects.filter(run=run, seq__isnull=False).order_by("seq").values_list("name", flat=True)
    )
    assert "verifier_started" in names and "cancel_requested" in names


def test_a_runs_steps_are_written_with_its_held_reports_in_their_transaction(run, settings):
    settings.RUN_EVENT_LINGER_MS = 60_000
    progress = RunProgress(run.pk)
    steps = StepLog(run.pk, empty=True, log=progress.log)
    with owned_log(progress.log):
        progress.status("planner", "started")
        steps.record(StepRecord(node="planner", attempt=1, outcome="COMPLETED", assistant_text="a plan"))
        progress.node_finished(node="planner", outcome="COMPLETED", reason_code="completed", attempt=1)
        steps.record(StepRecord(node="executor", attempt=1, outcome="COMPLETED"))
        assert not AgentStep.objects.filter(run=run).exists()  # held, as the reports are

        with CaptureQueriesContext(connection) as captured:
            progress.flush()

    assert list(AgentStep.objects.filter(run=run).order_by("seq").values_list("seq", "node")) == [
        (1, "planner"),
        (2, "executor"),
    ]
    audits = AgentReasoningAudit.objects.filter(run=run).order_by("step__seq")
    assert [(audit.step.node, audit.node, audit.assistant_text) for audit in audits] == [
        ("planner", "planner", "a plan"),
        ("executor", "executor", ""),
    ]
    assert DiagnosisTraceEvent.objects.filter(run=run).count() == 2
    # The reports in one, the steps in one, their audit rows in one.
    assert sum(sql.startswith("INSERT") for sql in statements(captured)) == 3


def test_a_held_step_keeps_the_time_it_was_recorded_among_its_events(run, settings):
    """Written with the held reports, up to the linger later: stamped at the write, a step came after the
    events of the nodes that followed it in the Trace API (the verifier "created" after the composer began)."""
    settings.RUN_EVENT_LINGER_MS = 60_000
    progress = RunProgress(run.pk)
    steps = StepLog(run.pk, empty=True, log=progress.log)
    with owned_log(progress.log):
        steps.record(StepRecord(node="verifier", attempt=1, outcome="COMPLETED"))
        recorded = timezone.now()
        time.sleep(0.05)
        progress.status("composer", "started")
        progress.flush()

    step = AgentStep.objects.get(run=run)
    started = DiagnosisTraceEvent.objects.get(run=run, name="composer_started")
    assert step.created_at <= recorded < started.created_at
    assert AgentReasoningAudit.objects.get(step=step).created_at == step.created_at


def test_held_steps_are_written_one_by_one_where_a_bulk_insert_returns_no_ids(run, settings, monkeypatch):
    """MySQL returns no ids from a multi-row INSERT, and an audit row needs its step's."""
    settings.RUN_EVENT_LINGER_MS = 60_000
    monkeypatch.setattr(type(connection.features), "can_return_rows_from_bulk_insert", False)
    progress = RunProgress(run.pk)
    steps = StepLog(run.pk, empty=True, log=progress.log)
    with owned_log(progress.log):
        progress.status("planner", "started")
        for node in ("planner", "executor", "verifier"):
            steps.record(StepRecord(node=node, attempt=1, outcome="COMPLETED", assistant_text=f"{node} said"))
        with CaptureQueriesContext(connection) as captured:
            progress.flush()

    audits = AgentReasoningAudit.objects.filter(run=run).order_by("step__seq")
    assert [(audit.step.seq, audit.step.node, audit.assistant_text) for audit in audits] == [
        (1, "planner", "planner said"),
        (2, "executor", "executor said"),
        (3, "verifier", "verifier said"),
    ]
    assert sum(sql.startswith("INSERT") for sql in statements(captured)) == 1 + 3 + 1


def test_steps_a_failed_write_rolled_back_are_written_with_the_next(run, settings, monkeypatch):
    """The reports' INSERT failed after the held steps' (steps go first: see the test of a cancel above): the
    steps rolled back with it are still to write, and the next write takes them with the steps recorded
    since."""
    settings.RUN_EVENT_LINGER_MS = 60_000
    real_insert = timeline._insert

    def unwritable(rows):
        raise OperationalError("database is locked")

    progress = RunProgress(run.pk)
    steps = StepLog(run.pk, empty=True, log=progress.log)
    with owned_log(progress.log):
        progress.status("planner", "started")
        steps.record(StepRecord(node="planner", attempt=1, outcome="COMPLETED"))
        monkeypatch.setattr(timeline, "_insert", unwritable)
        with pytest.raises(EventLogUnwritable):
            progress.flush()
        monkeypatch.setattr(timeline, "_insert", real_insert)

        progress.status("executor", "started")
        steps.record(StepRecord(node="executor", attempt=1, outcome="COMPLETED"))
        progress.flush()

    assert list(AgentStep.objects.filter(run=run).order_by("seq").values_list("seq", "node")) == [
        (1, "planner"),
        (2, "executor"),
    ]


def test_held_steps_and_reports_are_written_all_or_nothing(run, settings, monkeypatch):
    settings.RUN_EVENT_LINGER_MS = 60_000

    def unwritable(*args):
        raise OperationalError("disk I/O error")

    real_insert = steps_module._insert
    monkeypatch.setattr(steps_module, "_insert", unwritable)
    progress = RunProgress(run.pk)
    steps = StepLog(run.pk, empty=True, log=progress.log)
    with owned_log(progress.log):
        progress.status("planner", "started")
        steps.record(StepRecord(node="planner", attempt=1, outcome="FAILED"))
        with pytest.raises(EventLogUnwritable):
            progress.flush()
        assert not DiagnosisTraceEvent.objects.filter(run=run).exists()

        monkeypatch.setattr(steps_module, "_insert", real_insert)  # the step failed to write: it is written next
        steps.record(StepRecord(node="fallback", attempt=1, outcome="COMPLETED"))
        progress.flush()

    assert list(AgentStep.objects.filter(run=run).order_by("seq").values_list("seq", "node")) == [
        (1, "planner"),
        (2, "fallback"),
    ]


def test_reports_rolled_back_with_a_held_step_leave_no_gap_in_the_stream_ids(run, settings, monkeypatch):
    """The rolled-back reports had been numbered: the next write must not number after them."""
    settings.RUN_EVENT_LINGER_MS = 60_000
    progress = RunProgress(run.pk)
    with owned_log(progress.log):
        progress.status("planner", "started")
        progress.flush()
        progress.status("planner", "completed")
        with monkeypatch.context() as patched:
            patched.setattr("tracing.steps._insert", lambda *args: (_ for _ in ()).throw(OperationalError("locked")))
            StepLog(run.pk, empty=True, log=progress.log).record(
                StepRecord(node="planner", attempt=1, outcome="FAILED")
            )
            with pytest.raises(EventLogUnwritable):
                progress.flush()
        sse.publish(run.pk, "failure", {"code": "internal_error"})

    rows = list(DiagnosisTraceEvent.log.filter(run=run, stream_id__isnull=False).order_by("stream_id"))
    assert [(row.stream_id, row.stream_event) for row in rows] == [(1, "status"), (2, "failure")]


def test_steps_held_alone_are_written_by_the_flush(run, settings):
    settings.RUN_EVENT_LINGER_MS = 60_000
    progress = RunProgress(run.pk)
    StepLog(run.pk, empty=True, log=progress.log).record(StepRecord(node="verifier", attempt=1, outcome="COMPLETED"))

    progress.flush()

    assert AgentStep.objects.get(run=run).node == "verifier"
    assert not DiagnosisTraceEvent.objects.filter(run=run).exists()
