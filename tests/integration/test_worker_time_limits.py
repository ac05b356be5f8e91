"""A run's time limits are those of the worker executing it, not of the web process that sent it.

The web server runs with the defaults (a 240 s soft limit), the worker with a 3 s one; the run's model is
stuck for a minute. The worker's limit must end the run, FAILED ``time_limit`` with ``failure`` + ``done``.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from diagnosis.models import DiagnosisRun, RunStatus
from tests.services import require
from tests.support.clients import login, submit
from tests.support.held_runs import stuck_planner
from tests.support.live import celery_worker, scripted_celery_env, uvicorn_server
from tests.support.sse_client import read_events

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = "payment-service p99 latency tripled since 10:05, why?"


def test_the_worker_applies_its_own_soft_time_limit(tmp_path: Path, static_root):
    require("redis")
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    cookies, headers = login("time-limit-owner")
    web_env = scripted_celery_env(static_root, stuck_planner(tmp_path, 60))
    worker_env = {
        **web_env,
        "RUN_SOFT_TIME_LIMIT_SECONDS": "3",
        "RUN_TIME_LIMIT_SECONDS": "60",
        "RUN_FALLBACK_RESERVE_SECONDS": "2",
        "TOOL_TIMEOUT_SECONDS": "1",
    }

    with celery_worker(worker_env, pool="prefork"), uvicorn_server(web_env) as web:
        accepted = submit(web.base, headers, QUESTION)
        events = read_events(web.base + accepted["events_url"], cookies=cookies, timeout=30)

    run = DiagnosisRun.objects.get(pk=accepted["run_id"])
    assert (run.status, run.failure_reason) == (RunStatus.FAILED, "time_limit")
    assert [event.event for event in events][-2:] == ["failure", "done"]
    assert events[-1].data == {"outcome": "FAILED", "run_id": accepted["run_id"]}
