"""A run whose pool child was killed (the OOM killer, ``kill -9``) is ended at once by the child that gets its
task again: the redelivered task's claim fails, and the process that claimed the run is gone from this host.
Never a run claimed by a live process, by this very process, or on another host."""

from __future__ import annotations

import os
import subprocess

import pytest
from django.db import OperationalError

from diagnosis import reaper
from diagnosis.execution import run_execute
from diagnosis.models import ChatSession, DiagnosisRun, RunStatus
from diagnosis.progress import RunProgress
from diagnosis.services import CLAIMED_BY_CHARS, run_claim
from tests.support.stored_events import stored_names

pytestmark = pytest.mark.django_db(transaction=True)

HOST = "superbiz@worker-1"


def gone_pid() -> int:
    """The pid of a process that has exited (and was reaped)."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


@pytest.fixture
def claimed(owner):
    def claim(worker: str) -> DiagnosisRun:
        run = DiagnosisRun.objects.create(session=ChatSession.objects.create(owner=owner), query="why?")
        run_claim(run.pk, worker=worker)
        progress = RunProgress(run.pk)
        progress.node_finished(node="planner", outcome="COMPLETED", reason_code="completed", attempt=1)
        progress.flush()
        return run

    return claim


def test_the_redelivered_task_ends_a_run_whose_claiming_process_is_gone(claimed):
    run = claimed(f"{HOST}:{gone_pid()}")

    assert run_execute(run.pk, worker=f"{HOST}:{os.getpid()}") is None

    run.refresh_from_db()
    assert (run.status, run.failure_reason) == (RunStatus.FAILED, "worker_lost")
    assert run.orchestration_trace["termination_reason"] == "worker_lost"
    assert stored_names(run.pk)[-2:] == ["failure", "done"]


@pytest.mark.parametrize(
    "claimed_by",
    [
        f"{HOST}:{os.getppid()}",  # alive
        f"{HOST}:{os.getpid()}",  # this process (embedded: its own threads)
        f"superbiz@worker-2:{gone_pid()}",  # another host: its pids are not this host's
        f"{HOST}-b:{gone_pid()}",  # a host whose name starts like this one's
        f"{HOST}:not-a-pid",
    ],
)
def test_a_run_claimed_by_a_live_or_foreign_process_is_left_alone(claimed, claimed_by):
    run = claimed(claimed_by)

    assert run_execute(run.pk, worker=f"{HOST}:{os.getpid()}") is None

    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING and run.claimed_by == claimed_by


def test_a_worker_name_cut_at_the_columns_length_is_never_judged(claimed):
    """Cut at 200 characters, the pid may have lost its last digits: another, perhaps dead, process's pid."""
    long_host = "h" * (CLAIMED_BY_CHARS - 3)
    run = claimed(f"{long_host}:{os.getppid()}"[:CLAIMED_BY_CHARS])

    assert run_execute(run.pk, worker=f"{long_host}:{os.getpid()}") is None

    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING


def test_a_run_this_worker_claimed_already_is_its_own(claimed):
    """The claim's commit went through and the connection broke before the rest: tried again, the claim
    finds the run claimed - by this very worker - and goes on, instead of leaving it to nobody."""
    worker = f"{HOST}:{os.getpid()}"
    run = claimed(worker)

    assert run_claim(run.pk, worker=worker, again=True) == run
    assert run_claim(run.pk, worker=worker) is None  # a first claim: another thread of an embedded server
    assert run_claim(run.pk, worker=f"{HOST}:{os.getppid()}", again=True) is None


def test_the_runs_a_stopping_server_leaves_are_ended_even_when_one_cannot_be(claimed, monkeypatch, caplog):
    first, second = claimed(f"{HOST}:{os.getpid()}"), claimed(f"{HOST}:{os.getpid()}")
    real = reaper.fail_with_partial_trace

    def first_fails(run, **kwargs):
        if run.pk == first.pk:
            raise OperationalError("database is locked")
        return real(run, **kwargs)

    monkeypatch.setattr(reaper, "fail_with_partial_trace", first_fails)

    assert reaper.end_abandoned_runs([str(first.pk), str(second.pk)]) == 1

    second.refresh_from_db()
    assert (second.status, second.failure_reason) == (RunStatus.FAILED, "interrupted")
    assert f"run {first.pk} could not be ended" in caplog.text
