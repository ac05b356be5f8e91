"""Fixtures for tests through real processes."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import ExitStack
from dataclasses import dataclass

import pytest
from django.conf import settings

from tests.conftest import ROOT
from tests.services import require
from tests.support.live import celery_worker, private_queue, process_env, uvicorn_server


@dataclass(frozen=True)
class LiveStack:
    base: str
    env: dict[str, str]
    server: subprocess.Popen
    # The process that executes runs: the Celery worker, or in embedded mode the web server itself.
    runner: subprocess.Popen


@pytest.fixture(scope="session")
def static_root(tmp_path_factory) -> str:
    """Static files collected once, as a production deploy does: the live server runs with DEBUG off."""
    root = tmp_path_factory.mktemp("static")
    result = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT,
        env={**os.environ, "STATIC_ROOT": str(root)},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return str(root)


def start_stack(stack: ExitStack, static_root: str, **env_overrides: str) -> LiveStack:
    """uvicorn (+ a Celery worker process when runs execute on Celery), sharing a private queue."""
    env = process_env(CELERY_QUEUE=private_queue(), STATIC_ROOT=static_root, **env_overrides)
    worker = None
    if settings.RUN_EXECUTION == "celery":
        require("redis")
        worker = stack.enter_context(celery_worker(env))
    server = stack.enter_context(uvicorn_server(env))
    return LiveStack(server.base, env, server.process, worker or server.process)


@pytest.fixture
def live_stack(static_root):
    with ExitStack() as stack:
        yield start_stack(stack, static_root)


@pytest.fixture(scope="module")
def module_stack(static_root, django_db_setup, django_db_blocker):
    """One stack for a whole module of short tests (each still gets a flushed database: transactional)."""
    with django_db_blocker.unblock(), ExitStack() as stack:
        yield start_stack(stack, static_root)
