"""Throughput: offline diagnoses per second with Celery workers on Redis and MariaDB (production style).

A private MariaDB database is created, migrated and loaded with a shipped pack; N questions are submitted
through the chat service (``chat_submit``: the run rows, then the Celery message) and two ``celery worker``
processes (solo pool, one run at a time each) execute them on a private queue. It prints runs per second
from the first submission to the last run's end, and each run's time from its submission to its end
(queueing included: all N are submitted at once). The database is dropped at
the end. MariaDB is shared on a development machine: run it under ``flock /tmp/mariadb.lock``.

    flock /tmp/mariadb.lock .venv/bin/python bench/throughput.py [--runs N] [--workers 2]
        [--mysql mysql://root@127.0.0.1:3306] [--redis-url redis://127.0.0.1:6379/2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

if __package__ in (None, ""):
    # Run as a script: make the project root importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.embedded import add_pack_argument, bench_env, p95, prepare, questions, setup_django, table

POLL_SECONDS = 0.05


@contextmanager
def private_database(server_url: str) -> Iterator[str]:
    """A fresh database on the MariaDB at ``server_url``, dropped afterwards; yields its DATABASE_URL."""
    import MySQLdb

    url = urlsplit(server_url)
    name = f"superbiz_bench_{uuid.uuid4().hex[:8]}"
    connect = {"host": url.hostname or "127.0.0.1", "port": url.port or 3306, "user": url.username or "root"}
    if url.password:
        connect["passwd"] = url.password
    server = MySQLdb.connect(**connect)
    try:
        server.cursor().execute(f"CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
        yield f"{url.scheme}://{url.netloc}/{name}"
    finally:
        server.cursor().execute(f"DROP DATABASE IF EXISTS {name}")
        server.close()


def wait_until_ended(run_ids: list[Any], timeout: float) -> None:
    from diagnosis.models import DiagnosisRun, RunStatus

    deadline = time.monotonic() + timeout
    while DiagnosisRun.objects.filter(pk__in=run_ids, status=RunStatus.RUNNING).exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"runs still RUNNING after {timeout} s: are the workers up?")
        time.sleep(POLL_SECONDS)


def submit_and_wait(user: Any, messages: list[str], timeout: float) -> tuple[float, list[Any]]:
    from diagnosis.models import DiagnosisRun
    from diagnosis.submission import chat_submit

    started = time.perf_counter()
    run_ids = [chat_submit(user=user, message=message).pk for message in messages]
    wait_until_ended(run_ids, timeout)
    elapsed = time.perf_counter() - started
    return elapsed, list(DiagnosisRun.objects.filter(pk__in=run_ids))


def measure(runs: int, workers: int, pack: str, var_dir: str, database_url: str, redis_url: str) -> dict[str, Any]:
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    overrides = {"DATABASE_URL": database_url, "REDIS_URL": redis_url, "CELERY_QUEUE": queue}
    setup_django(var_dir, **overrides)
    from tests.support.live import celery_worker

    user = prepare(pack)
    asked = questions(pack)
    with ExitStack() as stack:
        for _ in range(workers):
            stack.enter_context(celery_worker(bench_env(var_dir, **overrides)))
        submit_and_wait(user, asked[:workers], timeout=300)  # warm-up: each worker's first run imports the graph
        elapsed, ended = submit_and_wait(user, [asked[i % len(asked)] for i in range(runs)], timeout=60 + 30 * runs)
    return {"workers": workers, "elapsed": elapsed, "runs": ended}


def format_report(result: dict[str, Any]) -> str:
    runs = result["runs"]
    durations = [float(run.duration_ms) for run in runs]
    outcomes = ", ".join(f"{o} {sum(r.outcome == o for r in runs)}" for o in sorted({r.outcome for r in runs}))
    rows = [
        [
            f"{result['workers']} Celery workers ({outcomes})",
            len(runs),
            f"{result['elapsed']:.1f}",
            f"{len(runs) / result['elapsed']:.2f}",
            f"{statistics.median(durations):.0f}",
            f"{p95(durations):.0f}",
        ]
    ]
    return table(["offline runs, Redis + MariaDB", "runs", "seconds", "runs/s", "submit-to-end p50 ms", "p95 ms"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="questions to submit (default 40)")
    parser.add_argument("--workers", type=int, default=2, help="celery worker processes (default 2)")
    parser.add_argument("--mysql", default="mysql://root@127.0.0.1:3306", help="the MariaDB server (no database)")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/2", help="broker and SSE fan-out")
    add_pack_argument(parser)
    args = parser.parse_args(argv)
    if args.runs < 2 or args.workers < 1:
        parser.error("--runs must be at least 2 and --workers at least 1")
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-") as var_dir, private_database(args.mysql) as url:
        print(format_report(measure(args.runs, args.workers, args.pack, var_dir, url, args.redis_url)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
