"""Node-attempt wrappers: the counters of seed 002 §4, the action contract and one event per attempt.

Every node of the graph is ``wrap_action(node, action)``. The wrapper, not the action, decides:

* the control keys, from the state the attempt starts with (so the action already sees them):
  planner/verifier/composer count a technical retry when their previous status was a technical failure;
  verified_input resets ``verifier_retry_count`` (new verified input); evidence_retry increments
  ``evidence_retry_count``, resets ``planner_retry_count`` and sets ``planner_mode=EVIDENCE_GAP_ONLY``;
  the fallback records the cause of the degradation in ``failure_reason``;
* the attempt's single event ``{node, outcome, reason_code, attempt}``. The wrapper builds and validates
  it and appends it together with the node's update in one return value, so an action can neither forget
  nor duplicate it and a node attempt that returns always leaves exactly one event. An attempt that
  raises leaves none; the runner reports which node raised.

``attempt`` is the attempt number within the node's current stage: retry count + 1 for the three
self-retrying nodes (so a planner re-entered after an evidence retry starts again at 1), and 1 for the
nodes that never retry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from langchain_core.runnables import RunnableConfig

from diagnosis.graph.actions import STATUS_FIELDS, AttemptOutput, NodeAction, check_output
from diagnosis.graph.state import DiagnosisState, read_count, read_enum, read_events
from diagnosis.graph.status import TECHNICAL_FAILURES, GatekeeperStatus, PlannerMode, Verdict, VerifierStatus
from diagnosis.graph.topology import COMPLETED_OUTCOME, UNKNOWN_OUTCOME, Node, ReasonCode
from diagnosis.graph.trace_builder import OrchestrationEvent


class NodeFunction(Protocol):
    """What LangGraph calls for a node; the parameter names matter, LangGraph injects ``config`` by name."""

    def __call__(self, state: DiagnosisState, config: RunnableConfig) -> dict[str, Any]: ...


#: The self-retrying nodes and the counter of their current stage.
RETRY_COUNTERS: Mapping[Node, str] = {
    Node.PLANNER: "planner_retry_count",
    Node.VERIFIER: "verifier_retry_count",
    Node.COMPOSER: "composer_retry_count",
}


def _control(node: Node, state: Mapping[str, Any]) -> dict[str, Any]:
    if node in RETRY_COUNTERS:
        key = RETRY_COUNTERS[node]
        previous = read_enum(state, STATUS_FIELDS[node].key, STATUS_FIELDS[node].values)
        return {key: read_count(state, key) + (1 if previous in TECHNICAL_FAILURES else 0)}
    if node is Node.VERIFIED_INPUT:
        return {"verifier_retry_count": 0}
    if node is Node.EVIDENCE_RETRY:
        return {
            "evidence_retry_count": read_count(state, "evidence_retry_count") + 1,
            "planner_retry_count": 0,
            "planner_mode": PlannerMode.EVIDENCE_GAP_ONLY.value,
        }
    if node is Node.FALLBACK:
        return {"failure_reason": _fallback_cause(state)}
    return {}


def _fallback_cause(state: Mapping[str, Any]) -> str:
    """``<node>_<reason_code>`` of the attempt that sent the run to the fallback."""
    events = read_events(state)
    if not events:
        return ReasonCode.UNKNOWN_CAUSE.value
    return f"{events[-1].get('node')}_{events[-1].get('reason_code')}"


def _status_reason(node: Node, after: Mapping[str, Any]) -> tuple[str, str]:
    """Outcome and status-derived reason code of a status node's attempt."""
    status = read_enum(after, STATUS_FIELDS[node].key, STATUS_FIELDS[node].values)
    if status is None:
        return UNKNOWN_OUTCOME, ReasonCode.UNKNOWN_STATUS.value
    if (
        node is Node.GATEKEEPER
        and status is GatekeeperStatus.LOW_CONFID
        and read_count(after, "verified_binding_count") == 0
    ):
        return status.value, ReasonCode.NO_VERIFIED_BINDING.value
    if node is Node.VERIFIER and status is VerifierStatus.COMPLETED:
        # A completed verifier's route depends on its verdict, so the verdict is the reason.
        verdict = read_enum(after, "effective_verdict", Verdict)
        return status.value, (ReasonCode(verdict.lower()) if verdict else ReasonCode.UNKNOWN_VERDICT).value
    return status.value, ReasonCode(status.lower()).value


def _event(node: Node, control: Mapping[str, Any], after: Mapping[str, Any], output: AttemptOutput) -> dict[str, Any]:
    if node in STATUS_FIELDS:
        outcome, reason = _status_reason(node, after)
        reason = output.failure_reason or reason
    else:
        outcome = COMPLETED_OUTCOME
        reason = control["failure_reason"] if node is Node.FALLBACK else ReasonCode.COMPLETED.value
    attempt = control[RETRY_COUNTERS[node]] + 1 if node in RETRY_COUNTERS else 1
    return OrchestrationEvent(node=node.value, outcome=outcome, reason_code=reason, attempt=attempt).to_dict()


def wrap_action(node: Node, action: NodeAction) -> NodeFunction:
    """The graph node for ``action``: control keys, the action's checked update and its one event."""

    def attempt(state: DiagnosisState, config: RunnableConfig) -> dict[str, Any]:
        control = _control(node, state)
        view: DiagnosisState = {**state, **control}  # type: ignore[typeddict-item]
        output = check_output(node, action(view, config))
        event = _event(node, control, {**view, **output.updates}, output)
        return {**output.updates, **control, "orchestration_events": [event]}

    attempt.__name__ = f"{node.value}_attempt"
    return attempt
