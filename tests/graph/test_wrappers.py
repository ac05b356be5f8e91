"""The node-attempt wrappers called directly: counters, the action's view, and the one event."""

from __future__ import annotations

import pytest

from diagnosis.graph.actions import ActionContractError
from diagnosis.graph.topology import Node
from diagnosis.graph.wrappers import wrap_action
from tests.graph.fakes import event, planner, verifier

CONFIG = {"configurable": {"thread_id": "run-1", "run_id": "run-1"}}


def attempt(node, output, state):
    """Run ``node``'s wrapper over an action returning ``output``; return the update and the action's view."""
    seen = []

    def action(view, config):
        seen.append((view, config))
        return output

    update = wrap_action(node, action)(state, CONFIG)
    assert len(seen) == 1
    return update, seen[0][0]


def test_it_appends_exactly_one_event_built_from_the_status():
    update, _ = attempt(Node.PLANNER, planner("COMPLETED"), {"planner_retry_count": 0})

    assert update == {
        "planner_status": "COMPLETED",
        "planner_plan": planner("COMPLETED")["planner_plan"],
        "planner_retry_count": 0,
        "orchestration_events": [event(Node.PLANNER, "COMPLETED", "completed", 1)],
    }


def test_it_counts_a_technical_retry_before_the_action_runs():
    update, view = attempt(Node.PLANNER, planner("COMPLETED"), {"planner_status": "INVALID_OUTPUT"})

    assert view["planner_retry_count"] == 1
    assert update["planner_retry_count"] == 1
    assert update["orchestration_events"] == [event(Node.PLANNER, "COMPLETED", "completed", 2)]


def test_it_clamps_a_corrupt_counter_so_it_cannot_buy_extra_retries():
    update, _ = attempt(
        Node.COMPOSER,
        {"composer_status": "RETRYABLE_FAILED"},
        {"composer_status": "RETRYABLE_FAILED", "composer_retry_count": -7},
    )

    assert update["composer_retry_count"] == 1


def test_it_uses_the_action_failure_reason_as_the_reason_code():
    update, _ = attempt(Node.PLANNER, planner("RETRYABLE_FAILED", failure_reason="model_timeout"), {})

    assert update["orchestration_events"] == [event(Node.PLANNER, "RETRYABLE_FAILED", "model_timeout", 1)]
    assert "failure_reason" not in update


def test_it_resets_owned_keys_the_action_leaves_out():
    stale = {"verifier_status": "COMPLETED", "effective_verdict": "LOW_CONFID", "verifier_retry_count": 0}

    update, _ = attempt(Node.VERIFIER, {"verifier_status": "COMPLETED"}, stale)

    assert (update["effective_verdict"], update["verifier_output"]) == (None, None)
    assert update["orchestration_events"] == [event(Node.VERIFIER, "COMPLETED", "unknown_verdict", 1)]


@pytest.mark.parametrize(
    "output",
    [
        {"orchestration_events": [event(Node.EXECUTOR, "COMPLETED", "completed")]},
        {"executor_status": "COMPLETED", "evidence_retry_count": 0},
    ],
)
def test_it_refuses_an_action_that_writes_events_or_counters(output):
    with pytest.raises(ActionContractError, match="does not own"):
        attempt(Node.EXECUTOR, output, {})


def test_it_numbers_a_node_without_counter_as_attempt_1_every_time():
    state = {"executor_status": "COMPLETED", "orchestration_events": [event(Node.EXECUTOR, "COMPLETED", "completed")]}

    update, _ = attempt(Node.EXECUTOR, {"executor_status": "TOOL_BLOCKED"}, state)

    assert update["orchestration_events"] == [event(Node.EXECUTOR, "TOOL_BLOCKED", "tool_blocked", 1)]


def test_it_gives_the_verified_input_a_fresh_verifier_counter():
    update, view = attempt(Node.VERIFIED_INPUT, {"verified_evidence": []}, {"verifier_retry_count": 1})

    assert view["verifier_retry_count"] == 0
    assert update == {
        "verified_executor_output": None,
        "verified_evidence": [],
        "verifier_retry_count": 0,
        "orchestration_events": [event(Node.VERIFIED_INPUT, "COMPLETED", "completed")],
    }


def test_it_prepares_the_evidence_retry_counters_and_mode():
    state = {"evidence_retry_count": 0, "planner_retry_count": 1, "planner_mode": "NORMAL"}

    update, view = attempt(Node.EVIDENCE_RETRY, {"retry_context": {"evidence_gaps": ["g"]}}, state)

    assert view["evidence_retry_count"] == 1
    assert update == {
        "retry_context": {"evidence_gaps": ["g"]},
        "evidence_retry_count": 1,
        "planner_retry_count": 0,
        "planner_mode": "EVIDENCE_GAP_ONLY",
        "orchestration_events": [event(Node.EVIDENCE_RETRY, "COMPLETED", "completed")],
    }


@pytest.mark.parametrize(
    ("events", "cause"),
    [
        ([event(Node.PLANNER, "RETRYABLE_FAILED", "model_timeout", 2)], "planner_model_timeout"),
        (
            [event(Node.PLANNER, "COMPLETED", "completed"), event(Node.GATEKEEPER, "REJECT", "reject")],
            "gatekeeper_reject",
        ),
        ([], "unknown_cause"),
    ],
)
def test_it_records_why_the_run_fell_back(events, cause):
    update, view = attempt(Node.FALLBACK, {"final_answer": "safe"}, {"orchestration_events": events})

    assert view["failure_reason"] == cause
    assert update == {
        "final_answer": "safe",
        "failure_reason": cause,
        "orchestration_events": [event(Node.FALLBACK, "COMPLETED", cause)],
    }


def test_it_names_no_verified_binding_for_an_empty_low_confidence_gatekeeper():
    update, _ = attempt(Node.GATEKEEPER, {"gatekeeper_status": "LOW_CONFID", "verified_binding_count": 0}, {})

    assert update["orchestration_events"] == [event(Node.GATEKEEPER, "LOW_CONFID", "no_verified_binding")]


def test_it_takes_the_verdict_as_the_reason_of_a_completed_verifier():
    update, _ = attempt(Node.VERIFIER, verifier("COMPLETED", "REJECT"), {})

    assert update["orchestration_events"] == [event(Node.VERIFIER, "COMPLETED", "reject")]
