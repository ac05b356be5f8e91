"""SSE latency in the embedded mode: from ``POST /api/chat`` to the run's ``metadata`` event and to its
``done`` event, read from the ``events_url`` through a real uvicorn serving the app (p50/p95).

The server runs as ``make run`` runs it (SQLite, runs executed in-process on worker threads, the offline
provider), against a throw-away database with a shipped pack loaded; the client is an API token holder with
one HTTP client for the whole bench, as a browser keeps its connection to the site: a fresh ``httpx`` client
per request builds a TLS context (the CA bundle loaded, ~35 ms here) even for ``http://``, which timed the
client, not the server.

    .venv/bin/python bench/sse_latency.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    # Run as a script: make the project root importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from bench.embedded import add_pack_argument, bench_env, p95, prepare, questions, setup_django, table


def read_until_done(client: httpx.Client, url: str, started: float, arrived: dict[str, float]) -> None:
    """Record when each named event of the stream first arrives (ms since ``started``), until ``done``."""
    with client.stream("GET", url, headers={"Accept": "text/event-stream"}, timeout=120) as stream:
        for line in stream.iter_lines():
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
                arrived.setdefault(name, (time.perf_counter() - started) * 1000)
                if name == "done":
                    return


def one_run(client: httpx.Client, message: str) -> dict[str, float]:
    """Milliseconds from the POST to each named event of the run's stream, until ``done``; then, the run
    ended, the same stream replayed whole (the stream's own cost, with no run executing beside it)."""
    started = time.perf_counter()
    response = client.post("/api/chat", json={"message": message}, timeout=30)
    response.raise_for_status()
    arrived: dict[str, float] = {"202 answer": (time.perf_counter() - started) * 1000}
    url = response.json()["events_url"]
    read_until_done(client, url, started, arrived)
    replay: dict[str, float] = {}
    read_until_done(client, url, time.perf_counter(), replay)
    arrived["replay done"] = replay["done"]
    return arrived


def measure(runs: int, pack: str, var_dir: str) -> list[dict[str, float]]:
    from rest_framework.authtoken.models import Token

    from tests.support.live import uvicorn_server

    user = prepare(pack)
    headers = {"Authorization": f"Token {Token.objects.create(user=user).key}"}
    asked = questions(pack)
    with uvicorn_server(bench_env(var_dir)) as server, httpx.Client(base_url=server.base, headers=headers) as client:
        one_run(client, asked[0])  # warm-up: the server's first run imports the graph
        return [one_run(client, asked[i % len(asked)]) for i in range(runs)]


def format_report(samples: list[dict[str, float]]) -> str:
    rows = []
    for name, label in (
        ("202 answer", "POST -> 202 answer"),
        ("metadata", "POST -> metadata"),
        ("done", "POST -> done"),
        ("replay done", "finished run: GET -> done"),
    ):
        values = [sample[name] for sample in samples]
        rows.append([label, len(values), f"{statistics.median(values):.1f}", f"{p95(values):.1f}"])
    return table(["embedded mode, through uvicorn", "runs", "p50 ms", "p95 ms"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="chat messages to time (default 20)")
    add_pack_argument(parser)
    args = parser.parse_args(argv)
    if args.runs < 2:
        parser.error("--runs must be at least 2")
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-") as var_dir:
        setup_django(var_dir)
        print(format_report(measure(args.runs, args.pack, var_dir)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
