"""A run's route for the admin: drawn over the whole graph topology (server-rendered SVG) and tabulated.

Every node and edge of ``diagnosis.graph.topology`` is drawn, so an auditor sees what the run did *and*
what it could have done instead. The taken edges come from the stored ``orchestration_trace`` only (the
same source as the transitions table), with how often each was taken: the self-loops are the technical
retries, the edge into ``evidence_retry`` is the evidence retry. Geometry lives here, markup in
``templates/admin/tracing/`` (auto-escaped, so a corrupt trace cannot inject markup).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import pgettext
from langgraph.graph import END, START

from diagnosis.graph.topology import CONDITIONAL_ROUTES, FIXED_EDGES, Node

BOX_WIDTH, BOX_HEIGHT = 140, 34
TERMINAL_WIDTH, TERMINAL_HEIGHT = 80, 30
WIDTH, HEIGHT = 640, 600
MAIN_X = 290
#: Centres: the happy path down the middle, the evidence retry on the left, the fallback on the right.
POSITIONS: Mapping[str, tuple[int, int]] = {
    START: (MAIN_X, 30),
    Node.PLANNER: (MAIN_X, 95),
    Node.EXECUTOR: (MAIN_X, 160),
    Node.GATEKEEPER: (MAIN_X, 225),
    Node.VERIFIED_INPUT: (MAIN_X, 290),
    Node.VERIFIER: (MAIN_X, 355),
    Node.COMPOSER: (MAIN_X, 420),
    END: (MAIN_X, 495),
    Node.EVIDENCE_RETRY: (95, 225),
    Node.FALLBACK: (530, 290),
}
TERMINAL_LABELS = {START: "START", END: "END"}


@dataclass(frozen=True)
class DrawnNode:
    key: str
    label: str
    x: int
    y: int
    width: int
    height: int
    terminal: bool
    visits: int
    classes: str

    @property
    def left(self) -> int:
        return self.x - self.width // 2

    @property
    def top(self) -> int:
        return self.y - self.height // 2

    @property
    def rx(self) -> int:
        return self.width // 2

    @property
    def ry(self) -> int:
        return self.height // 2


@dataclass(frozen=True)
class DrawnEdge:
    source: str
    target: str
    path: str
    label_x: int
    label_y: int
    count: int
    label: str
    classes: str
    title: str


@dataclass(frozen=True)
class RunPathDrawing:
    width: int
    height: int
    nodes: tuple[DrawnNode, ...]
    edges: tuple[DrawnEdge, ...]
    description: str


def topology_edges() -> list[tuple[str, str]]:
    """Every edge of the graph once, self-loops included, in a stable order."""
    edges = list(FIXED_EDGES)
    for source, routes in CONDITIONAL_ROUTES.items():
        edges.extend((source, target) for target in routes.values())
    return list(dict.fromkeys((str(source), str(target)) for source, target in edges))


def _size(key: str) -> tuple[int, int]:
    return (TERMINAL_WIDTH, TERMINAL_HEIGHT) if key in TERMINAL_LABELS else (BOX_WIDTH, BOX_HEIGHT)


def _edge_geometry(source: str, target: str) -> tuple[str, int, int]:
    """The SVG path of one edge and where its label goes, chosen by where the two nodes sit."""
    (sx, sy), (tx, ty) = POSITIONS[source], POSITIONS[target]
    (sw, sh), (tw, th) = _size(source), _size(target)
    if source == target:
        # A technical retry: a loop on the node's upper left corner.
        left, top = sx - sw // 2, sy - sh // 2
        return f"M {left + 24} {top} C {left + 24} {top - 30} {left - 34} {sy - 4} {left} {sy - 4}", left - 60, top - 8
    if sx == tx:
        start, end = sy + sh // 2, ty - th // 2
        return f"M {sx} {start} L {tx} {end}", sx + 8, (start + end) // 2 + 4
    if target == END:
        # From the side column down into the exit.
        start_y, end_x = sy + sh // 2, tx + tw // 2
        return f"M {sx} {start_y} C {sx} {ty} {sx} {ty} {end_x} {ty}", (sx + end_x) // 2 + 20, ty - 8
    if tx > sx:
        # Rightwards: into the fallback (spread along its left side) or back up from the evidence retry.
        start_x, end_x = sx + sw // 2, tx - tw // 2
        end_y = ty + max(-12, min(12, (sy - ty) // 12)) if target == Node.FALLBACK else ty + 6
        start_y = sy - 6 if source == Node.EVIDENCE_RETRY else sy
        bend = (end_x - start_x) // 2
        path = f"M {start_x} {start_y} C {start_x + bend} {start_y} {end_x - bend} {end_y} {end_x} {end_y}"
        return path, (start_x + end_x) // 2, (start_y + end_y) // 2 - 6
    start_x, end_x = sx - sw // 2, tx + tw // 2
    start_y, end_y = sy + 8, ty + 8
    bend = (start_x - end_x) // 2
    path = f"M {start_x} {start_y} C {start_x - bend} {start_y} {end_x + bend} {end_y} {end_x} {end_y}"
    # Leftwards (into the evidence retry): the label sits under the target, clear of the main column.
    return path, tx - tw // 2, ty + th // 2 + 16


def _edge_label(source: str, target: str, count: int) -> str:
    if source == target:
        return pgettext("run path", "retry ×%(count)d") % {"count": count}
    if target == Node.EVIDENCE_RETRY:
        return pgettext("run path", "evidence retry ×%(count)d") % {"count": count}
    return f"×{count}" if count > 1 else ""


def _transitions(trace: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The stored transitions; a malformed trace draws as far as it can instead of failing the page."""
    transitions = trace.get("transitions")
    if not isinstance(transitions, list):
        return []
    return [item for item in transitions if isinstance(item, Mapping)]


def _taken_edges(trace: Mapping[str, Any], *, reached_end: bool) -> Counter[tuple[str, str]]:
    taken = Counter((str(item.get("from")), str(item.get("to"))) for item in _transitions(trace))
    final_node = trace.get("final_node")
    if taken or final_node:
        taken[(START, Node.PLANNER)] += 1
    if reached_end and final_node in (Node.COMPOSER, Node.FALLBACK):
        taken[(str(final_node), END)] += 1
    return taken


def _visits(trace: Mapping[str, Any]) -> Counter[str]:
    """Attempts per node: each transition leaves one attempt, and the final node ran once more."""
    visits = Counter(str(item.get("from")) for item in _transitions(trace))
    if trace.get("final_node"):
        visits[str(trace["final_node"])] += 1
    return visits


def _terminal_visits(key: str, taken: Counter[tuple[str, str]]) -> int:
    """START counts the runs that entered the graph, END those that left it with an answer."""
    if key == START:
        return taken[(START, Node.PLANNER)]
    return sum(count for (_, target), count in taken.items() if target == END)


def _node_classes(key: str, visits: int, *, final_node: object, failed: bool) -> str:
    classes = ["node"]
    if visits:
        classes.append("visited")
    if key == Node.FALLBACK and visits:
        classes.append("degraded")
    if key == final_node:
        classes.append("final failed" if failed else "final")
    return " ".join(classes)


def _drawn_node(key: str, visits: int, *, final_node: object, failed: bool) -> DrawnNode:
    x, y = POSITIONS[key]
    width, height = _size(key)
    return DrawnNode(
        key=str(key),
        label=TERMINAL_LABELS.get(key, str(key)),
        x=x,
        y=y,
        width=width,
        height=height,
        terminal=key in TERMINAL_LABELS,
        visits=visits,
        classes=_node_classes(str(key), visits, final_node=final_node, failed=failed),
    )


def _drawn_edge(source: str, target: str, count: int) -> DrawnEdge:
    path, label_x, label_y = _edge_geometry(source, target)
    classes = ["edge"]
    if count:
        classes.append("taken")
        if Node.FALLBACK in (source, target):
            classes.append("degraded")
        if source == target or target == Node.EVIDENCE_RETRY:
            classes.append("retry")
    return DrawnEdge(
        source=source,
        target=target,
        path=path,
        label_x=label_x,
        label_y=label_y,
        count=count,
        label=_edge_label(source, target, count) if count else "",
        classes=" ".join(classes),
        title=f"{source} → {target}: "
        + (pgettext("run path", "taken %(count)d×") % {"count": count} if count else pgettext("run path", "not taken")),
    )


def run_path_drawing(trace: Mapping[str, Any] | None, *, reached_end: bool, failed: bool) -> RunPathDrawing:
    """Where the run went over the whole topology; ``trace`` may be None (the run never entered the graph).

    ``reached_end`` says whether the run left its final node for END (it finished with an answer);
    ``failed`` marks the final node as the place where a FAILED run stopped.
    """
    trace = trace if isinstance(trace, Mapping) else {}
    taken = _taken_edges(trace, reached_end=reached_end)
    visits = _visits(trace)
    final_node = trace.get("final_node")
    nodes = tuple(
        _drawn_node(
            key,
            _terminal_visits(key, taken) if key in TERMINAL_LABELS else visits[key],
            final_node=final_node,
            failed=failed,
        )
        for key in POSITIONS
    )
    edges = tuple(_drawn_edge(source, target, taken[(source, target)]) for source, target in topology_edges())
    ran = [node.label for node in nodes if node.visits and not node.terminal]
    description = pgettext("run path", "Run path: %(nodes)s; ended at %(final)s.") % {
        "nodes": ", ".join(ran) or pgettext("run path", "no node ran"),
        "final": final_node or pgettext("run path", "no node"),
    }
    return RunPathDrawing(WIDTH, HEIGHT, nodes, edges, description)


def render_run_path(trace: Mapping[str, Any] | None, *, reached_end: bool, failed: bool) -> SafeString:
    drawing = run_path_drawing(trace, reached_end=reached_end, failed=failed)
    return SafeString(render_to_string("admin/tracing/run_path.svg", {"drawing": drawing}))


def _transition_meaning(source: object, target: object) -> tuple[str, str]:
    """What a transition meant: a stable key (the row's CSS class) and its words in the reader's language."""
    if source == target:
        return "technical-retry", pgettext("run path", "technical retry")
    if target == Node.EVIDENCE_RETRY:
        return "evidence-retry", pgettext("run path", "evidence retry")
    if target == Node.FALLBACK:
        return "degraded-fallback", pgettext("run path", "degraded: fallback")
    return "", ""


def render_transitions(trace: Mapping[str, Any] | None) -> SafeString:
    """The stored transitions as a table, each with what it meant (retry, evidence retry, fallback)."""
    trace = trace if isinstance(trace, Mapping) else {}
    rows = []
    for item in _transitions(trace):
        kind, meaning = _transition_meaning(item.get("from"), item.get("to"))
        rows.append({**item, "source": item.get("from"), "kind": kind, "meaning": meaning})
    return SafeString(render_to_string("admin/tracing/transitions_table.html", {"rows": rows, "trace": trace}))
