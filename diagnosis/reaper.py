"""The stale-run reaper: a run left RUNNING by a dead worker becomes FAILED, with its partial trace.

A claimed run is stale when its heartbeat is older than RUN_STALE_AFTER_SECONDS (``worker_lost``). Live runs
refresh the heartbeat as they report, so a slow but alive run is not reaped. A run no worker has claimed is
not a lost worker's: it waits in the queue, and is ended only once it has waited RUN_QUEUE_TIMEOUT_SECONDS
(``not_started``; a backlog that long is no answer to anyone, and a task message lost with the broker would
otherwise leave it RUNNING for ever); one whose cancellation was asked for but not carried out is ended as
cancelled: at once when no worker claimed it, and once a hard time limit has passed since the request when
one did (its worker would have stopped it by then: it is gone). Each run is ended by an UPDATE that checks
its reason again, so a worker that finishes, claims it or writes a heartbeat at the same moment keeps it.

``scheduled_pass`` is what runs on the reaper's schedule (``pass_periodically``'s thread in celery beat or the
embedded server, and the command): it
also purges the invocation store of entries past their TTL, which the embedded database store does not
expire by itself (it no longer counts and culls its table on every write, see ``tools/store_cache.py``).
Each pass that completes records its time in the cache (``last_pass``): a deployment without celery beat
reaps nothing, and says so only there, in ``/healthz``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.db.models import Q
from django.utils import timezone

from diagnosis.failures import FailureCode
from diagnosis.graph.trace_builder import build_partial_trace
from diagnosis.models import DiagnosisRun, Intent, RunStatus
from diagnosis.services import CLAIMED_BY_CHARS, run_fail
from tools.store import purge_expired
from tracing.selectors import orchestration_events_from_timeline

logger = logging.getLogger(__name__)

#: The cache key of the last complete pass's time: the cache is the deployment's, as the schedule is.
LAST_PASS_KEY = "reaper:last-pass"


@dataclass(frozen=True)
class _Limits:
    """Why a RUNNING run is ended, each as a condition on its row: read to find the runs, then re-checked
    in the UPDATE that ends each (a heartbeat or a claim written in between keeps the run alive)."""

    lost: Q
    queued: Q
    cancelled: Q

    @classmethod
    def at(cls, now: datetime, stale_after_seconds: int | None, queue_timeout_seconds: int | None) -> _Limits:
        stale_cutoff = now - timedelta(seconds=stale_after_seconds or settings.RUN_STALE_AFTER_SECONDS)
        queue_cutoff = now - timedelta(seconds=queue_timeout_seconds or settings.RUN_QUEUE_TIMEOUT_SECONDS)
        unclaimed = Q(claimed_at__isnull=True)
        return cls(
            # The claim writes the first heartbeat; a claimed run without one counts from its start.
            lost=Q(claimed_at__isnull=False)
            & (Q(heartbeat_at__lt=stale_cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=stale_cutoff)),
            queued=unclaimed & Q(cancel_requested_at__isnull=True, started_at__lt=queue_cutoff),
            # Marked by ``run_cancel``, which then ends it itself; if that failed, no worker ever will. A
            # claimed run's worker stops it at its next node boundary, before its hard time limit: one still
            # running that long after the request has no worker left to do it.
            cancelled=Q(cancel_requested_at__isnull=False)
            & (unclaimed | Q(cancel_requested_at__lt=now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT))),
        )


def stale_runs(
    *, now: datetime | None = None, stale_after_seconds: int | None = None, queue_timeout_seconds: int | None = None
) -> list[DiagnosisRun]:
    """Claimed runs whose heartbeat is older than the stale age, unclaimed ones queued for longer than the
    queue timeout, and those whose cancellation was asked for and not carried out (``_Limits``), oldest
    first."""
    limits = _Limits.at(now or timezone.now(), stale_after_seconds, queue_timeout_seconds)
    ended = limits.lost | limits.queued | limits.cancelled
    return list(DiagnosisRun.objects.filter(ended, status=RunStatus.RUNNING).order_by("started_at"))


def reap_stale_runs(
    *, now: datetime | None = None, stale_after_seconds: int | None = None, queue_timeout_seconds: int | None = None
) -> list[DiagnosisRun]:
    """Fail every stale run; returns those this call ended. A run that cannot be ended is logged and left for
    the next pass, the others ended all the same; the first such error is then raised."""
    now = now or timezone.now()
    limits = _Limits.at(now, stale_after_seconds, queue_timeout_seconds)
    reaped = []
    errors: list[Exception] = []
    runs = stale_runs(now=now, stale_after_seconds=stale_after_seconds, queue_timeout_seconds=queue_timeout_seconds)
    for run in runs:
        try:
            ended = _end(run, limits)
        except Exception as error:  # reported below, once every other run had its turn
            # Runs are taken oldest first: one that cannot be ended must not keep every later one RUNNING.
            logger.exception("could not end stale run %s; the others are still reaped", run.pk)
            errors.append(error)
            continue
        if ended:
            reaped.append(run)
    if errors:
        raise errors[0]
    return reaped


def _end(run: DiagnosisRun, limits: _Limits) -> bool:
    """End ``run`` for the first of its reasons that its row, read again in the UPDATE, still has: asked to
    stop (the user's reason before a lost worker's), its worker lost, or never claimed in time."""
    if run.cancel_requested_at is not None and fail_with_partial_trace(
        run, reason=FailureCode.CANCELLED, still=limits.cancelled
    ):
        return True
    if run.claimed_at is not None:
        return fail_with_partial_trace(run, reason=FailureCode.WORKER_LOST, still=limits.lost)
    return run_fail(run, reason=FailureCode.NOT_STARTED, detail="a backlog, or its task was lost", still=limits.queued)


def fail_with_partial_trace(
    run: DiagnosisRun, *, reason: FailureCode, detail: str = "", still: Q | None = None
) -> bool:
    """Fail a run whose work stopped without ending it (its worker died, its command was interrupted), with
    the partial trace of what its log shows it did."""
    events, unfinished = orchestration_events_from_timeline(run.pk)
    trace = None
    if run.intent == Intent.DIAGNOSIS and (events or unfinished):
        trace = build_partial_trace(events, failed_node=unfinished, termination_reason=reason).to_dict()
    return run_fail(run, reason=reason, detail=detail, orchestration_trace=trace, still=still)


def end_if_orphaned(run_id: uuid.UUID | str, *, worker: str) -> bool:
    """End at once, as ``worker_lost``, a RUNNING run claimed by another process of this worker's host that no
    longer exists; False when there is none.

    Celery hands the task of a pool child that was killed (the OOM killer, ``kill -9``) to another child
    (``task_reject_on_worker_lost``), whose claim then fails: the run is the dead child's. Without this it
    waited ``RUN_STALE_AFTER_SECONDS`` for the reaper. ``worker`` is ``host:pid`` (the task's), as
    ``claimed_by`` records it; a process of another host is never judged from here."""
    host = worker.rpartition(":")[0]
    run = DiagnosisRun.objects.filter(pk=run_id, status=RunStatus.RUNNING, claimed_by__startswith=f"{host}:").first()
    # A name cut at the column's length may have lost the pid's last digits: another process's pid.
    if run is None or run.claimed_by.rpartition(":")[0] != host or len(run.claimed_by) >= CLAIMED_BY_CHARS:
        return False
    pid = run.claimed_by.rpartition(":")[2]
    if not pid.isdigit() or int(pid) == os.getpid() or _alive(int(pid)):
        return False
    return fail_with_partial_trace(
        run, reason=FailureCode.WORKER_LOST, detail="its worker process exited", still=Q(claimed_by=run.claimed_by)
    )


def end_abandoned_runs(run_ids: list[str]) -> int:
    """End the RUNNING runs among ``run_ids`` that the stopping process had queued or was executing, as
    ``interrupted`` (with the partial trace of one it had started); returns how many it ended. Each UPDATE
    checks that the run is still where it was seen: one finishing or claimed at that moment keeps its end."""
    ended = 0
    for run in DiagnosisRun.objects.filter(pk__in=run_ids, status=RunStatus.RUNNING):
        try:
            ended += _end_abandoned(run)
        except Exception:  # one that cannot be ended now must not keep the others RUNNING
            logger.exception("run %s could not be ended as the server stopped; the reaper will end it", run.pk)
    return ended


def _end_abandoned(run: DiagnosisRun) -> bool:
    if run.claimed_at is None:
        return run_fail(
            run,
            reason=FailureCode.INTERRUPTED,
            detail="the server stopped before it started",
            still=Q(claimed_at__isnull=True),
        )
    return fail_with_partial_trace(
        run, reason=FailureCode.INTERRUPTED, detail="the server stopped", still=Q(claimed_by=run.claimed_by)
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True


def scheduled_pass(
    *, stale_after_seconds: int | None = None, queue_timeout_seconds: int | None = None
) -> list[DiagnosisRun]:
    """Fail every stale run, then purge the invocation store's expired entries (even when a run could not be
    ended); returns the runs ended."""
    try:
        reaped = reap_stale_runs(stale_after_seconds=stale_after_seconds, queue_timeout_seconds=queue_timeout_seconds)
    finally:
        purged = purge_expired()
    if purged:
        logger.info("purged %d expired invocation-store entries", purged)
    _record_pass()
    return reaped


def pass_periodically() -> None:
    """A daemon thread that makes a pass now and every ``REAPER_INTERVAL_SECONDS``: in the embedded server,
    and in celery beat (``tasks``), which used to send the pass as a task to the run queue, where a backlog
    longer than the interval had every pass expire unexecuted, when lost workers' runs most needed ending."""
    threading.Thread(target=_passes, name="stale-run-reaper", daemon=True).start()


def _passes() -> None:
    while True:
        try:
            scheduled_pass()
        except Exception:  # the database or anything else: the thread must outlive one failed pass
            logger.exception("the stale-run reaper failed; retrying in %s s", settings.REAPER_INTERVAL_SECONDS)
        finally:
            connections.close_all()
        time.sleep(settings.REAPER_INTERVAL_SECONDS)


def last_pass() -> float | None:
    """When the last complete pass of any process ended (a Unix time), or None if none is recorded."""
    recorded = cache.get(LAST_PASS_KEY)
    return float(recorded) if isinstance(recorded, int | float) else None


def _record_pass() -> None:
    # The pass itself succeeded: a cache that cannot take the time must not turn it into a failure.
    try:
        cache.set(LAST_PASS_KEY, time.time(), timeout=None)
    except Exception as error:
        logger.warning("the reaper's pass could not be recorded in the cache: %s", error)
