"""The embedded server stopped (SIGTERM, as a service manager stops it) while it executes runs and holds
others queued: every one of them ends there and then as ``interrupted``, with its ``failure`` and ``done``,
not RUNNING for the next process's reaper (ten minutes for a started run, half an hour for a queued one, the
user refused new runs meanwhile). The embedded mode's own: Celery workers have their own shutdown."""

from __future__ import annotations

import contextlib
import signal
import threading
from io import StringIO
from pathlib import Path

import httpx
import pytest
from django.core.management import call_command

from diagnosis.models import DiagnosisRun, RunStatus
from tests.support.clients import login, submit
from tests.support.held_runs import stuck_planner, wait_for_node
from tests.support.live import process_env, uvicorn_server
from tests.support.sse_client import read_events

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = "payment-service p99 latency tripled since 10:05, why?"


def _follow(url: str, cookies: dict[str, str]) -> None:
    """Read a run's stream until the server closes it (a stopping server cuts it)."""
    with contextlib.suppress(httpx.HTTPError), httpx.stream("GET", url, cookies=cookies, timeout=60) as response:
        for _ in response.iter_lines():
            pass


def test_stopping_the_server_ends_the_runs_it_executes_and_queues(tmp_path: Path, static_root):
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    script = stuck_planner(tmp_path, 120)
    cookies, headers = login("stopped-server-owner")
    env = process_env(
        STATIC_ROOT=static_root,
        RUN_EXECUTION="embedded",  # in the production-style pass too: on MariaDB, beside Redis
        LLM_PROVIDER="scripted",
        LLM_SCRIPT_PATH=str(script),
        EMBEDDED_WORKER_THREADS="2",
    )

    with uvicorn_server(env) as server:
        runs = [submit(server.base, headers, QUESTION)["run_id"] for _ in range(3)]  # two threads: one queued
        for run_id in runs[:2]:
            wait_for_node(run_id, "planner")
        # A page following the first run: its stream, open until the run's end, held the server's shutdown.
        watching = threading.Thread(target=_follow, args=(f"{server.base}/events/run-{runs[0]}/", cookies))
        watching.start()
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(timeout=20)  # not the held planner's two minutes
        watching.join(timeout=20)

    ended = {str(run.pk): run for run in DiagnosisRun.objects.filter(pk__in=runs)}
    assert {(run.status, run.failure_reason) for run in ended.values()} == {(RunStatus.FAILED, "interrupted")}
    assert [ended[run_id].orchestration_trace["final_node"] for run_id in runs[:2]] == ["planner", "planner"]
    assert ended[runs[2]].claimed_at is None
    with uvicorn_server(env) as again:
        events = read_events(again.base + f"/events/run-{runs[2]}/?lastEventId=run-{runs[2]}:0", cookies=cookies)
    assert [event.event for event in events][-2:] == ["failure", "done"]
    assert events[-2].data["code"] == "interrupted"
