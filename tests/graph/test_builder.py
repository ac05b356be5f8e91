from __future__ import annotations

import pytest

from diagnosis.graph.builder import build_graph
from diagnosis.graph.topology import Node
from tests.graph.fakes import ScriptedActions

# Seed 002 §5, written out rather than read from topology so that a wrong table fails here.
EXPECTED_EDGES = {
    ("__start__", "planner", False),
    ("planner", "executor", True),
    ("planner", "planner", True),
    ("planner", "fallback", True),
    ("executor", "gatekeeper", True),
    ("executor", "fallback", True),
    ("gatekeeper", "verified_input", True),
    ("gatekeeper", "fallback", True),
    ("verified_input", "verifier", False),
    ("verifier", "composer", True),
    ("verifier", "verifier", True),
    ("verifier", "evidence_retry", True),
    ("verifier", "fallback", True),
    ("evidence_retry", "planner", False),
    ("composer", "__end__", True),
    ("composer", "composer", True),
    ("composer", "fallback", True),
    ("fallback", "__end__", False),
}


def test_it_wires_exactly_the_edges_of_the_seed():
    drawn = build_graph(ScriptedActions().port()).get_graph()

    assert {(edge.source, edge.target, edge.conditional) for edge in drawn.edges} == EXPECTED_EDGES
    assert set(drawn.nodes) == {"__start__", *(node.value for node in Node), "__end__"}


def test_it_compiles_with_the_recursion_limit_and_no_checkpointer():
    compiled = build_graph(ScriptedActions().port())

    assert compiled.config["recursion_limit"] == 32
    assert compiled.checkpointer is None


def test_it_builds_a_fresh_graph_each_time():
    actions = ScriptedActions().port()

    assert build_graph(actions) is not build_graph(actions)


def test_it_refuses_anything_but_the_actions_port():
    with pytest.raises(TypeError, match="needs DiagnosisActions, got dict"):
        build_graph({"planner": print})
