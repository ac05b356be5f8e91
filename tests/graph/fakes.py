"""Scriptable fake actions for the real compiled graph: an outcome queue and a call log per node.

A node whose queue is empty returns its happy-path output, so a test scripts only the attempts it is
about. Every call records the state view and config the action received, which lets tests check what
the wrappers handed the action (counters, mode) without reaching into the graph.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from diagnosis.graph.actions import DiagnosisActions, NodeAction
from diagnosis.graph.builder import build_graph
from diagnosis.graph.runner import run_graph
from diagnosis.graph.state import DiagnosisState, initial_state
from diagnosis.graph.topology import Node
from diagnosis.graph.trace_builder import OrchestrationTrace, build_trace

P, E, G, VI, V, ER, C, F = (
    Node.PLANNER,
    Node.EXECUTOR,
    Node.GATEKEEPER,
    Node.VERIFIED_INPUT,
    Node.VERIFIER,
    Node.EVIDENCE_RETRY,
    Node.COMPOSER,
    Node.FALLBACK,
)
HAPPY_PATH = [P, E, G, VI, V, C]
EVIDENCE_RETRY_PATH = [P, E, G, VI, V, ER, P, E, G, VI, V, C]
COMPOSER_ANSWER = "composed answer"
FALLBACK_ANSWER = "deterministic fallback answer"


def planner(status: str, **extra: Any) -> dict[str, Any]:
    return {"planner_status": status, "planner_plan": {"mode": "NORMAL", "hypotheses": ["h"], "steps": []}, **extra}


def executor(status: str, **extra: Any) -> dict[str, Any]:
    return {"executor_status": status, "executor_output": {"schema": "executor_evidence_v2", "claims": []}, **extra}


def gatekeeper(status: str, *, bindings: int = 2, ceiling: str | None = "PASS", **extra: Any) -> dict[str, Any]:
    return {
        "gatekeeper_status": status,
        "gatekeeper_result": {"checked_bindings": []},
        "verified_binding_count": bindings,
        "verifier_verdict_ceiling": ceiling,
        **extra,
    }


GAP_FACT = {"claim_id": "c1", "fact": "pool exhausted at 10:05", "verification": "no_evidence"}


def verifier(
    status: str = "COMPLETED", verdict: str | None = "PASS", *, facts: list[Any] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "verifier_status": status,
        "verifier_output": {"verdict": verdict, "facts_checked": facts or []},
        "verifier_model_verdict": verdict,
        "effective_verdict": verdict,
        **extra,
    }


def low_confid_with_gap() -> dict[str, Any]:
    """A verifier result that satisfies every evidence-retry condition (with a PASS ceiling)."""
    return verifier("COMPLETED", "LOW_CONFID", facts=[GAP_FACT])


def composer(status: str, **extra: Any) -> dict[str, Any]:
    answer = {"final_answer": COMPOSER_ANSWER} if status == "COMPLETED" else {}
    return {"composer_status": status, "composer_output": {"cited_claim_ids": []}, **answer, **extra}


HAPPY_OUTPUTS: Mapping[Node, dict[str, Any]] = {
    P: planner("COMPLETED"),
    E: executor("COMPLETED"),
    G: gatekeeper("PASS"),
    VI: {"verified_executor_output": {"claims": []}, "verified_evidence": []},
    V: verifier("COMPLETED", "PASS"),
    ER: {"retry_context": {"evidence_gaps": ["pool exhausted at 10:05"]}},
    C: composer("COMPLETED"),
    F: {"final_answer": FALLBACK_ANSWER},
}


@dataclass
class Call:
    node: Node
    state: DiagnosisState
    config: Mapping[str, Any]


class ScriptedActions:
    """Fake actions: ``ScriptedActions(verifier=[out1, out2])`` scripts the first two verifier attempts."""

    def __init__(self, **scripts: list[Mapping[str, Any] | BaseException]) -> None:
        unknown = set(scripts) - {node.value for node in Node}
        if unknown:
            raise ValueError(f"no such nodes: {sorted(unknown)}")
        self.queues = {node: deque(scripts.get(node.value, [])) for node in Node}
        self.calls: list[Call] = []

    def _action(self, node: Node) -> NodeAction:
        def act(state: DiagnosisState, config: Any) -> Mapping[str, Any]:
            self.calls.append(Call(node, state, config))
            outcome = self.queues[node].popleft() if self.queues[node] else HAPPY_OUTPUTS[node]
            if isinstance(outcome, BaseException):
                raise outcome
            return outcome

        return act

    def port(self) -> DiagnosisActions:
        return DiagnosisActions(**{node.value: self._action(node) for node in Node})

    @property
    def sequence(self) -> list[Node]:
        return [call.node for call in self.calls]

    @property
    def call_counts(self) -> Counter[Node]:
        return Counter(self.sequence)

    def states(self, node: Node) -> list[DiagnosisState]:
        return [call.state for call in self.calls if call.node is node]


@dataclass
class Run:
    actions: ScriptedActions
    state: DiagnosisState

    @property
    def trace(self) -> OrchestrationTrace:
        return build_trace(self.state["orchestration_events"], evidence_retry_count=self.state["evidence_retry_count"])

    @property
    def transitions(self) -> list[dict[str, Any]]:
        return self.trace.to_dict()["transitions"]


def run_scripted(run_id: str = "run-1", **scripts: list[Mapping[str, Any] | BaseException]) -> Run:
    """Build a fresh graph over scripted actions and run it to the end."""
    actions = ScriptedActions(**scripts)
    state = run_graph(build_graph(actions.port()), initial_state({"query": "why is p99 up?"}), run_id=run_id)
    return Run(actions, state)


def event(node: Node, outcome: str, reason_code: str, attempt: int = 1) -> dict[str, Any]:
    return {"node": node.value, "outcome": outcome, "reason_code": reason_code, "attempt": attempt}


def transition(source: Node, target: Node | str, reason_code: str, attempt: int = 1) -> dict[str, Any]:
    return {"from": source.value, "to": str(target), "reason_code": reason_code, "attempt": attempt}
