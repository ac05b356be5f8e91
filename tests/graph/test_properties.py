"""Termination and event properties over any sequence of node outcomes, and the longest legal path."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.graph.actions import DiagnosisActions, NodeAction
from diagnosis.graph.builder import build_graph
from diagnosis.graph.runner import run_graph
from diagnosis.graph.state import initial_state
from diagnosis.graph.topology import RECURSION_LIMIT, Node
from tests.graph.fakes import (
    COMPOSER_ANSWER,
    ER,
    FALLBACK_ANSWER,
    GAP_FACT,
    HAPPY_OUTPUTS,
    VI,
    C,
    E,
    F,
    G,
    P,
    V,
    composer,
    executor,
    gatekeeper,
    low_confid_with_gap,
    planner,
    run_scripted,
    verifier,
)

# Every status of every node, plus values no node defines: the graph must fail closed on them.
STATUSES = st.sampled_from(
    [
        *("COMPLETED", "INVALID_OUTPUT", "RETRYABLE_FAILED", "NON_RETRYABLE_FAILED", "TOOL_BLOCKED", "FAILED"),
        *("PASS", "LOW_CONFID", "REJECT", "", "completed"),
    ]
)
VERDICTS = st.sampled_from(["PASS", "LOW_CONFID", "REJECT", None, "MAYBE"])
FACTS = st.sampled_from(
    [
        GAP_FACT,
        {**GAP_FACT, "verification": "indirect_support"},
        {**GAP_FACT, "verification": "supported"},
        {**GAP_FACT, "fact": ""},
        "not a fact",
    ]
)
OUTCOMES: Mapping[str, st.SearchStrategy[dict[str, Any]]] = {
    "planner": STATUSES.map(planner) | st.just({}),
    "executor": STATUSES.map(executor),
    "gatekeeper": st.builds(gatekeeper, STATUSES, bindings=st.integers(0, 2), ceiling=VERDICTS),
    "verifier": st.builds(verifier, STATUSES, VERDICTS, facts=st.lists(FACTS, max_size=2)),
    "composer": STATUSES.map(composer),
}
SCRIPTS = st.fixed_dictionaries({node: st.lists(outcome, max_size=5) for node, outcome in OUTCOMES.items()})

#: The longest legal path: a technical retry in every retrying stage, one evidence retry, then the fallback.
LONGEST_PATH = [P, P, E, G, VI, V, V, ER, P, P, E, G, VI, V, V, C, C, F]


@settings(max_examples=200, deadline=None)
@given(scripts=SCRIPTS)
def test_it_ends_every_run_with_one_event_per_attempt_and_an_answer(scripts):
    # run_scripted raises (GraphRunError from GraphRecursionError) if the run does not end in the limit.
    run = run_scripted(**scripts)

    events = run.state["orchestration_events"]
    assert [e["node"] for e in events] == [node.value for node in run.actions.sequence]
    assert all(e["attempt"] in (1, 2) for e in events)
    last = events[-1]["node"]
    assert last in {"composer", "fallback"}
    assert run.state["final_answer"] == (COMPOSER_ANSWER if last == "composer" else FALLBACK_ANSWER)
    assert len(events) + 1 <= RECURSION_LIMIT
    assert run.trace.degraded is (last == "fallback")


# One outcome per route class of each node: outcomes of one class take the same edge (the matrix tests
# show it), so exploring these explores every path through the graph.
ROUTE_CLASSES: Mapping[Node, list[dict[str, Any]]] = {
    P: [planner("COMPLETED"), planner("RETRYABLE_FAILED"), planner("NON_RETRYABLE_FAILED")],
    E: [executor("COMPLETED"), executor("FAILED")],
    G: [gatekeeper("PASS"), gatekeeper("REJECT", bindings=0)],
    VI: [HAPPY_OUTPUTS[VI]],
    V: [
        verifier("COMPLETED", "PASS"),
        low_confid_with_gap(),
        verifier("RETRYABLE_FAILED", None),
        verifier("NON_RETRYABLE_FAILED", None),
    ],
    ER: [HAPPY_OUTPUTS[ER]],
    C: [composer("COMPLETED"), composer("RETRYABLE_FAILED"), composer("NON_RETRYABLE_FAILED")],
    F: [HAPPY_OUTPUTS[F]],
}


class ChoiceActions:
    """Attempt *i* returns option ``choices[i]`` of its node's route classes (0 past the end)."""

    def __init__(self) -> None:
        self.start([])

    def start(self, choices: list[int]) -> None:
        self.choices = choices
        self.taken: list[int] = []
        self.widths: list[int] = []
        self.nodes: list[Node] = []

    def _action(self, node: Node) -> NodeAction:
        def act(state: Any, config: Any) -> dict[str, Any]:
            position = len(self.taken)
            pick = self.choices[position] if position < len(self.choices) else 0
            self.taken.append(pick)
            self.widths.append(len(ROUTE_CLASSES[node]))
            self.nodes.append(node)
            return ROUTE_CLASSES[node][pick]

        return act

    def port(self) -> DiagnosisActions:
        return DiagnosisActions(**{node.value: self._action(node) for node in Node})


def explore_paths() -> list[list[Node]]:
    """Every path the compiled graph can take: depth-first over the choice made at each attempt."""
    actions = ChoiceActions()
    graph = build_graph(actions.port())
    paths: list[list[Node]] = []
    pending: list[list[int]] = [[]]
    while pending:
        prefix = pending.pop()
        actions.start(prefix)
        state = run_graph(graph, initial_state({"query": "q"}), run_id=f"explore-{len(paths)}")
        assert len(state["orchestration_events"]) == len(actions.nodes)
        paths.append(actions.nodes)
        for position in range(len(prefix), len(actions.taken)):
            for alternative in range(1, actions.widths[position]):
                pending.append([*actions.taken[:position], alternative])
    return paths


def test_it_keeps_the_longest_legal_path_under_20_node_executions():
    paths = explore_paths()

    longest = max(len(path) for path in paths)
    assert longest == len(LONGEST_PATH) == 18
    assert LONGEST_PATH in paths
    assert all(path[-1] in (C, F) for path in paths)
    # LangGraph counts one step more than node executions; the limit is a guard, never reached.
    assert longest + 1 < RECURSION_LIMIT
