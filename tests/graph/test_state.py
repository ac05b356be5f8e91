from __future__ import annotations

import operator
from typing import Annotated, get_args, get_origin, get_type_hints

import pytest

from diagnosis.graph.state import (
    DiagnosisState,
    initial_state,
    read_count,
    read_enum,
    read_events,
    read_mapping,
    read_planner_mode,
    read_text,
)
from diagnosis.graph.status import PlannerMode, StageStatus

# Seed 000 §2, in the seed's order.
SEED_KEYS = [
    "diagnosis_context",
    "planner_plan",
    "planner_status",
    "planner_retry_count",
    "planner_mode",
    "executor_output",
    "executor_status",
    "gatekeeper_result",
    "gatekeeper_status",
    "verified_executor_output",
    "verified_evidence",
    "verified_binding_count",
    "verifier_verdict_ceiling",
    "verifier_output",
    "verifier_status",
    "verifier_retry_count",
    "verifier_model_verdict",
    "effective_verdict",
    "composer_output",
    "composer_status",
    "composer_retry_count",
    "evidence_retry_count",
    "retry_context",
    "orchestration_events",
    "final_answer",
    "failure_reason",
]


def test_it_has_exactly_the_26_keys_of_the_seed():
    assert len(SEED_KEYS) == 26
    assert list(DiagnosisState.__annotations__) == SEED_KEYS


def test_it_appends_only_the_orchestration_events():
    hints = get_type_hints(DiagnosisState, include_extras=True)
    reduced = {key for key, hint in hints.items() if get_origin(hint) is Annotated}

    assert reduced == {"orchestration_events"}
    assert get_args(hints["orchestration_events"])[1] is operator.add


@pytest.mark.parametrize("value", [None, 3, ["COMPLETED"], "DONE", "completed"])
def test_it_reads_an_absent_or_unknown_status_as_none(value):
    assert read_enum({"planner_status": value}, "planner_status", StageStatus) is None
    assert read_enum({}, "planner_status", StageStatus) is None


def test_it_reads_a_known_status_as_its_member():
    assert read_enum({"planner_status": "RETRYABLE_FAILED"}, "planner_status", StageStatus) is (
        StageStatus.RETRYABLE_FAILED
    )


@pytest.mark.parametrize(("value", "expected"), [(2, 2), (0, 0), (-4, 0), (True, 0), ("1", 0), (None, 0), (1.0, 0)])
def test_it_reads_a_counter_as_a_non_negative_int(value, expected):
    assert read_count({"planner_retry_count": value}, "planner_retry_count") == expected


def test_it_reads_mappings_text_and_events_with_safe_defaults():
    broken = {"verifier_output": ["x"], "failure_reason": 7, "orchestration_events": "planner"}

    assert read_mapping(broken, "verifier_output") == {}
    assert read_text(broken, "failure_reason") == ""
    assert read_events(broken) == []
    assert read_events({"orchestration_events": [{"node": "planner"}, "junk"]}) == [{"node": "planner"}]
    assert read_mapping({"verifier_output": {"verdict": "PASS"}}, "verifier_output") == {"verdict": "PASS"}
    assert read_text({"failure_reason": "gatekeeper_reject"}, "failure_reason") == "gatekeeper_reject"


@pytest.mark.parametrize(
    ("value", "expected"),
    [("EVIDENCE_GAP_ONLY", PlannerMode.EVIDENCE_GAP_ONLY), ("gap", PlannerMode.NORMAL), (None, PlannerMode.NORMAL)],
)
def test_it_reads_the_planner_mode_defaulting_to_normal(value, expected):
    assert read_planner_mode({"planner_mode": value}) is expected


def test_it_starts_a_run_with_every_key_zero_counters_and_normal_mode():
    context = {"query": "why is p99 up?", "history": [], "session_id": "s", "run_id": "r"}

    state = initial_state(context)

    assert list(state) == SEED_KEYS
    assert state["diagnosis_context"] == context and state["diagnosis_context"] is not context
    counters = ["planner_retry_count", "verifier_retry_count", "composer_retry_count", "evidence_retry_count"]
    assert [state[key] for key in counters] == [0, 0, 0, 0]
    assert (state["planner_mode"], state["orchestration_events"], state["verified_binding_count"]) == ("NORMAL", [], 0)
    others = set(SEED_KEYS) - {
        *counters,
        "diagnosis_context",
        "planner_mode",
        "orchestration_events",
        "verified_binding_count",
    }
    assert {key: state[key] for key in others} == dict.fromkeys(others)


@pytest.mark.parametrize(
    ("context", "error"),
    [(["query"], TypeError), ({}, ValueError), ({"query": "  "}, ValueError), ({"query": 5}, ValueError)],
)
def test_it_refuses_a_context_without_a_query(context, error):
    with pytest.raises(error, match="diagnosis_context"):
        initial_state(context)
