"""A run whose pool child was killed (the OOM killer, ``kill -9``) is ended at once by the child that gets its
task again: the redelivered task's claim fails, and the process that claimed the run is gone from this host.
Never a run claimed by a live process, by this very process, or on another host."""

from __future__ import annotations

import os
import subprocess

import pytest

from diagnosis.execution import run_execute
from diagnosis.models import ChatSession, DiagnosisRun, RunStatus
from diagnosis.progress import RunProgress
from diagnosis.services import run_claim
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
