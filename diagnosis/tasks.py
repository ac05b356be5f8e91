"""Celery tasks: thin wrappers that load by id and call a service (the lifecycle's task link)."""

from __future__ import annotations

import os

from celery import shared_task

from diagnosis.execution import run_execute
from diagnosis.paths.options import ExecutionOptions
from diagnosis.reaper import scheduled_pass


@shared_task(name="diagnosis.execute_run", bind=True)
def execute_run(self, run_id: str, provider: str | None = None, script_path: str | None = None) -> None:
    worker = f"{self.request.hostname or 'embedded'}:{os.getpid()}"
    run_execute(run_id, worker=worker, options=ExecutionOptions(provider=provider, script_path=script_path))


@shared_task(name="diagnosis.reap_stale_runs")
def reap_stale_runs() -> int:
    return len(scheduled_pass())
