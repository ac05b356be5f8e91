"""Execute one claimed run through its intent's path and persist how it ended.

This is the service the Celery task calls. Whatever happens inside a path, the run leaves RUNNING here:
a ``RunResult`` finishes it, a ``RunFailure`` or any unexpected error fails it (with the partial trace the
path could save), and the terminal services publish exactly one ``done``.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import tenacity
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections

from config.run_scope import run_scope
from diagnosis.failures import FailureCode
from diagnosis.models import DiagnosisRun, Intent
from diagnosis.paths import IntentPath
from diagnosis.paths.errors import RunFailure
from diagnosis.paths.options import ExecutionOptions
from diagnosis.progress import RunEnded, RunProgress
from diagnosis.providers.deadline import Deadline
from diagnosis.reaper import end_if_orphaned, fail_with_partial_trace
from diagnosis.services import RunResult, run_claim, run_fail, run_finish
from tracing.models import DiagnosisTraceEvent
from tracing.timeline import owned_log

logger = logging.getLogger(__name__)
# Tries at a read or write around a run's claim whose database fails (1 s, then 2 s apart).
FAIL_ATTEMPTS = 3
#: Kept back from the run's time limit by the retries of its end: the last try must be over before the limit.
END_MARGIN_SECONDS = 5.0


# Each loader imports its path module on first use, so a greeting loads neither LangGraph nor the providers.
def _system_chat() -> IntentPath:
    from diagnosis.paths import system_chat

    return system_chat.execute


def _knowledge_query() -> IntentPath:
    from diagnosis.paths import knowledge_query

    return knowledge_query.execute


def _diagnosis_graph() -> IntentPath:
    from diagnosis.paths import diagnosis_graph

    return diagnosis_graph.execute


PATH_LOADERS: Mapping[Intent, Callable[[], IntentPath]] = {
    Intent.SYSTEM_CHAT: _system_chat,
    Intent.KNOWLEDGE_QUERY: _knowledge_query,
    Intent.DIAGNOSIS: _diagnosis_graph,
}


def _execute_path(run: DiagnosisRun, progress: RunProgress, options: ExecutionOptions) -> RunResult:
    return PATH_LOADERS[Intent(run.intent)]()(run, progress, options)


def model_deadline() -> Deadline:
    """The run's model budget, from now: its soft time limit less the reserve for the fallback answer.

    Read here, in the process that executes the run, because that process's limits are the ones that apply:
    a Celery worker's own ``RUN_SOFT_TIME_LIMIT_SECONDS`` (the task message carries none, see ``dispatch``),
    or in embedded mode, where no Celery limit can interrupt a thread, the same setting as the run's bound.
    """
    return Deadline.after(settings.CELERY_TASK_SOFT_TIME_LIMIT - settings.RUN_FALLBACK_RESERVE_SECONDS)


@dataclasses.dataclass(frozen=True)
class _Limits:
    """When the task started (``time.monotonic``), for the retries of its end: they stop before the soft time
    limit while it has not fired (it would interrupt a retry), else before the hard one that kills the task."""

    started: float

    def end_retries(self) -> _StopBefore:
        """When every retry of the end stops, from now on: one deadline for all the calls of one end."""
        now = time.monotonic()
        soft = self.started + settings.CELERY_TASK_SOFT_TIME_LIMIT - END_MARGIN_SECONDS
        hard = self.started + settings.CELERY_TASK_TIME_LIMIT - END_MARGIN_SECONDS
        return _StopBefore(soft if now < soft else hard)

    def ending(self) -> tenacity.Retrying:
        """``_on_lost_connection`` for the calls of one end, stopped by ``end_retries``."""
        return _on_lost_connection.copy(stop=self.end_retries())


class _StopBefore(tenacity.stop.stop_base):
    """Stop before the next try would start past ``deadline`` (``time.monotonic``): a deadline, not a delay
    counted from each call's first try, so that an end made of two calls keeps to one limit."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline

    def __call__(self, retry_state: tenacity.RetryCallState) -> bool:
        return time.monotonic() + (retry_state.upcoming_sleep or 0.0) >= self.deadline


def _fail(
    run: DiagnosisRun,
    progress: RunProgress,
    limits: _Limits,
    *,
    reason: FailureCode,
    detail: str = "",
    trace: dict[str, Any] | None = None,
) -> bool:
    """``run_fail``, after the reports the run still holds, so that the timeline keeps them before its end;
    reports that cannot be written now (the database failing, the run ended elsewhere) go with the run. A run
    deleted meanwhile (its session was) gets none: they would outlive it in the log, which has no foreign key.

    Its database failing, the end is tried again for as long as the time limit allows: a MariaDB restart or
    failover takes longer than a few seconds, and a run left RUNNING waits for the reaper, which can only say
    that its worker stopped, ten minutes later. A database that hangs rather than refuses can hold one try
    past the soft time limit, which then interrupts it: the end is tried again within the hard one."""
    try:
        return _fail_within(run, progress, limits, reason=reason, detail=detail, trace=trace)
    except SoftTimeLimitExceeded:
        logger.warning("run %s: the soft time limit interrupted its end; trying again before the hard one", run.pk)
        return _fail_within(run, progress, limits, reason=reason, detail=detail, trace=trace)


def _fail_within(
    run: DiagnosisRun,
    progress: RunProgress,
    limits: _Limits,
    *,
    reason: FailureCode,
    detail: str,
    trace: dict[str, Any] | None,
) -> bool:
    ending = limits.ending()
    if not ending(_still_there_once, run):
        return False
    try:
        progress.flush()
    except Exception:
        logger.warning("run %s: its last progress reports could not be written", run.pk, exc_info=True)
    with progress.ending():
        return ending(_fail_once, run, reason=reason, detail=detail, trace=trace)


def _claim(run_id: uuid.UUID | str, worker: str, *, again: bool) -> DiagnosisRun | None:
    """``run_claim``, tried again after a database error: a claim is a conditional UPDATE, and one whose
    commit went through before the connection broke finds the run its own (``again``)."""
    try:
        return run_claim(run_id, worker=worker, again=again)
    except (OperationalError, InterfaceError):
        close_old_connections()
        return _on_lost_connection(run_claim, run_id, worker=worker, again=True)


def _reconnect_after_error(state: tenacity.RetryCallState) -> None:
    run = state.args[0]  # the run, or its id (the claim)
    logger.warning("run %s: the database failed (attempt %d); retrying", getattr(run, "pk", run), state.attempt_number)
    close_old_connections()  # a connection the error broke is closed, so the retry opens a new one


# Every read and write of a run's claim and end, again after a database error. The error that ended the run
# is often the database's own, its connection left broken: a connection lost or a server gone for a moment is
# worth a few seconds (the claim), or what the time limit leaves (the end, ``_Limits``); a refused value
# (DataError, IntegrityError) would be refused again.
_on_lost_connection = tenacity.Retrying(
    retry=tenacity.retry_if_exception_type((OperationalError, InterfaceError)),
    stop=tenacity.stop_after_attempt(FAIL_ATTEMPTS),
    wait=tenacity.wait_exponential(multiplier=1, max=4),
    before_sleep=_reconnect_after_error,
    reraise=True,
)


def _still_there_once(run: DiagnosisRun) -> bool:
    return DiagnosisRun.objects.filter(pk=run.pk).exists()


def _fail_once(run: DiagnosisRun, *, reason: FailureCode, detail: str, trace: dict[str, Any] | None) -> bool:
    """``run_fail``, again after a database error: a run's end is the one write that explains it, and the
    database may have failed for a moment (the very error that ended the run). A few seconds, well within the
    hard time limit, before the run is left to the reaper, which can only say that its worker stopped.

    A run its path did not fail with a trace (the answer's rendering or the finish's transaction broke after
    the graph ended, a time limit then) gets the partial trace its log shows, as a reaped run does: every
    graph run keeps one. The run is read again first: a finish that rolled back left its values on it; False
    when it is gone (its session was deleted meanwhile: nothing is left to end)."""
    try:
        run.refresh_from_db()
    except DiagnosisRun.DoesNotExist:
        return False
    if trace is None:
        return fail_with_partial_trace(run, reason=reason, detail=detail)
    return run_fail(run, reason=reason, detail=detail, orchestration_trace=trace)


def run_execute(
    run_id: uuid.UUID | str, *, worker: str, options: ExecutionOptions | None = None, again: bool = False
) -> DiagnosisRun | None:
    """Claim and execute a run; None when it was already claimed or has ended (a redelivered message), or
    was deleted while it ran. ``again``: the task's retry after a database error (``run_claim``)."""
    # First of all: Celery counts the time limit from the task's start.
    limits = _Limits(started=time.monotonic())
    options = dataclasses.replace(options or ExecutionOptions(), model_deadline=model_deadline())
    progress = RunProgress(run_id)
    # From the claim to the end this worker owns the run: every write of this process to the run's event
    # log (the claim, reports, the terminal events, a canceller's thread in embedded mode) is numbered in
    # memory. Registered before the claim, so that the claim's own event is too; unused if the claim fails.
    # Its reports are written before each wait outside the process (``config.run_scope``), and before it ends.
    with owned_log(progress.log), run_scope(before_wait=progress.flush):
        run = _claim(run_id, worker, again=again)
        if run is None:
            if end_if_orphaned(run_id, worker=worker):
                logger.warning("run %s: the worker process that claimed it is gone; ended as worker_lost", run_id)
            else:
                logger.info("run %s already claimed or finished; skipping", run_id)
            return None
        progress.claimed()
        ended = False  # by this worker, which read the run back as it ended it
        try:
            result = _execute_path(run, progress, options)
            progress.flush()
            with progress.ending():
                ended = limits.ending()(run_finish, run, result)
        except RunFailure as failure:
            ended = _fail(
                run, progress, limits, reason=failure.code, detail=failure.detail, trace=failure.orchestration_trace
            )
        except SoftTimeLimitExceeded:
            ended = _fail(run, progress, limits, reason=FailureCode.TIME_LIMIT)
        except RunEnded:
            logger.info("run %s was ended (reaped) while its worker was busy; stopping", run.pk)
        except Exception:
            logger.exception("run %s raised", run.pk)
            ended = _fail(run, progress, limits, reason=FailureCode.INTERNAL_ERROR)
    if not ended:
        try:
            run.refresh_from_db()
        except DiagnosisRun.DoesNotExist:
            logger.info("run %s was deleted (with its session) while its worker was busy", run.pk)
            # Reports written after the delete (the log has no foreign key) would outlive the run.
            DiagnosisTraceEvent.log.filter(run_id=run.pk).delete()
            return None
    return run
