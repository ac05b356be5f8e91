"""Trace API latency as history grows: p50/p95 of ``GET /api/diagnosis/{session}/trace?runId=`` at several
sizes of the ``tool_invocation`` table (10 000 and 1 000 000 rows by default).

A few real offline runs are made on a throw-away SQLite database; then copies of a finished run (its log,
steps and invocations; ``bench/history.py``) are added until the table holds each size, and the real runs'
traces are read through Django's test client (the whole DRF view, serializers and queries, no network).

    .venv/bin/python bench/trace_api.py [--requests N] [--sizes 10000,1000000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    # Run as a script: make the project root importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.embedded import add_pack_argument, p95, prepare, questions, setup_django, sizes, table

MEASURED_RUNS = 3


def make_runs(user: Any, pack: str) -> list[Any]:
    from diagnosis.execution import run_execute
    from diagnosis.submission import run_create

    asked = questions(pack)
    runs = [
        run_execute(run_create(user=user, message=asked[i % len(asked)]).pk, worker="bench")
        for i in range(MEASURED_RUNS)
    ]
    return [run for run in runs if run is not None]


def time_requests(client: Any, runs: list[Any], requests: int) -> list[float]:
    samples = []
    for index in range(requests):
        run = runs[index % len(runs)]
        started = time.perf_counter()
        response = client.get(f"/api/diagnosis/{run.session_id}/trace?runId={run.pk}")
        samples.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.content
    return samples


def invocation_rows() -> int:
    from tools.models import ToolInvocation

    return ToolInvocation.objects.count()


def measure(sizes: list[int], requests: int, pack: str) -> list[tuple[int, list[float]]]:
    from django.test import Client

    from bench.history import add_prior_runs

    user = prepare(pack)
    runs = make_runs(user, pack)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    time_requests(client, runs, 5)  # warm-up
    per_run = runs[-1].tool_invocations.count()
    results = []
    for size in sizes:
        missing = size - invocation_rows()
        if missing > 0:
            add_prior_runs(runs[-1].pk, -(-missing // per_run), store_entries=False)
        results.append((invocation_rows(), time_requests(client, runs, requests)))
    return results


def format_report(results: list[tuple[int, list[float]]]) -> str:
    base = p95(results[0][1])
    rows = [
        [
            f"{rows:,}",
            len(samples),
            f"{statistics.median(samples):.1f}",
            f"{p95(samples):.1f}",
            f"{p95(samples) / base:.2f}x",
        ]
        for rows, samples in results
    ]
    return table(["tool_invocation rows", "requests", "p50 ms", "p95 ms", "p95 vs smallest"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100, help="trace reads per size (default 100)")
    parser.add_argument(
        "--sizes", type=sizes, default=[10_000, 1_000_000], help="tool_invocation rows (default 10000,1000000)"
    )
    add_pack_argument(parser)
    args = parser.parse_args(argv)
    if args.requests < 2:
        parser.error("--requests must be at least 2")
    if not args.sizes:
        parser.error("--sizes needs at least one size")
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-") as var_dir:
        setup_django(var_dir)
        print(format_report(measure(args.sizes, args.requests, args.pack)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
