from __future__ import annotations

from typing import get_args

from langgraph.graph import END

from diagnosis.graph.status import ExecutorStatus, GatekeeperStatus, StageStatus, Verdict
from diagnosis.graph.topology import (
    CONDITIONAL_ROUTES,
    ComposerRoute,
    ExecutorRoute,
    GatekeeperRoute,
    Node,
    PlannerRoute,
    ReasonCode,
    VerifierRoute,
)


def test_it_names_the_eight_nodes():
    assert [node.value for node in Node] == [
        "planner",
        "executor",
        "gatekeeper",
        "verified_input",
        "verifier",
        "evidence_retry",
        "composer",
        "fallback",
    ]


def test_it_maps_every_route_key_of_seed_002_and_no_other():
    expected = {
        Node.PLANNER: {"executor", "retry_planner", "fallback"},
        Node.EXECUTOR: {"gatekeeper", "fallback"},
        Node.GATEKEEPER: {"verified_input", "fallback"},
        Node.VERIFIER: {"composer", "retry_verifier", "evidence_retry", "fallback"},
        Node.COMPOSER: {"end", "retry_composer", "fallback"},
    }
    literals = {
        Node.PLANNER: PlannerRoute,
        Node.EXECUTOR: ExecutorRoute,
        Node.GATEKEEPER: GatekeeperRoute,
        Node.VERIFIER: VerifierRoute,
        Node.COMPOSER: ComposerRoute,
    }

    assert {source: set(routes) for source, routes in CONDITIONAL_ROUTES.items()} == expected
    assert {source: set(get_args(literal)) for source, literal in literals.items()} == expected
    assert CONDITIONAL_ROUTES[Node.COMPOSER]["end"] == END


def test_it_has_a_reason_code_for_every_status_and_verdict():
    statuses = [*StageStatus, *ExecutorStatus, *GatekeeperStatus, *Verdict]

    assert {status.lower() for status in statuses} <= {code.value for code in ReasonCode}
