"""``kill -9`` of the prefork child executing a run (what the OOM killer does): Celery hands its task to a new
child (``task_reject_on_worker_lost``), whose claim fails; the run, claimed by a process gone from the host,
is ended there and then as ``worker_lost`` with its partial trace, not ten minutes later by the reaper."""

from __future__ import annotations

import os
import signal
import time
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from diagnosis.models import DiagnosisRun, RunStatus
from tests.services import require
from tests.support.clients import login, submit
from tests.support.held_runs import stuck_planner, wait_for_node
from tests.support.live import celery_worker, scripted_celery_env, uvicorn_server
from tests.support.sse_client import read_events

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_run_whose_pool_child_was_killed_ends_at_once_as_worker_lost(tmp_path: Path, static_root):
    require("redis")
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    cookies, headers = login("child-killed-owner")
    env = scripted_celery_env(static_root, stuck_planner(tmp_path, 120))

    with celery_worker(env, pool="prefork"), uvicorn_server(env) as web:
        accepted = submit(web.base, headers, "payment-service p99 latency tripled since 10:05, why?")
        wait_for_node(accepted["run_id"], "planner")
        child = int(DiagnosisRun.objects.get(pk=accepted["run_id"]).claimed_by.rpartition(":")[2])
        os.kill(child, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while DiagnosisRun.objects.filter(pk=accepted["run_id"], status=RunStatus.RUNNING).exists():
            assert time.monotonic() < deadline, "the run was left for the reaper"
            time.sleep(0.2)
        events = read_events(web.base + accepted["events_url"], cookies=cookies, timeout=30)

    run = DiagnosisRun.objects.get(pk=accepted["run_id"])
    assert (run.status, run.failure_reason) == (RunStatus.FAILED, "worker_lost")
    assert run.orchestration_trace["final_node"] == "planner"
    assert [event.event for event in events][-2:] == ["failure", "done"]
