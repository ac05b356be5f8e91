"""``kill -9`` of the process executing a run, in the middle of a slow model step: after the reaper the
run is FAILED with its partial trace, and its stream still ends with ``failure`` and ``done``.

The process is the Celery worker in the production-style pass, the web server itself in embedded mode.
"""

from __future__ import annotations

import copy
import json
import signal
import time
from contextlib import ExitStack
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from diagnosis.models import DiagnosisRun, RunStatus
from diagnosis.reaper import reap_stale_runs
from tests.integration.conftest import start_stack
from tests.support.clients import login, submit
from tests.support.live import uvicorn_server
from tests.support.sse_client import read_events
from tracing.models import DiagnosisTraceEvent

pytestmark = pytest.mark.django_db(transaction=True)

HONEST = Path(__file__).resolve().parent.parent / "diagnosis" / "scripts" / "honest.json"
QUESTION = "payment-service p99 latency tripled since 10:05, why?"


def slow_script(tmp_path: Path) -> Path:
    script = copy.deepcopy(json.loads(HONEST.read_text()))
    script["verifier"] = [{"content": script["verifier"][0], "delay_seconds": 120}]
    path = tmp_path / "slow.json"
    path.write_text(json.dumps(script))
    return path


def wait_for_verifier(run_id: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not DiagnosisTraceEvent.objects.filter(run_id=run_id, name="verifier_started").exists():
        assert time.monotonic() < deadline, "the run never reached the verifier"
        time.sleep(0.2)


def test_it_ends_a_run_whose_worker_was_killed(tmp_path, static_root):
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    cookies, headers = login("killed-worker-owner")
    with ExitStack() as stack:
        live = start_stack(stack, static_root, LLM_PROVIDER="scripted", LLM_SCRIPT_PATH=str(slow_script(tmp_path)))
        accepted = submit(live.base, headers, QUESTION)
        wait_for_verifier(accepted["run_id"])

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
