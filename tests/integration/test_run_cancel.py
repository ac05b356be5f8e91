"""Cancelling through the API, with real processes: the run executes on the web server's thread pool in
embedded mode and on a Celery worker process in the production-style pass, and the stream is read by a
real SSE client.

A run held at a model node (a scripted reply with a delay) stops at the boundary after that node; a run
still queued behind another ends at once, and the worker that later takes its message leaves it alone.
"""

from __future__ import annotations

from contextlib import ExitStack
from io import StringIO

import httpx
import pytest
from django.core.management import call_command

from diagnosis.models import DiagnosisRun, RunStatus
from tests.integration.conftest import LiveStack, start_stack
from tests.support.clients import login, submit
from tests.support.held_runs import delayed_script, wait_for_node
from tests.support.sse_client import SseEvent, read_events
from tests.support.stored_events import stored_names

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = "payment-service p99 latency tripled since 10:05, why?"
HAPPY = ["planner", "executor", "gatekeeper", "verified_input", "verifier", "composer"]
# Long enough for the test to see the node start and send its cancel while the model is still "thinking".
HOLD_SECONDS = 4


@pytest.fixture(autouse=True)
def demo_pack():
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())


def cancel(live: LiveStack, headers: dict[str, str], run_id: str) -> httpx.Response:
    return httpx.post(f"{live.base}/api/runs/{run_id}/cancel", headers=headers, timeout=10)


def assert_cancelled(events: list[SseEvent], run_id: str) -> None:
    names = [event.event for event in events]
    assert names[0] == "metadata" and names[-2:] == ["failure", "done"] and names.count("done") == 1
    assert events[-2].data == {"code": "cancelled", "message": "The run was cancelled."}
    assert events[-1].data == {"outcome": "FAILED", "run_id": run_id}
    run = DiagnosisRun.objects.get(pk=run_id)
    assert (run.status, run.failure_reason) == (RunStatus.FAILED, "cancelled")


@pytest.mark.parametrize("node", ["planner", "executor", "verifier", "composer"])
def test_it_stops_a_run_held_at_a_model_node_after_that_node(node, tmp_path, static_root):
    cookies, headers = login(f"cancel-at-{node}")
    with ExitStack() as stack:
        script = delayed_script(tmp_path, **{node: HOLD_SECONDS})
        live = start_stack(stack, static_root, LLM_PROVIDER="scripted", LLM_SCRIPT_PATH=str(script))
        accepted = submit(live.base, headers, QUESTION)
        run_id = accepted["run_id"]
        wait_for_node(run_id, node)

        response = cancel(live, headers, run_id)
        events = read_events(live.base + accepted["events_url"], cookies=cookies)

    assert response.status_code == 202, response.text
    assert response.json() == {"run_id": run_id, "status": "RUNNING"}
    assert_cancelled(events, run_id)
    started = [event.data["node"] for event in events if event.event == "status" and event.data["phase"] == "started"]
    assert started == HAPPY[: HAPPY.index(node) + 1]  # nothing started after the node it was cancelled in
    trace = DiagnosisRun.objects.get(pk=run_id).orchestration_trace
    assert (trace["final_node"], trace["termination_reason"]) == (node, "cancelled")


def test_it_ends_a_queued_run_at_once_and_the_worker_leaves_it_alone(tmp_path, static_root):
    cookies, headers = login("cancel-queued")
    with ExitStack() as stack:
        # One run at a time (the Celery worker of these tests is a solo pool): the second run waits.
        script = delayed_script(tmp_path, planner=HOLD_SECONDS)
        live = start_stack(
            stack, static_root, LLM_PROVIDER="scripted", LLM_SCRIPT_PATH=str(script), EMBEDDED_WORKER_THREADS="1"
        )
        holding = submit(live.base, headers, QUESTION)
        wait_for_node(holding["run_id"], "planner")
        queued = submit(live.base, headers, QUESTION)

        response = cancel(live, headers, queued["run_id"])
        queued_events = read_events(live.base + queued["events_url"], cookies=cookies)
        assert cancel(live, headers, holding["run_id"]).status_code == 202
        holding_events = read_events(live.base + holding["events_url"], cookies=cookies)
        # Runs are taken in order: once a later run has ended, the queued run's message has been handled.
        later = submit(live.base, headers, "hi")
        read_events(live.base + later["events_url"], cookies=cookies)

    assert response.status_code == 202, response.text
    assert response.json() == {"run_id": queued["run_id"], "status": "FAILED"}
    assert [event.event for event in queued_events] == ["metadata", "failure", "done"]
    assert_cancelled(queued_events, queued["run_id"])
    assert_cancelled(holding_events, holding["run_id"])
    assert stored_names(queued["run_id"]) == ["metadata", "failure", "done"]
    assert DiagnosisRun.objects.get(pk=queued["run_id"]).claimed_at is None
    assert DiagnosisRun.objects.get(pk=later["run_id"]).status == RunStatus.SUCCESS
