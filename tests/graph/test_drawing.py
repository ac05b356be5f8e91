"""The run path drawing: the whole topology every time, the taken edges and retries from the trace only."""

from __future__ import annotations

from django.utils import translation
from langgraph.graph import END, START

from diagnosis.graph.drawing import render_run_path, render_transitions, run_path_drawing, topology_edges
from diagnosis.graph.topology import CONDITIONAL_ROUTES, FIXED_EDGES, Node
from tests.tracing.factories import FAILED_TRACE, FALLBACK_TRACE, HAPPY_TRACE, RETRIED_TRACE

HAPPY_PATH = [
    (START, "planner"),
    ("planner", "executor"),
    ("executor", "gatekeeper"),
    ("gatekeeper", "verified_input"),
    ("verified_input", "verifier"),
    ("verifier", "composer"),
    ("composer", END),
]


def taken(drawing) -> dict[tuple[str, str], int]:
    return {(edge.source, edge.target): edge.count for edge in drawing.edges if edge.count}


def test_it_draws_every_node_and_every_edge_of_the_topology():
    drawing = run_path_drawing(None, reached_end=False, failed=False)
    expected_edges = {(str(s), str(t)) for s, t in FIXED_EDGES} | {
        (str(source), str(target)) for source, routes in CONDITIONAL_ROUTES.items() for target in routes.values()
    }

    assert {node.key for node in drawing.nodes} == {*map(str, Node), START, END}
    assert {(edge.source, edge.target) for edge in drawing.edges} == expected_edges
    assert len(drawing.edges) == len(expected_edges) == len(topology_edges())
    assert taken(drawing) == {}


def test_it_highlights_exactly_the_happy_path():
    drawing = run_path_drawing(HAPPY_TRACE, reached_end=True, failed=False)

    assert taken(drawing) == dict.fromkeys(HAPPY_PATH, 1)
    assert [node.key for node in drawing.nodes if "final" in node.classes] == ["composer"]
    assert not [node for node in drawing.nodes if "degraded" in node.classes]


def test_it_counts_technical_retries_and_the_evidence_retry():
    drawing = run_path_drawing(RETRIED_TRACE, reached_end=True, failed=False)
    edges = {(edge.source, edge.target): edge for edge in drawing.edges}

    assert taken(drawing)[("planner", "planner")] == 1
    assert taken(drawing)[("verifier", "verifier")] == 1
    assert taken(drawing)[("planner", "executor")] == 2
    assert edges[("verifier", "evidence_retry")].label == "evidence retry ×1"
    assert edges[("planner", "planner")].label == "retry ×1"
    assert "retry" in edges[("verifier", "verifier")].classes
    assert ("composer", "composer") not in taken(drawing)
    assert {node.key: node.visits for node in drawing.nodes}["planner"] == 3


def test_it_colours_the_fallback_path_as_degraded():
    drawing = run_path_drawing(FALLBACK_TRACE, reached_end=True, failed=False)
    nodes = {node.key: node for node in drawing.nodes}

    assert taken(drawing) == {
        (START, "planner"): 1,
        ("planner", "executor"): 1,
        ("executor", "fallback"): 1,
        ("fallback", END): 1,
    }
    assert all("degraded" in edge.classes for edge in drawing.edges if edge.count and "fallback" in edge.title)
    assert "degraded" in nodes["fallback"].classes and "final" in nodes["fallback"].classes


def test_it_stops_a_failed_run_at_its_failed_node():
    drawing = run_path_drawing(FAILED_TRACE, reached_end=False, failed=True)
    nodes = {node.key: node for node in drawing.nodes}

    assert "failed" in nodes["gatekeeper"].classes
    assert (("executor", "gatekeeper"), 1) in taken(drawing).items()
    assert not [edge for edge in drawing.edges if edge.target == END and edge.count]


def test_it_renders_svg_with_the_taken_edges_marked():
    svg = render_run_path(RETRIED_TRACE, reached_end=True, failed=False)

    assert svg.startswith("<svg")
    assert 'class="edge taken retry" data-from="verifier" data-to="evidence_retry" data-count="1"' in svg
    assert 'class="edge" data-from="executor" data-to="fallback" data-count="0"' in svg
    assert 'data-node="composer"' in svg and "evidence retry ×1" in svg


def test_it_escapes_whatever_a_corrupt_trace_holds():
    trace = {
        "transitions": [
            {"from": "<b>planner</b>", "to": "executor", "reason_code": "<script>x</script>", "attempt": 1}
        ],
        "final_node": "<img src=x>",
        "termination_reason": "<i>why</i>",
    }

    svg = render_run_path(trace, reached_end=True, failed=False)
    table = render_transitions(trace)

    assert "<script>" not in table and "&lt;script&gt;" in table
    assert "<img" not in svg and "<i>" not in table


def test_it_tabulates_transitions_with_their_meaning():
    table = render_transitions(RETRIED_TRACE)

    assert table.count("<tr class=") == len(RETRIED_TRACE["transitions"])
    assert 'class="technical-retry"' in table
    assert 'class="evidence-retry"' in table
    assert "composer_completed" in table


def test_it_says_when_there_is_no_transition():
    assert "did not enter the graph" in render_transitions(None)


def test_it_draws_a_malformed_trace_as_far_as_it_can():
    trace = {"transitions": "planner->executor", "final_node": "planner"}

    drawing = run_path_drawing(trace, reached_end=False, failed=True)

    assert taken(drawing) == {(START, "planner"): 1}
    assert "did not enter the graph" in render_transitions(trace)


def test_it_draws_and_tabulates_in_the_readers_language():
    with translation.override("zh-hans"):
        svg = render_run_path(RETRIED_TRACE, reached_end=True, failed=False)
        table = render_transitions(RETRIED_TRACE)

    assert "运行路径：" in svg and "证据重试 ×1" in svg and "未到达" in svg and "未走" in svg
    assert "not reached" not in svg and "Run path" not in svg and "走过 1 次" in svg
    # The rows keep their classes (the page's colours) whatever the language; their words are translated.
    assert '<tr class="technical-retry">' in table and "技术重试" in table
