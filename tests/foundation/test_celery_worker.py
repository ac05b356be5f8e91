"""A real Celery worker process, on Redis, executes the health task (it reaches broker and database)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid

import pytest
from celery import Celery
from django.db import connection

from tests.conftest import ROOT
from tests.services import require

REDIS = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
def worker(transactional_db):
    """A `celery -A config worker` subprocess on its own queue, against this test run's database."""
    require("redis")
    queue = f"test-health-{uuid.uuid4().hex[:8]}"
    settings_db = connection.settings_dict
    env = {**os.environ, "REDIS_URL": REDIS, "CELERY_QUEUE": queue}
    if settings_db["ENGINE"].endswith("sqlite3"):
        env["DATABASE_URL"] = f"sqlite:///{settings_db['NAME']}"
    else:
        env["DATABASE_URL"] = (
            f"mysql://{settings_db['USER']}:{settings_db['PASSWORD']}@{settings_db['HOST']}:"
            f"{settings_db['PORT'] or 3306}/{settings_db['NAME']}"
        )
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "-Q", queue,
         "-n", f"{queue}@%h", "--loglevel", "warning", "--without-mingle", "--without-gossip"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    yield queue
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def test_it_executes_the_health_task(worker):
    client = Celery("health-client", broker=REDIS, backend=REDIS)

    result = client.send_task("superbiz.health", queue=worker).get(timeout=60)

    assert result["ok"] is True
    assert result["pid"] != os.getpid()
    assert result["database"] == connection.vendor
