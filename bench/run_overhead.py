"""Run overhead: N offline diagnoses in-process, through the run service the Celery task calls.

Each run goes through intent routing, the claim, the graph with the real nodes, the tools, the gatekeeper
and persistence, on a throw-away SQLite database with a shipped pack loaded. It prints p50/p95 wall time
and database queries per run, next to the graph floor (no-op nodes) measured in the same process, so the
cost of everything above the graph engine is visible, as a ratio that a busy machine does not distort.

With ``--history``, the same runs are timed again with that many prior runs in the database (copies of a
finished run: its log, invocations, steps and store entries; ``bench/history.py``), to show that a run's
cost does not grow with the history. Each size has its own copy of the database, and the runs go to each in
turn (one on the empty database, one at 10 000, one at 100 000, then the next): this machine's speed moves by
a third from one minute to the next, and sizes timed one after the other compared minutes, not sizes.

With ``--by-kind``, it also prints where the statements of a run went: their mean count per run by statement
and table (``INSERT diagnosis_trace_event``, ``BEGIN``...), and how long a run spends inside them.

With ``--by-part``, it also prints where the time of the runs on the empty database went, by part: the
run's own work (tool handlers and projections, the model's turns, the gatekeeper, the release review, the
rendering) against everything else (``bench/parts.py``), each part in ms per run and against the floor.

With ``--profile FILE``, the timed runs on the empty database are also profiled (``cProfile``, the
floor timings left out) and the statistics written to ``FILE`` for ``python -m pstats``; profiled runs
are slower, so their ratio is not the figure to quote.

    .venv/bin/python bench/run_overhead.py [--runs N] [--pack NAME] [--history 10000,100000] [--by-kind] [--by-part] [--profile FILE]
"""

from __future__ import annotations

import argparse
import cProfile
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from contextlib import closing, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    # Run as a script: make the project root importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.embedded import add_pack_argument, p95, prepare, questions, setup_django, sizes, table
from bench.parts import PartClock


@dataclass(frozen=True)
class RunSample:
    ms: float
    queries: int
    outcome: str
    floor_ms: float
    """The graph floor (happy path through ``run_graph``, median of a few) timed right after this run."""
    kinds: Counter[str]
    """The run's statements by kind (``_kind``)."""
    sql_ms: float
    """Time spent inside the run's statements (the driver's execute, commits not included)."""


@dataclass(frozen=True)
class SizeResult:
    prior_runs: int
    samples: list[RunSample]


def measure_runs(
    user: Any, runs: int, pack: str, profiler: cProfile.Profile | None = None, *, first: int = 0
) -> list[RunSample]:
    """``runs`` diagnoses of the pack's questions in turn, from its question number ``first``."""
    from django.db import connection

    from diagnosis.execution import run_execute
    from diagnosis.submission import run_create

    asked = questions(pack)
    floor = happy_floor()
    samples = []
    for index in range(runs):
        # Every statement the run sends, transaction control included (Django's query log caps at 9 000).
        statements = _Statements()
        with connection.execute_wrapper(statements):
            if profiler is not None:
                profiler.enable()
            started = time.perf_counter()
            created = run_create(user=user, message=asked[(first + index) % len(asked)])
            run = run_execute(created.pk, worker="bench")
            elapsed = (time.perf_counter() - started) * 1000
            if profiler is not None:
                profiler.disable()
        assert run is not None, "a run just created is not claimed by anyone else"
        samples.append(
            RunSample(elapsed, statements.count, run.outcome, floor(), statements.kinds, statements.seconds * 1000)
        )
    return samples


def happy_floor(repeat: int = 5) -> Callable[[], float]:
    """A timer of the graph floor, to interleave with the runs: on a shared machine the load changes
    from one second to the next, and a ratio of times taken at the same moments is what holds."""
    from bench.graph_floor import VERIFIER_OUTPUTS, noop_actions
    from diagnosis.graph.builder import build_graph
    from diagnosis.graph.runner import run_graph
    from diagnosis.graph.state import initial_state

    graph = build_graph(noop_actions(VERIFIER_OUTPUTS["happy"]))
    state = initial_state({"query": "why is p99 up?"})

    def measure() -> float:
        samples = []
        for _ in range(repeat):
            started = time.perf_counter()
            run_graph(graph, state, run_id="bench")
            samples.append((time.perf_counter() - started) * 1000)
        return statistics.median(samples)

    return measure


class _Statements:
    """A ``connection.execute_wrapper`` that counts the statements sent, in all and by kind, and times them."""

    def __init__(self) -> None:
        self.count = 0
        self.kinds: Counter[str] = Counter()
        self.seconds = 0.0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.count += 1
        self.kinds[_kind(sql)] += 1
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started


_TABLE = re.compile(r"\b(?:FROM|INTO|UPDATE)\s+[`\"]?(\w+)", re.IGNORECASE)


def _kind(sql: str) -> str:
    """A statement's verb and first table: ``SELECT log_record``, ``INSERT tool_invocation``, ``BEGIN``."""
    verb = sql.split(None, 1)[0].upper() if sql.strip() else "?"
    table_name = _TABLE.search(sql)
    return f"{verb} {table_name.group(1)}" if table_name and verb in ("SELECT", "INSERT", "UPDATE", "DELETE") else verb


def format_kinds(samples: list[RunSample]) -> str:
    """Statements per run by kind (mean over ``samples``), most first."""
    total: Counter[str] = Counter()
    for sample in samples:
        total.update(sample.kinds)
    rows = [(kind, f"{count / len(samples):.1f}") for kind, count in total.most_common()]
    rows.append(("all", f"{sum(total.values()) / len(samples):.1f}"))
    sql_ms = statistics.median(sample.sql_ms for sample in samples)
    run_ms = statistics.median(sample.ms for sample in samples)
    return (
        f"{table(['statement', 'per run'], rows)}\n"
        f"time inside the statements (commits not included): p50 {sql_ms:.1f} ms per run, of a p50 run of {run_ms:.1f} ms"
    )


def measure_sizes(
    runs: int, pack: str, history: list[int], profiler: cProfile.Profile | None = None, clock: PartClock | None = None
) -> list[SizeResult]:
    """The runs on the empty database (profiled, or their parts timed, when given a profiler or a clock) and
    on a copy of it holding each size of history, one run on each database in turn."""
    from bench.history import add_prior_runs

    user = prepare(pack)
    measure_runs(user, 2, pack)  # warm-up: imports, compiled graph, first-use caches
    databases = {0: _database()}
    template, present = _last_run_id(), 0
    for size in history:
        databases[size] = _copy_database(f"{databases[0]}.{size}")  # of the previous size's
        add_prior_runs(template, size - present)
        present = size
    samples: dict[int, list[RunSample]] = {size: [] for size in databases}
    for index in range(runs):
        for size, path in databases.items():
            _use_database(path)
            with clock.installed() if clock is not None and size == 0 else nullcontext():
                samples[size] += measure_runs(user, 1, pack, profiler if size == 0 else None, first=index)
    return [SizeResult(size, timed) for size, timed in samples.items()]


def _database() -> str:
    from django.db import connection

    return str(connection.settings_dict["NAME"])


def _use_database(path: str) -> None:
    """Point this process's connection at another SQLite file (a copy: same users, same loaded scenario)."""
    from django.db import connection

    connection.close()
    connection.settings_dict["NAME"] = path
    connection.ensure_connection()  # here, not inside the next timed run


def _copy_database(target: str) -> str:
    """A copy of the SQLite database in use (through SQLite's backup, its write-ahead log included), then in
    use instead."""
    import sqlite3

    from django.db import connection

    connection.ensure_connection()
    with closing(sqlite3.connect(target)) as copy:
        connection.connection.backup(copy)
    _use_database(target)
    return target


def _last_run_id() -> Any:
    from diagnosis.models import DiagnosisRun

    return DiagnosisRun.objects.order_by("-started_at").values_list("pk", flat=True).first()


def format_report(results: list[SizeResult], floors: list) -> str:
    from bench.graph_floor import format_table

    base = results[0].samples
    base_ms, base_queries = statistics.median(s.ms for s in base), statistics.median(s.queries for s in base)
    header = (
        f"{'prior runs':>10}{'runs':>6}{'p50 ms':>9}{'p95 ms':>9}{'floor ms':>10}{'p50/floor':>10}"
        f"{'queries p50':>12}{'p95':>6}{'p50 vs empty':>13}{'queries vs empty':>17}"
    )
    rows = []
    for result in results:
        ms = [s.ms for s in result.samples]
        queries = [float(s.queries) for s in result.samples]
        p50, q50 = statistics.median(ms), statistics.median(queries)
        floor = statistics.median(s.floor_ms for s in result.samples)
        rows.append(
            f"{result.prior_runs:>10}{len(ms):>6}{p50:>9.1f}{p95(ms):>9.1f}{floor:>10.2f}{p50 / floor:>9.1f}x"
            f"{q50:>12.0f}{p95(queries):>6.0f}{p50 / base_ms:>12.2f}x{q50 / base_queries:>16.2f}x"
        )
    outcomes = ", ".join(
        f"{o} {sum(s.outcome == o for r in results for s in r.samples)}"
        for o in sorted({s.outcome for r in results for s in r.samples})
    )
    return "\n".join(
        [
            f"offline runs ({outcomes}); floor = the graph floor (happy path, run_graph) timed after each run",
            header,
            "-" * len(header),
            *rows,
            "",
            "graph floor (no-op nodes), timed on its own after the runs:",
            format_table(floors),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="diagnoses to time (default 20)")
    add_pack_argument(parser)
    parser.add_argument(
        "--history", type=sizes, default=[], help="comma-separated prior-run counts to measure at too (10000,100000)"
    )
    parser.add_argument("--by-kind", action="store_true", help="also print the statements per run by kind")
    parser.add_argument("--by-part", action="store_true", help="also print where the run's time went, by part")
    parser.add_argument(
        "--profile", type=Path, metavar="FILE", help="write cProfile statistics of the empty-database runs to FILE"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-") as var_dir:
        setup_django(var_dir)
        from bench.graph_floor import measure_floor

        profiler = cProfile.Profile() if args.profile else None
        clock = PartClock() if args.by_part else None
        results = measure_sizes(args.runs, args.pack, args.history, profiler, clock)
        if profiler is not None:
            profiler.dump_stats(args.profile)
        print(format_report(results, measure_floor(runs=100)))
        if args.by_kind:
            print(f"\nstatements per run by kind (mean of the {len(results[0].samples)} runs on the empty database):")
            print(format_kinds(results[0].samples))
        if clock is not None:
            empty = results[0].samples
            print(f"\nwhere the time went, by part (exclusive, mean of the {len(empty)} runs on the empty database):")
            print(
                clock.report(
                    len(empty),
                    statistics.mean(sample.ms for sample in empty),
                    statistics.median(sample.floor_ms for sample in empty),
                )
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
