"""A cancelled run stops at the next node boundary of the real graph and ends FAILED ``cancelled``, with its
partial trace, its ``failure`` and exactly one ``done``; a queued one ends at once and is never claimed.

Each node is held by wrapping its function so that the cancel request arrives while that node's attempt
runs, exactly as a request from another process would (the flag is a database column). The same with
real processes and scripted model delays is ``tests/integration/test_run_cancel.py``.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django_eventstream.event import Event

from diagnosis.execution import run_execute
from diagnosis.models import DiagnosisRun, RunStatus
from diagnosis.nodes import composer, evidence_retry, executor, fallback, gatekeeper, planner, verified_input, verifier
from diagnosis.paths.options import ExecutionOptions
from diagnosis.progress import STOP_CHECK_SECONDS
from diagnosis.services import run_cancel
from diagnosis.submission import run_create
from tests.support.held_runs import HONEST
from tests.support.stored_events import payload, stored_events
from tracing.models import AgentStep, DiagnosisTraceEvent

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = "payment-service p99 latency tripled since 10:05, why?"
GAP_VERDICT = {
    "verdict": "LOW_CONFID",
    "facts_checked": [{"claim_id": "c1", "fact": "pool errors at 10:05", "verification": "indirect_support"}],
    "missing_info": [],
    "evidence_gaps": ["no metric evidence"],
    "recommended_actions": [],
}
HAPPY = ["planner", "executor", "gatekeeper", "verified_input", "verifier", "composer"]
# node -> (its module and function, the script's replacements that route the run through it, nodes run)
AT_NODE = {
    "planner": (planner, "plan", {}, HAPPY[:1]),
    "executor": (executor, "execute", {}, HAPPY[:2]),
    "gatekeeper": (gatekeeper, "gatekeep", {}, HAPPY[:3]),
    "verified_input": (verified_input, "build", {}, HAPPY[:4]),
    "verifier": (verifier, "verify", {}, HAPPY[:5]),
    "evidence_retry": (
        evidence_retry,
        "prepare",
        {"verifier": [json.dumps(GAP_VERDICT)]},
        [*HAPPY[:5], "evidence_retry"],
    ),
    "composer": (composer, "compose", {}, HAPPY),
    "fallback": (fallback, "answer", {"planner": [{"error": "bad_request"}]}, ["planner", "fallback"]),
}


@pytest.fixture
def run(owner) -> DiagnosisRun:
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    return run_create(user=owner, message=QUESTION)


def scripted(tmp_path: Path, **replace: list) -> ExecutionOptions:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({**json.loads(HONEST.read_text()), **replace}))
    return ExecutionOptions(provider="scripted", script_path=str(path))


def stream(run: DiagnosisRun) -> list[Event]:
    return stored_events(run.pk)


def timeline(run: DiagnosisRun) -> list[DiagnosisTraceEvent]:
    return list(DiagnosisTraceEvent.objects.filter(run=run).order_by("seq"))


@pytest.mark.parametrize("node", list(AT_NODE))
def test_it_stops_at_the_boundary_after_the_node_it_was_cancelled_in(node, run, owner, tmp_path, monkeypatch):
    module, name, replace, ran = AT_NODE[node]
    real = getattr(module, name)

    def cancelled_meanwhile(context, state, config):
        assert run_cancel(DiagnosisRun.objects.select_related("session").get(pk=run.pk), user=owner)
        return real(context, state, config)

    monkeypatch.setattr(module, name, cancelled_meanwhile)

    ended = run_execute(run.pk, worker="test", options=scripted(tmp_path, **replace))

    assert (ended.status, ended.failure_reason) == (RunStatus.FAILED, "cancelled")
    trace = ended.orchestration_trace
    assert (trace["final_node"], trace["termination_reason"]) == (node, "cancelled")
    assert [t["from"] for t in trace["transitions"]] + [trace["final_node"]] == ran
    rows = timeline(ended)
    assert [row.name for row in rows if row.name.endswith("_started")] == [f"{n}_started" for n in ran]
    assert [row.details["node"] for row in rows if row.name == "node_finished"] == ran  # the last one completed
    assert [(row.name, row.details) for row in rows[-1:]] == [("failed", {"code": "cancelled"})]
    events = stream(ended)
    assert [e.type for e in events].count("done") == 1
    assert [(e.type, payload(e)) for e in events[-2:]] == [
        ("failure", {"code": "cancelled", "message": "The run was cancelled."}),
        ("done", {"outcome": "FAILED", "run_id": str(run.pk)}),
    ]
    assert not ended.final_answer  # a cancelled composer's (or fallback's) answer is never released


def test_it_ends_a_queued_run_at_once_and_no_worker_claims_it_afterwards(run, owner):
    assert run_cancel(run, user=owner)

    assert run_execute(run.pk, worker="late-worker") is None  # the message arrives after the cancel
    run.refresh_from_db()
    assert (run.status, run.failure_reason, run.claimed_at) == (RunStatus.FAILED, "cancelled", None)
    assert run.orchestration_trace is None  # it never entered the graph
    assert [e.type for e in stream(run)] == ["metadata", "failure", "done"]
    assert [row.name for row in timeline(run)] == ["intent_routed", "cancel_requested", "failed"]


def test_a_run_cancelled_during_a_slow_model_turn_pays_for_no_further_turn(run, owner, tmp_path, monkeypatch):
    """The executor's turns can take minutes with a real model: it asks, before its next one, whether the run
    was cancelled meanwhile (at most once a second), instead of spending the run's budget until its end."""
    script = json.loads(HONEST.read_text())
    first = script["executor"][0]
    script["executor"][0] = {**first, "delay_seconds": STOP_CHECK_SECONDS + 0.1}
    path = tmp_path / "slow.json"
    path.write_text(json.dumps(script))
    real = executor.execute

    def cancelled_meanwhile(context, state, config):
        assert run_cancel(DiagnosisRun.objects.select_related("session").get(pk=run.pk), user=owner)
        return real(context, state, config)

    monkeypatch.setattr(executor, "execute", cancelled_meanwhile)

    ended = run_execute(run.pk, worker="test", options=ExecutionOptions(provider="scripted", script_path=str(path)))

    assert (ended.status, ended.failure_reason) == (RunStatus.FAILED, "cancelled")
    assert ended.orchestration_trace["final_node"] == "executor"
    step = AgentStep.objects.get(run=ended, node="executor")
    assert step.model_calls == 1  # the report's turn, which the script holds next, was never asked for
    assert ended.tool_invocations.count() == 1
