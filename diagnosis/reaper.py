"""The stale-run reaper: a run left RUNNING by a dead worker becomes FAILED, with its partial trace.

A run is stale when its heartbeat (or, never claimed, its start) is older than RUN_STALE_AFTER_SECONDS.
Live runs refresh the heartbeat at every progress report, so a slow but alive run is not reaped. The
terminal update is conditional, so a worker finishing at the same moment and the reaper cannot both end it.

``scheduled_pass`` is what runs on the reaper's schedule (Celery beat, the embedded timer, the command): it
also purges the invocation store of entries past their TTL, which the embedded database store does not
expire by itself (it no longer counts and culls its table on every write, see ``tools/store_cache.py``).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from diagnosis.graph.trace_builder import build_partial_trace
from diagnosis.models import DiagnosisRun, Intent, RunStatus
from diagnosis.services import run_fail
from tools.store import purge_expired
from tracing.selectors import orchestration_events_from_timeline

logger = logging.getLogger(__name__)

REASON = "worker_lost"


def stale_runs(*, now: datetime | None = None, stale_after_seconds: int | None = None) -> list[DiagnosisRun]:
    cutoff = (now or timezone.now()) - timedelta(seconds=stale_after_seconds or settings.RUN_STALE_AFTER_SECONDS)
    return list(
        DiagnosisRun.objects.filter(status=RunStatus.RUNNING, started_at__lt=cutoff)
        .annotate(last_seen=Coalesce("heartbeat_at", "started_at"))
        .filter(Q(last_seen__lt=cutoff))
        .order_by("started_at")
    )


def reap_stale_runs(*, now: datetime | None = None, stale_after_seconds: int | None = None) -> list[DiagnosisRun]:
    """Fail every stale run; returns those this call ended."""
    reaped = []
    for run in stale_runs(now=now, stale_after_seconds=stale_after_seconds):
        events, unfinished = orchestration_events_from_timeline(run.pk)
        trace = None
        if run.intent == Intent.DIAGNOSIS and (events or unfinished):
            trace = build_partial_trace(events, failed_node=unfinished, termination_reason=REASON).to_dict()
        if run_fail(
            run,
            reason=REASON,
            message="The worker running this diagnosis stopped; the run was ended.",
            orchestration_trace=trace,
        ):
            reaped.append(run)
    return reaped


def scheduled_pass(*, stale_after_seconds: int | None = None) -> list[DiagnosisRun]:
    """Fail every stale run, then purge the invocation store's expired entries; returns the runs ended."""
    reaped = reap_stale_runs(stale_after_seconds=stale_after_seconds)
    purged = purge_expired()
    if purged:
        logger.info("purged %d expired invocation-store entries", purged)
    return reaped
