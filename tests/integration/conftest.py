"""Fixtures for tests through real processes."""

from __future__ import annotations

import subprocess
from contextlib import ExitStack
from dataclasses import dataclass

import pytest
from django.conf import settings

from tests.services import require
from tests.support.live import celery_worker, private_queue, process_env, uvicorn_server


@dataclass(frozen=True)
class LiveStack:
    base: str
    env: dict[str, str]
    server: subprocess.Popen
    # The process that executes runs: the Celery worker, or in embedded mode the web server itself.
    runner: subprocess.Popen


def start_stack(stack: ExitStack, **env_overrides: str) -> LiveStack:
    """uvicorn (+ a Celery worker process when runs execute on Celery), sharing a private queue."""
    env = process_env(CELERY_QUEUE=private_queue(), **env_overrides)
    worker = None
    if settings.RUN_EXECUTION == "celery":
        require("redis")
        worker = stack.enter_context(celery_worker(env))
    server = stack.enter_context(uvicorn_server(env))
    return LiveStack(server.base, env, server.process, worker or server.process)


@pytest.fixture
def live_stack():
    with ExitStack() as stack:
        yield start_stack(stack)
