"""The guards as pure functions: exact routes, fail-closed defaults, and no writes to the state."""

from __future__ import annotations

import copy
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diagnosis.graph.router import (
    evidence_retry_allowed,
    has_evidence_gap,
    route_after_composer,
    route_after_executor,
    route_after_gatekeeper,
    route_after_planner,
    route_after_verifier,
)
from diagnosis.graph.state import DiagnosisState
from diagnosis.graph.topology import ComposerRoute, ExecutorRoute, GatekeeperRoute, PlannerRoute, VerifierRoute

GUARDS = [
    (route_after_planner, PlannerRoute),
    (route_after_executor, ExecutorRoute),
    (route_after_gatekeeper, GatekeeperRoute),
    (route_after_verifier, VerifierRoute),
    (route_after_composer, ComposerRoute),
]
GAP = {"fact": "pool exhausted", "verification": "indirect_support"}
RETRY_READY = {
    "verifier_status": "COMPLETED",
    "effective_verdict": "LOW_CONFID",
    "verifier_verdict_ceiling": "PASS",
    "verifier_output": {"facts_checked": [GAP]},
    "evidence_retry_count": 0,
}
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.text(alphabet="ACDELOPS_ ", max_size=12),
    st.sampled_from(["COMPLETED", "PASS", "LOW_CONFID", "RETRYABLE_FAILED"]),
    st.lists(st.integers(), max_size=2),
    st.fixed_dictionaries(
        {"facts_checked": st.lists(st.one_of(st.just(GAP), st.text(alphabet="xy", max_size=3)), max_size=2)}
    ),
)


@given(state=st.dictionaries(st.sampled_from(sorted(DiagnosisState.__annotations__)), JUNK))
def test_it_routes_any_state_to_a_declared_key_without_writing_it(state):
    before = copy.deepcopy(state)

    for guard, routes in GUARDS:
        assert guard(state) in get_args(routes)

    assert state == before


@pytest.mark.parametrize("guard", [guard for guard, _ in GUARDS])
def test_it_sends_an_empty_state_to_the_fallback(guard):
    assert guard({}) == "fallback"


@pytest.mark.parametrize(
    ("state", "route"),
    [
        ({"planner_status": "COMPLETED", "planner_retry_count": 1}, "executor"),
        ({"planner_status": "INVALID_OUTPUT", "planner_retry_count": 0}, "retry_planner"),
        ({"planner_status": "RETRYABLE_FAILED", "planner_retry_count": -2}, "retry_planner"),
        ({"planner_status": "RETRYABLE_FAILED", "planner_retry_count": 1}, "fallback"),
        ({"planner_status": "NON_RETRYABLE_FAILED", "planner_retry_count": 0}, "fallback"),
    ],
)
def test_it_retries_a_planner_only_for_a_technical_failure_with_count_0(state, route):
    assert route_after_planner(state) == route


@pytest.mark.parametrize(
    ("state", "route"),
    [
        ({"gatekeeper_status": "PASS", "verified_binding_count": 0}, "verified_input"),
        ({"gatekeeper_status": "LOW_CONFID", "verified_binding_count": 1}, "verified_input"),
        ({"gatekeeper_status": "LOW_CONFID", "verified_binding_count": 0}, "fallback"),
        ({"gatekeeper_status": "LOW_CONFID", "verified_binding_count": "3"}, "fallback"),
        ({"gatekeeper_status": "REJECT", "verified_binding_count": 5}, "fallback"),
    ],
)
def test_it_lets_the_gatekeeper_through_only_with_trusted_bindings(state, route):
    assert route_after_gatekeeper(state) == route


def test_it_allows_an_evidence_retry_only_when_all_five_conditions_hold():
    assert evidence_retry_allowed(RETRY_READY)
    assert route_after_verifier(RETRY_READY) == "evidence_retry"


@pytest.mark.parametrize(
    "change",
    [
        {"verifier_status": "RETRYABLE_FAILED"},
        {"effective_verdict": "PASS"},
        {"verifier_verdict_ceiling": "LOW_CONFID"},
        {"verifier_verdict_ceiling": None},
        {"verifier_output": {"facts_checked": []}},
        {"evidence_retry_count": 1},
    ],
)
def test_it_refuses_an_evidence_retry_when_one_condition_fails(change):
    assert not evidence_retry_allowed({**RETRY_READY, **change})


@pytest.mark.parametrize(
    ("verifier_output", "expected"),
    [
        ({"facts_checked": [GAP]}, True),
        ({"facts_checked": [{"fact": "x", "verification": "no_evidence"}]}, True),
        ({"facts_checked": [{"fact": "x", "verification": "contradicted"}]}, False),
        ({"facts_checked": [{"fact": " ", "verification": "no_evidence"}]}, False),
        ({"facts_checked": [{"fact": None, "verification": "no_evidence"}]}, False),
        ({"facts_checked": ["no_evidence"]}, False),
        ({"facts_checked": {"fact": "x", "verification": "no_evidence"}}, False),
        ({}, False),
    ],
)
def test_it_finds_a_gap_only_in_a_named_fact_with_a_gap_verification(verifier_output, expected):
    assert has_evidence_gap(verifier_output) is expected


@pytest.mark.parametrize(
    ("state", "route"),
    [
        ({"verifier_status": "COMPLETED", "effective_verdict": "REJECT"}, "composer"),
        ({**RETRY_READY, "evidence_retry_count": 1}, "composer"),
        ({"verifier_status": "COMPLETED", "effective_verdict": None}, "fallback"),
        ({"verifier_status": "INVALID_OUTPUT", "verifier_retry_count": 0}, "retry_verifier"),
        ({"verifier_status": "INVALID_OUTPUT", "verifier_retry_count": 1}, "fallback"),
        ({"composer_status": "COMPLETED"}, "fallback"),
    ],
)
def test_it_routes_the_verifier_on_its_status_then_its_effective_verdict(state, route):
    assert route_after_verifier(state) == route


@pytest.mark.parametrize(
    ("state", "route"),
    [
        ({"composer_status": "COMPLETED", "composer_retry_count": 1}, "end"),
        ({"composer_status": "RETRYABLE_FAILED", "composer_retry_count": 0}, "retry_composer"),
        ({"composer_status": "RETRYABLE_FAILED", "composer_retry_count": 1}, "fallback"),
        ({"executor_status": "COMPLETED"}, "fallback"),
    ],
)
def test_it_ends_only_after_a_completed_composer(state, route):
    assert route_after_composer(state) == route


def test_it_never_retries_the_executor():
    assert route_after_executor({"executor_status": "COMPLETED"}) == "gatekeeper"
    for status in ["INVALID_OUTPUT", "TOOL_BLOCKED", "FAILED", "RETRYABLE_FAILED"]:
        assert route_after_executor({"executor_status": status}) == "fallback"
