from __future__ import annotations

import dataclasses

import pytest

from diagnosis.graph.actions import ActionContractError, DiagnosisActions, check_output
from diagnosis.graph.topology import Node


def noop(state, config):
    return {}


def all_noop(**overrides):
    return DiagnosisActions(**{**{node.value: noop for node in Node}, **overrides})


def test_it_holds_one_action_per_node_under_the_node_id():
    def planner(state, config):
        return {"planner_status": "COMPLETED"}

    actions = all_noop(planner=planner)

    assert actions.for_node(Node.PLANNER) is planner
    assert [field.name for field in dataclasses.fields(actions)] == [node.value for node in Node]
    with pytest.raises(dataclasses.FrozenInstanceError):
        actions.planner = noop


def test_it_requires_all_eight_actions():
    with pytest.raises(TypeError, match="fallback"):
        DiagnosisActions(**{node.value: noop for node in Node if node is not Node.FALLBACK})


def test_it_refuses_an_action_that_is_not_callable():
    with pytest.raises(TypeError, match=r"DiagnosisActions\.verifier must be callable, got str"):
        all_noop(verifier="verifier")


def test_it_refuses_an_action_that_cannot_take_state_and_config():
    with pytest.raises(TypeError, match=r"DiagnosisActions\.composer must accept \(state, config\)"):
        all_noop(composer=lambda state: {})


@pytest.mark.parametrize(
    ("node", "output", "message"),
    [
        (Node.PLANNER, ["planner_status"], "must return a mapping, got list"),
        (Node.PLANNER, {"planner_status": "COMPLETED", "planner_retry_count": 0}, "does not own: planner_retry_count"),
        (Node.PLANNER, {"planner_mode": "EVIDENCE_GAP_ONLY"}, "does not own: planner_mode"),
        (Node.EXECUTOR, {"orchestration_events": [{}]}, "does not own: orchestration_events"),
        (Node.VERIFIER, {"verifier_status": "COMPLETED", "final_answer": "x"}, "does not own: final_answer"),
        (Node.VERIFIED_INPUT, {"failure_reason": "bad_projection"}, "does not own: failure_reason"),
        (Node.EVIDENCE_RETRY, {"evidence_retry_count": 1}, "does not own: evidence_retry_count"),
        (Node.PLANNER, {"failure_reason": "Model timed out"}, "snake_case code"),
        (Node.PLANNER, {"failure_reason": 504}, "snake_case code"),
        (Node.PLANNER, {"failure_reason": "x" * 65}, "snake_case code"),
        (Node.COMPOSER, {"composer_status": "COMPLETED", "final_answer": "  "}, "without a non-blank final_answer"),
        (Node.COMPOSER, {"composer_status": "COMPLETED"}, "without a non-blank final_answer"),
        (Node.FALLBACK, {}, "without a non-blank final_answer"),
        (Node.FALLBACK, {"final_answer": ["answer"]}, "without a non-blank final_answer"),
    ],
)
def test_it_refuses_output_that_breaks_the_contract(node, output, message):
    with pytest.raises(ActionContractError, match=message):
        check_output(node, output)


def test_it_fills_omitted_owned_keys_with_their_defaults():
    checked = check_output(Node.GATEKEEPER, {"gatekeeper_status": "REJECT"})

    assert checked.updates == {
        "gatekeeper_status": "REJECT",
        "gatekeeper_result": None,
        "verified_binding_count": 0,
        "verifier_verdict_ceiling": None,
    }
    assert checked.failure_reason is None


def test_it_takes_the_failure_reason_out_of_the_update():
    checked = check_output(Node.PLANNER, {"planner_status": "RETRYABLE_FAILED", "failure_reason": "model_timeout"})

    assert checked.updates == {"planner_status": "RETRYABLE_FAILED", "planner_plan": None}
    assert checked.failure_reason == "model_timeout"


def test_it_lets_a_failed_composer_leave_no_answer():
    checked = check_output(Node.COMPOSER, {"composer_status": "INVALID_OUTPUT"})

    assert checked.updates == {"composer_status": "INVALID_OUTPUT", "composer_output": None, "final_answer": None}
