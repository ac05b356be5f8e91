"""The graph floor: the cost of one diagnosis run through the compiled graph with no-op actions.

Everything later benchmarks measure (real nodes, tools, the chat path) sits on top of this, so they
compare against ``measure_floor()``. Two paths: the happy path (6 node attempts) and the evidence-retry
path (12). Each is timed through ``run_graph`` (what production calls: streams to keep partial events)
and through a bare ``invoke`` (LangGraph alone), so the runner's own overhead is visible too.

    .venv/bin/python bench/graph_floor.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    # Run as a script: make the project root importable (it needs no Django set-up).
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from diagnosis.graph.actions import DiagnosisActions
from diagnosis.graph.builder import DiagnosisGraph, build_graph
from diagnosis.graph.runner import run_config, run_graph
from diagnosis.graph.state import DiagnosisState, initial_state
from diagnosis.graph.topology import Node

GAP_FACTS = [{"claim_id": "c1", "fact": "pool exhausted", "verification": "no_evidence"}]
VERIFIER_OUTPUTS: Mapping[str, dict[str, Any]] = {
    "happy": {"verifier_status": "COMPLETED", "effective_verdict": "PASS"},
    # LOW_CONFID with a gap: one evidence retry, then (retry used) the composer.
    "evidence_retry": {
        "verifier_status": "COMPLETED",
        "effective_verdict": "LOW_CONFID",
        "verifier_output": {"facts_checked": GAP_FACTS},
    },
}
NOOP_OUTPUTS: Mapping[Node, dict[str, Any]] = {
    Node.PLANNER: {"planner_status": "COMPLETED"},
    Node.EXECUTOR: {"executor_status": "COMPLETED"},
    Node.GATEKEEPER: {"gatekeeper_status": "PASS", "verified_binding_count": 1, "verifier_verdict_ceiling": "PASS"},
    Node.VERIFIED_INPUT: {},
    Node.EVIDENCE_RETRY: {},
    Node.COMPOSER: {"composer_status": "COMPLETED", "final_answer": "answer"},
    Node.FALLBACK: {"final_answer": "fallback"},
}


@dataclass(frozen=True)
class Floor:
    path: str
    entry: str
    node_attempts: int
    median_ms: float
    p95_ms: float


def noop_actions(verifier_output: Mapping[str, Any]) -> DiagnosisActions:
    outputs = {**NOOP_OUTPUTS, Node.VERIFIER: dict(verifier_output)}
    return DiagnosisActions(**{node.value: _constant(outputs[node]) for node in Node})


def _constant(output: dict[str, Any]) -> Callable[[Any, Any], dict[str, Any]]:
    return lambda state, config: output


def _timed(run: Callable[[], Mapping[str, Any]], runs: int, warmup: int) -> tuple[list[float], int]:
    for _ in range(warmup):
        run()
    samples = []
    attempts = 0
    for _ in range(runs):
        started = time.perf_counter()
        final = run()
        samples.append((time.perf_counter() - started) * 1000)
        attempts = len(final["orchestration_events"])
    return samples, attempts


def _entries(graph: DiagnosisGraph, state: DiagnosisState) -> dict[str, Callable[[], Mapping[str, Any]]]:
    return {
        "run_graph": lambda: run_graph(graph, state, run_id="bench"),
        "invoke": lambda: graph.invoke(state, run_config("bench")),
    }


def measure_floor(runs: int = 200, warmup: int = 20) -> list[Floor]:
    """Median and p95 wall time in ms of one run per path and entry point."""
    if runs < 2:
        raise ValueError("runs must be at least 2 to estimate a p95")
    floors = []
    state = initial_state({"query": "why is p99 up?"})
    for path, verifier_output in VERIFIER_OUTPUTS.items():
        for entry, run in _entries(build_graph(noop_actions(verifier_output)), state).items():
            samples, attempts = _timed(run, runs, warmup)
            p95 = statistics.quantiles(samples, n=20, method="inclusive")[-1]
            floors.append(Floor(path, entry, attempts, statistics.median(samples), p95))
    return floors


def format_table(floors: list[Floor]) -> str:
    header = f"{'path':<16}{'entry':<11}{'nodes':>6}{'median ms':>11}{'p95 ms':>9}"
    rows = [f"{f.path:<16}{f.entry:<11}{f.node_attempts:>6}{f.median_ms:>11.2f}{f.p95_ms:>9.2f}" for f in floors]
    return "\n".join([header, "-" * len(header), *rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="timed runs per path and entry (default 200)")
    args = parser.parse_args(argv)
    if args.runs < 2:
        parser.error("--runs must be at least 2 (a p95 needs two samples)")
    print(format_table(measure_floor(runs=args.runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
