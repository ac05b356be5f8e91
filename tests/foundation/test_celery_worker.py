"""A real Celery worker process, on Redis, executes the health task (it reaches broker and database)."""

from __future__ import annotations

import os

import pytest
from celery import Celery
from django.db import connection

from tests.services import TEST_REDIS_URL as REDIS
from tests.services import require
from tests.support.live import celery_worker, private_queue, process_env


@pytest.mark.django_db(transaction=True)
def test_it_executes_the_health_task():
    require("redis")
    queue = private_queue()
    client = Celery("health-client", broker=REDIS, backend=REDIS)

    with celery_worker(process_env(REDIS_URL=REDIS, CELERY_QUEUE=queue)):
        result = client.send_task("superbiz.health", queue=queue).get(timeout=60)

    assert result["ok"] is True
    assert result["pid"] != os.getpid()
    assert result["database"] == connection.vendor
