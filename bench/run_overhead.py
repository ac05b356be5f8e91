"""Run overhead: N offline diagnoses in-process, through the run service the Celery task calls.

Each run goes through intent routing, the claim, the graph with the real nodes, the tools, the gatekeeper
and persistence, on a throw-away SQLite database with a shipped pack loaded. It prints p50/p95 wall time
and database queries per run, next to the graph floor (no-op nodes) measured in the same process, so the
cost of everything above the graph engine is visible.

    .venv/bin/python bench/run_overhead.py [--runs N] [--pack NAME]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class RunSample:
    ms: float
    queries: int
    outcome: str


def _setup_django(var_dir: str) -> None:
    """A private database under ``var_dir``: the benchmark never touches the demo's data."""
    sys.path.insert(0, str(ROOT))
    os.environ.update(
        {
            "VAR_DIR": var_dir,
            "DEBUG": "false",
            "SECURE_HTTPS": "false",
            "LLM_PROVIDER": "offline",
            "LOG_LEVEL": "error",
            "SECRET_KEY": "bench-only-secret-key-0123456789-0123456789-0123456789-abcdef",
        }
    )
    for name in ("DATABASE_URL", "REDIS_URL", "RUN_EXECUTION"):
        os.environ.pop(name, None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()


def _questions(pack: str) -> list[str]:
    manifest = json.loads((ROOT / "tools" / "scenarios" / "packs" / pack / "scenario.json").read_text())
    return [question["text"] for question in manifest["questions"]]


def measure_runs(runs: int, pack: str) -> list[RunSample]:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from diagnosis.execution import run_execute
    from diagnosis.submission import run_create

    call_command("migrate", verbosity=0)
    call_command("load_scenario", pack, stdout=StringIO())
    user = get_user_model().objects.create_user("bench")
    questions = _questions(pack)
    samples = []
    for index in range(runs):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            created = run_create(user=user, message=questions[index % len(questions)])
            run = run_execute(created.pk, worker="bench")
            elapsed = (time.perf_counter() - started) * 1000
        assert run is not None, "a run just created is not claimed by anyone else"
        samples.append(RunSample(elapsed, len(queries), run.outcome))
    return samples


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


def format_report(samples: list[RunSample], floors: list) -> str:
    from bench.graph_floor import format_table

    ms = [s.ms for s in samples]
    queries = [float(s.queries) for s in samples]
    outcomes = ", ".join(f"{o} {sum(s.outcome == o for s in samples)}" for o in sorted({s.outcome for s in samples}))
    header = f"{'measure':<28}{'p50':>10}{'p95':>10}"
    rows = [
        f"{'offline run, ms':<28}{statistics.median(ms):>10.1f}{_p95(ms):>10.1f}",
        f"{'offline run, DB queries':<28}{statistics.median(queries):>10.0f}{_p95(queries):>10.0f}",
    ]
    return "\n".join(
        [
            f"{len(samples)} runs ({outcomes})",
            header,
            "-" * len(header),
            *rows,
            "",
            "graph floor (no-op nodes):",
            format_table(floors),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="diagnoses to time (default 20)")
    parser.add_argument("--pack", default="payment-db-pool", help="shipped pack to load (default payment-db-pool)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-") as var_dir:
        _setup_django(var_dir)
        from bench.graph_floor import measure_floor

        samples = measure_runs(args.runs, args.pack)
        print(format_report(samples, measure_floor(runs=100)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
