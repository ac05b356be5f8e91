"""Idle SSE streams: what N open, idle run streams cost one uvicorn process, and whether runs stay fast.

For each mode (``embedded``: SQLite, in-process fan-out; ``redis``: SQLite and Redis pub/sub fan-out) it
starts one uvicorn process on loopback, on a throw-away database with a shipped pack loaded, and raises
the number of idle streams level by level (default 0, 500, 2,000, 5,000). The idle streams read the
``events_url`` of runs that are RUNNING but idle (rows nobody executes: no event ever comes), spread over
``--idle-runs`` runs as tabs spread over the runs of a team; they stay open, their keep-alives read and
dropped. At each level, after ``--settle`` seconds (past every new stream's first keep-alive, so past its
one reconciliation with storage), it prints the server's RSS, its CPU over ``--window`` seconds of idling
(at least one 20-s keep-alive period), and the time from ``POST /api/chat`` to the ``done`` of a fresh
diagnosis (p50 and max of ``--runs``), with the ratio of that p50 to the level-0 p50.

The Redis mode executes runs in the web process too (``RUN_EXECUTION=embedded`` with ``REDIS_URL``): its
events go out to Redis and come back through the process's subscription, the production fan-out, while
the run's own work stays on the measured process, as in the embedded mode, so the two modes differ only
in the fan-out. The database is SQLite in both: the figure is about streams, and SQLite serialises
writes, so it is the less forgiving choice.

    .venv/bin/python bench/sse_idle.py [--modes embedded,redis] [--levels 0,500,2000,5000]
        [--redis-url redis://127.0.0.1:6379/3] [--runs 5] [--settle 25] [--window 20] [--idle-runs 100]

Everything binds and connects to 127.0.0.1; every wait is bounded; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path

import httpx

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.embedded import questions, setup_django

MODES = ("embedded", "redis")
PACK = "payment-db-pool"
HOST = "127.0.0.1"
# Sockets the bench needs besides the streams (both ends live on this machine: two per stream).
SPARE_FDS = 1024
OPEN_CONCURRENCY = 100
OPEN_TIMEOUT = 60.0
RUN_TIMEOUT = 120.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Level:
    mode: str
    streams: int
    rss_mb: float
    idle_cpu_percent: float
    done_seconds: list[float]
    closed_by_server: int

    @property
    def p50(self) -> float:
        return statistics.median(self.done_seconds)


@dataclass
class Fixture:
    """The bench's user, its API token, the idle runs' stream paths and the questions to ask."""

    token: str
    idle_paths: list[str]
    questions: list[str] = field(default_factory=list)


def prepare(idle_runs: int) -> Fixture:
    """Load the pack and create the bench user, its token and ``idle_runs`` RUNNING runs nobody executes."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from diagnosis import sse
    from diagnosis.models import ChatSession, DiagnosisRun

    call_command("migrate", verbosity=0)
    call_command("load_scenario", PACK, stdout=StringIO())
    user = get_user_model().objects.create_user("bench")
    session = ChatSession.objects.create(owner=user, title="idle tabs")
    runs = DiagnosisRun.objects.bulk_create(
        DiagnosisRun(session=session, query=f"idle run {n}") for n in range(idle_runs)
    )
    return Fixture(
        token=Token.objects.create(user=user).key,
        idle_paths=[sse.events_url(run.pk) for run in runs],
        questions=questions(PACK),
    )


def raise_fd_limit(streams: int) -> None:
    """Both ends of every stream are on this machine, and the server inherits the limit."""
    needed = 2 * streams + SPARE_FDS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        return
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise SystemExit(f"sse_idle: {streams} streams need {needed} file descriptors; the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    # Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised name): user and system time in ticks.
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


class IdleStreams:
    """Idle SSE streams held open on raw loopback sockets; each drains its keep-alives in its own task."""

    def __init__(self, port: int, token: str, paths: list[str]) -> None:
        self.port, self.token, self.paths = port, token, paths
        self.writers: list[asyncio.StreamWriter] = []
        self.drains: list[asyncio.Task[None]] = []
        self.closed_by_server = 0

    async def _open_one(self, path: str, gate: asyncio.Semaphore) -> None:
        async with gate:
            reader, writer = await asyncio.open_connection(HOST, self.port)
            request = (
                f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n"
                f"Authorization: Token {self.token}\r\n\r\n"
            )
            writer.write(request.encode())
            await asyncio.wait_for(reader.readuntil(b"event: stream-open"), OPEN_TIMEOUT)
        self.writers.append(writer)
        self.drains.append(asyncio.create_task(self._drain(reader)))

    async def _drain(self, reader: asyncio.StreamReader) -> None:
        while await reader.read(4096):
            pass
        self.closed_by_server += 1

    async def grow_to(self, count: int) -> None:
        gate = asyncio.Semaphore(OPEN_CONCURRENCY)
        start = len(self.writers)
        paths = [self.paths[n % len(self.paths)] for n in range(start, count)]
        await asyncio.gather(*(self._open_one(path, gate) for path in paths))

    async def close(self) -> None:
        for writer in self.writers:
            writer.close()
        for task in self.drains:
            task.cancel()
        await asyncio.gather(*self.drains, return_exceptions=True)


async def post_to_done(client: httpx.AsyncClient, base: str, token: str, question: str) -> float:
    """Seconds from ``POST /api/chat`` to the ``done`` event on the run's stream."""
    headers = {"Authorization": f"Token {token}"}
    started = time.perf_counter()
    accepted = await client.post(f"{base}/api/chat", json={"message": question}, headers=headers)
    accepted.raise_for_status()
    async with client.stream("GET", base + accepted.json()["events_url"], headers=headers) as response:
        async for line in response.aiter_lines():
            if line == "event: done":
                return time.perf_counter() - started
    raise RuntimeError("the run's stream ended without done")


async def measure_mode(
    mode: str, env: dict[str, str], fixture: Fixture, levels: list[int], args: argparse.Namespace
) -> list[Level]:
    # The integration tests' uvicorn: a free loopback port, output to a file, stopped by its pid.
    from tests.support.live import uvicorn_server

    results = []
    with uvicorn_server(env) as server:
        process, base = server.process, server.base
        streams = IdleStreams(int(base.rsplit(":", 1)[1]), fixture.token, fixture.idle_paths)
        timeout = httpx.Timeout(RUN_TIMEOUT)
        try:
            async with httpx.AsyncClient(timeout=timeout) as client:
                await post_to_done(client, base, fixture.token, fixture.questions[0])  # a warm process
                for count in levels:
                    await asyncio.wait_for(streams.grow_to(count), OPEN_TIMEOUT * max(1, count // 500))
                    await asyncio.sleep(args.settle)
                    cpu_before, wall_before = cpu_seconds(process.pid), time.monotonic()
                    await asyncio.sleep(args.window)
                    cpu = (cpu_seconds(process.pid) - cpu_before) / (time.monotonic() - wall_before) * 100
                    rss = rss_mb(process.pid)
                    questions = [fixture.questions[n % len(fixture.questions)] for n in range(args.runs)]
                    times = [await post_to_done(client, base, fixture.token, question) for question in questions]
                    level = Level(mode, count, rss, cpu, times, streams.closed_by_server)
                    results.append(level)
                    print(format_row(level, results[0]), flush=True)
        finally:
            await streams.close()
    return results


HEADER = (
    f"{'mode':<10}{'idle streams':>13}{'RSS MB':>9}{'idle CPU %':>12}"
    f"{'POST→done p50 s':>17}{'max s':>8}{'× level 0':>11}{'closed':>8}"
)


def format_row(level: Level, baseline: Level) -> str:
    return (
        f"{level.mode:<10}{level.streams:>13,}{level.rss_mb:>9.0f}{level.idle_cpu_percent:>12.1f}"
        f"{level.p50:>17.2f}{max(level.done_seconds):>8.2f}{level.p50 / baseline.p50:>11.2f}"
        f"{level.closed_by_server:>8}"
    )


def mode_env(mode: str, redis_url: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "RUN_EXECUTION": "embedded", "RUN_STALE_AFTER_SECONDS": "86400"}
    if mode == "redis":
        env["REDIS_URL"] = redis_url
    return env


def parse_levels(text: str) -> list[int]:
    try:
        levels = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of counts: {text!r}") from None
    if not levels or any(n < 0 for n in levels) or levels != sorted(levels):
        raise argparse.ArgumentTypeError("levels must be counts of 0 or more, in ascending order")
    return levels


def parse_modes(text: str) -> list[str]:
    modes = text.split(",")
    unknown = [mode for mode in modes if mode not in MODES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown mode(s) {', '.join(unknown)}; choose from {', '.join(MODES)}")
    return modes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", type=parse_modes, default=list(MODES), help="embedded,redis (default both)")
    parser.add_argument("--levels", type=parse_levels, default=[0, 500, 2000, 5000], help="idle stream counts")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/3", help="the Redis of the redis mode")
    parser.add_argument("--runs", type=int, default=5, help="fresh diagnoses timed at each level (default 5)")
    parser.add_argument("--settle", type=float, default=25.0, help="seconds after opening, before measuring")
    parser.add_argument("--window", type=float, default=20.0, help="seconds of idling measured for CPU")
    parser.add_argument("--idle-runs", type=int, default=100, help="runs the idle streams are spread over")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.idle_runs < 1:
        parser.error("--runs and --idle-runs must be at least 1")
    if args.settle < 0 or args.window <= 0:
        parser.error("--settle must be 0 or more and --window more than 0")
    raise_fd_limit(max(args.levels))
    with tempfile.TemporaryDirectory(prefix="superbiz-sse-idle-") as var_dir:
        setup_django(var_dir)
        fixture = prepare(args.idle_runs)
        print(HEADER, flush=True)
        print("-" * len(HEADER), flush=True)
        for mode in args.modes:
            asyncio.run(measure_mode(mode, mode_env(mode, args.redis_url), fixture, args.levels, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
