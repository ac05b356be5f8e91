"""``build_graph``: the topology of seed 002 §5 over the wrapped actions, compiled with the step bound.

Topology only: which node follows which is in ``topology``, the guards in ``router``, counters and events
in ``wrappers``. A fresh compiled graph per call; it holds no run data and no checkpointer, so one
compiled graph may serve many runs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from langgraph.graph import StateGraph
from langgraph.graph.state import CompiledStateGraph

from diagnosis.graph.actions import DiagnosisActions
from diagnosis.graph.router import (
    route_after_composer,
    route_after_executor,
    route_after_gatekeeper,
    route_after_planner,
    route_after_verifier,
)
from diagnosis.graph.state import DiagnosisState
from diagnosis.graph.topology import CONDITIONAL_ROUTES, FIXED_EDGES, RECURSION_LIMIT, Node
from diagnosis.graph.wrappers import wrap_action

GUARDS: Mapping[Node, Callable[[Mapping[str, Any]], str]] = {
    Node.PLANNER: route_after_planner,
    Node.EXECUTOR: route_after_executor,
    Node.GATEKEEPER: route_after_gatekeeper,
    Node.VERIFIER: route_after_verifier,
    Node.COMPOSER: route_after_composer,
}


DiagnosisGraph = CompiledStateGraph[DiagnosisState, Any, DiagnosisState, DiagnosisState]


def build_graph(actions: DiagnosisActions, *, context_schema: type[Any] | None = None) -> DiagnosisGraph:
    """``context_schema``: the type of the per-run context the actions read from LangGraph's runtime."""
    if not isinstance(actions, DiagnosisActions):
        raise TypeError(f"build_graph needs DiagnosisActions, got {type(actions).__name__}")
    graph = StateGraph(DiagnosisState, context_schema=context_schema)
    for node in Node:
        graph.add_node(node.value, wrap_action(node, actions.for_node(node)))
    for source, target in FIXED_EDGES:
        graph.add_edge(source, target)
    for source, guard in GUARDS.items():
        path_map: dict[Hashable, str] = {key: target for key, target in CONDITIONAL_ROUTES[source].items()}
        graph.add_conditional_edges(source.value, guard, path_map)
    # Baked into the compiled graph so that even a bare invoke is bounded; run_graph passes it again.
    return graph.compile().with_config(recursion_limit=RECURSION_LIMIT)
