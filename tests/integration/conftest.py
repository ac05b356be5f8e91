"""Fixtures for tests through real processes."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
from django.conf import settings

from tests.services import require
from tests.support.live import celery_worker, private_queue, process_env, uvicorn_server


@pytest.fixture
def live_stack():
    """uvicorn (+ a Celery worker process when runs execute on Celery), sharing a private queue."""
    env = process_env(CELERY_QUEUE=private_queue())
    with ExitStack() as stack:
        if settings.RUN_EXECUTION == "celery":
            require("redis")
            stack.enter_context(celery_worker(env))
        yield stack.enter_context(uvicorn_server(env))
