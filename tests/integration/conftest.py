"""Fixtures for tests through real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import global_settings, settings
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tests.conftest import ROOT
from tests.services import require
from tests.support.browser import PASSWORD, USERNAME, chromium
from tests.support.held_runs import delayed_script
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
        worker = stack.enter_context(celery_worker(env, echo_output=True))
    server = stack.enter_context(uvicorn_server(env, echo_output=True))
    return LiveStack(server.base, env, server.process, worker or server.process)


@pytest.fixture
def live_stack(static_root):
    with ExitStack() as stack:
        yield start_stack(stack, static_root)


@pytest.fixture
def slow_stack(static_root, tmp_path):
    """A live stack whose runs' planner answers after a pause (the scripted provider): time to press Cancel,
    or to see the run's spinner."""
    with ExitStack() as stack:
        script = delayed_script(tmp_path, planner=4)
        yield start_stack(stack, static_root, LLM_PROVIDER="scripted", LLM_SCRIPT_PATH=str(script))


@pytest.fixture(scope="module")
def module_stack(static_root, django_db_setup, django_db_blocker):
    """One stack for a whole module of short tests (each still gets a flushed database: transactional)."""
    with django_db_blocker.unblock(), ExitStack() as stack:
        yield start_stack(stack, static_root)


DEMO_PACK = Path(ROOT) / "tools" / "scenarios" / "packs" / "payment-db-pool"


@pytest.fixture
def demo_user(settings):
    """The demo pack loaded and a user to log in as, set up before the browser starts; the pack's first
    question.

    Playwright's sync API runs an event loop in this thread, and Django refuses ORM calls while one runs,
    so every database write happens here, first.
    """
    # The login is checked by the server process, which knows only the real password hashers.
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS
    call_command("load_scenario", str(DEMO_PACK), verbosity=0)
    get_user_model().objects.create_user(USERNAME, password=PASSWORD)
    return json.loads((DEMO_PACK / "scenario.json").read_text())["questions"][0]


@pytest.fixture
def browser(demo_user):
    """Chromium, started after the database writes (``demo_user``) and the stack the test asks for first."""
    require("chromium")
    with chromium() as instance:
        yield instance
