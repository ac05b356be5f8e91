"""Real processes for integration tests: uvicorn serving the ASGI app, and a Celery worker.

Both run against this test run's database (the SQLite test file or the MariaDB test database), so the
test must use ``transactional_db`` for them to see its rows. Everything binds 127.0.0.1 only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx
from django.conf import settings
from django.db import connection

from tests.conftest import ROOT
from tests.support.ports import free_port, reserved_port


def database_url() -> str:
    """The URL of the database this test is using (the test database, not the configured one)."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    return f"mysql://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 3306}/{db['NAME']}"


def process_env(**overrides: str) -> dict[str, str]:
    """The environment for a child process: this run's settings, its test database, a private queue."""
    env = {**os.environ, "DATABASE_URL": database_url(), "PYTHONUNBUFFERED": "1"}
    if settings.REDIS_URL:
        env["REDIS_URL"] = settings.REDIS_URL
    env.update(overrides)
    return env


def redis_url() -> str:
    """The Redis of this test run: the configured one, else ``TEST_REDIS_URL``, else db 15 on loopback."""
    return settings.REDIS_URL or os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def closed_port() -> int:
    """A loopback port nothing listens on: bound, then closed, so a connection to it is refused at once."""
    return free_port()


def closed_redis_url(db: int = 10) -> str:
    """A ``REDIS_URL`` whose Redis is down (nothing listens on its port)."""
    return f"redis://127.0.0.1:{closed_port()}/{db}"


@contextmanager
def silent_port() -> Iterator[int]:
    """A loopback port that accepts connections (the kernel completes them) and never answers a byte."""
    with reserved_port() as sock:
        sock.listen(16)
        yield sock.getsockname()[1]


def _stop(process: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass(frozen=True)
class Server:
    base: str
    process: subprocess.Popen


def _python_module(module: str, *args: str, stack_dumps: bool) -> list[str]:
    """``python -m module args``; with ``stack_dumps``, the process writes every thread's stack to its output
    on SIGUSR1 (``faulthandler``), which ``_end`` asks for before stopping it."""
    if not stack_dumps:
        return [sys.executable, "-m", module, *args]
    launcher = (
        "import faulthandler, runpy, signal; faulthandler.register(signal.SIGUSR1, all_threads=True); "
        f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)"
    )
    return [sys.executable, "-c", launcher, *args]


def _end(process: subprocess.Popen, log: IO[bytes], echo_as: str | None) -> None:
    """Stop ``process`` and close its output; with ``echo_as``, ask for its threads' stacks first and print the
    end of its output after, under that name (``_show_tail``)."""
    if echo_as and process.poll() is None:
        process.send_signal(signal.SIGUSR1)
        time.sleep(0.2)  # faulthandler writes from its signal handler, at once
    _stop(process)
    if echo_as:
        _show_tail(log, echo_as)
    log.close()


def _show_tail(log: IO[bytes], name: str, limit: int = 20_000) -> None:
    """Print the end of a stopped process's output: pytest shows it under a failed test (and drops it
    otherwise), so that what went wrong inside a server can be read in CI's log."""
    log.seek(0, os.SEEK_END)
    log.seek(max(0, log.tell() - limit))
    output = log.read().decode(errors="replace").strip()
    if output:
        print(f"--- {name} output (last {limit} bytes) ---\n{output}")


@contextmanager
def uvicorn_server(env: dict[str, str], *, echo_output: bool = False) -> Iterator[Server]:
    """Serve ``config.asgi`` on a free loopback port; yields it once it answers. ``echo_output``: its threads'
    stacks and the end of its output are printed when it is stopped (``_show_tail``)."""
    port = free_port()
    # Output goes to a file, not a pipe nobody drains: a chatty server must never block on a full pipe.
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by the fixture after the process ends
    process = subprocess.Popen(
        _python_module(
            "uvicorn",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--timeout-graceful-shutdown",  # as `make run` and the README's production command
            "5",
            stack_dumps=echo_output,
        ),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"uvicorn exited: {log.read().decode(errors='replace')}")
            try:
                httpx.get(f"{base}/accounts/login/", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError("uvicorn did not start within 30 s") from None
                time.sleep(0.2)
        yield Server(base, process)
    finally:
        _end(process, log, "uvicorn" if echo_output else None)


@contextmanager
def celery_worker(env: dict[str, str], *, pool: str = "solo", echo_output: bool = False) -> Iterator[subprocess.Popen]:
    """A `celery -A config worker` process on the queue named in ``env['CELERY_QUEUE']``.

    ``solo`` runs tasks in the worker process itself; ``prefork`` (one child) is what production runs and
    the only pool that enforces time limits. ``echo_output`` as for ``uvicorn_server`` (Celery answers SIGUSR1
    with its own dump of the worker's threads).
    """
    queue = env["CELERY_QUEUE"]
    arguments = ["--pool", pool, "--concurrency", "1", "-Q", queue, "-n", f"{queue}@%h", "--loglevel", "warning"]
    with _celery(env, "worker", *arguments, "--without-mingle", "--without-gossip", echo_as=echo_output) as process:
        yield process


@contextmanager
def celery_beat(env: dict[str, str], schedule: Path) -> Iterator[subprocess.Popen]:
    """A `celery -A config beat` process, its schedule file at ``schedule``: the stale-run reaper's passes."""
    with _celery(env, "beat", "--schedule", str(schedule), "--loglevel", "warning", echo_as=False) as process:
        yield process


@contextmanager
def _celery(env: dict[str, str], command: str, *arguments: str, echo_as: bool) -> Iterator[subprocess.Popen]:
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by the fixture after the process ends
    process = subprocess.Popen(
        _python_module("celery", "-A", "config", command, *arguments, stack_dumps=echo_as),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        yield process
    finally:
        _end(process, log, f"celery {command}" if echo_as else None)


def scripted_celery_env(static_root: str, script: Path, **overrides: str) -> dict[str, str]:
    """A web process and worker whose runs go to Celery on this run's Redis, on a queue of their own, and are
    answered by ``script`` (the scripted provider)."""
    return process_env(
        CELERY_QUEUE=private_queue(),
        STATIC_ROOT=static_root,
        REDIS_URL=redis_url(),
        RUN_EXECUTION="celery",
        LLM_PROVIDER="scripted",
        LLM_SCRIPT_PATH=str(script),
        **overrides,
    )


def private_queue() -> str:
    return f"test-{uuid.uuid4().hex[:10]}"
