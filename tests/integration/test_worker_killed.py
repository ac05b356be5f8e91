"""``kill -9`` of the process executing a run, in the middle of a slow model step: after the reaper the
run is FAILED with its partial trace, and its stream still ends with ``failure`` and ``done``.

The process is the Celery worker in the production-style pass, the web server itself in embedded mode.
"""

from __future__ import annotations

import signal
import time
from contextlib import ExitStack
from io import StringIO

import pytest
from django.core.management import call_command

from diagnosis.models import DiagnosisRun, RunStatus
from diagnosis.reaper import reap_stale_runs
from tests.integration.conftest import start_stack
from tests.support.clients import login, submit
from tests.support.held_runs import delayed_script, wait_for_node
from tests.support.live import uvicorn_server
from tests.support.sse_client import read_events

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = "payment-service p99 latency tripled since 10:05, why?"


def test_it_ends_a_run_whose_worker_was_killed(tmp_path, static_root):
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    cookies, headers = login("killed-worker-owner")
    with ExitStack() as stack:
        slow = delayed_script(tmp_path, verifier=120)
        live = start_stack(stack, static_root, LLM_PROVIDER="scripted", LLM_SCRIPT_PATH=str(slow))
        accepted = submit(live.base, headers, QUESTION)
        wait_for_node(accepted["run_id"], "verifier")

        live.runner.send_signal(signal.SIGKILL)
        live.runner.wait(timeout=10)
        time.sleep(1.5)
        reaped = reap_stale_runs(stale_after_seconds=1)

        assert [str(run.pk) for run in reaped] == [accepted["run_id"]]
        # In embedded mode the killed process was the web server: read the stream from a new one.
        base = stack.enter_context(uvicorn_server(live.env)).base if live.runner is live.server else live.base
        events = read_events(base + accepted["events_url"], cookies=cookies)

    run = DiagnosisRun.objects.get(pk=accepted["run_id"])
    assert (run.status, run.failure_reason) == (RunStatus.FAILED, "worker_lost")
    assert run.orchestration_trace["termination_reason"] == "worker_lost"
    # The verifier had started and never finished: the partial trace ends in it.
    assert [t["from"] for t in run.orchestration_trace["transitions"]] == [
        "planner",
        "executor",
        "gatekeeper",
        "verified_input",
    ]
    assert run.orchestration_trace["final_node"] == "verifier"
    names = [event.event for event in events]
    assert names[0] == "metadata" and names[-2:] == ["failure", "done"]
    assert names.count("done") == 1
    assert events[-1].data == {"outcome": "FAILED", "run_id": accepted["run_id"]}
