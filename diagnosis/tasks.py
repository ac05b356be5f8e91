"""Celery tasks: thin wrappers that load by id and call a service (the lifecycle's task link)."""

from __future__ import annotations

import os

from celery import shared_task, signals
from django.db import InterfaceError, OperationalError

from diagnosis.execution import run_execute
from diagnosis.paths.options import ExecutionOptions
from diagnosis.reaper import pass_periodically


# A database still away after the claim's own tries (a restart, a failover): the message is sent again later,
# not acknowledged and lost (the run then waited RUNNING for the reaper's "not started"). The retry claims
# ``again``: a run this worker's failed attempt had claimed is its own (``run_claim``). About eight minutes, within
# RUN_QUEUE_TIMEOUT_SECONDS; embedded, Celery's eager mode tries again at once.
@shared_task(
    name="diagnosis.execute_run",
    bind=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=5,
    retry_backoff_max=120,
    retry_jitter=False,
    max_retries=8,
)
def execute_run(self, run_id: str, provider: str | None = None, script_path: str | None = None) -> None:
    worker = f"{self.request.hostname or 'embedded'}:{os.getpid()}"
    options = ExecutionOptions(provider=provider, script_path=script_path)
    run_execute(run_id, worker=worker, options=options, again=self.request.retries > 0)


@signals.beat_init.connect
def reap_from_beat(**kwargs: object) -> None:
    """celery beat makes the stale-run reaper's passes itself, on a thread of its own: sent as a task, a pass
    waited in the run queue behind every queued run, and expired there under a backlog longer than a minute."""
    pass_periodically()
