"""Hand a run to whatever executes runs: Celery workers, or the embedded in-process thread pool.

Embedded mode has no broker. The same Celery task is executed with ``apply()`` on one of a bounded
number of threads of this process, so the request returns at once and the code path is the worker's.
Nor has it Celery beat, so the pool starts the stale-run reaper on a timer of its own: a run left RUNNING
by a previous process that was stopped mid-run still ends (after ``RUN_STALE_AFTER_SECONDS`` when it had
started, after ``RUN_QUEUE_TIMEOUT_SECONDS`` when it was still queued in that process's pool). The pool's threads run at a lower CPU priority
than the server's own (``RUN_THREAD_NICENESS``), so that the pages and streams the process serves are not
slowed down by the runs it executes beside them.

With a broker (``REDIS_URL``), ``redis_reachable`` is the quick check made before a run is created, and
``dispatch_run`` raises ``BrokerUnavailable`` when the hand-off itself fails (Redis went away in between);
``diagnosis.submission`` turns both into a JSON 503 (docs/decisions.md, "Redis down").
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from functools import cache
from typing import Any

import redis
from celery import Task
from django.conf import settings
from django.db import connections
from kombu.exceptions import OperationalError

from diagnosis.reaper import end_abandoned_runs, pass_periodically
from diagnosis.tasks import execute_run

logger = logging.getLogger(__name__)

# Added to the niceness of each embedded run thread (Linux keeps a niceness per thread).
RUN_THREAD_NICENESS = 10

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
# The runs handed to this process's pool that it has not finished with (queued or executing): ended by
# ``stop_embedded_runtime`` when the server stops.
_dispatched: set[str] = set()
# Other apps' follow-up work (the alerts app's deliveries, whose retries follow at once in embedded mode and may
# each wait out a sink's timeout): threads of its own, so that it never keeps a run waiting for a thread.
FOLLOW_UP_THREADS = 2
_follow_ups: ThreadPoolExecutor | None = None


class BrokerUnavailable(RuntimeError):
    """The run could not be handed to the broker (Redis refused, timed out or is unreachable)."""


@cache
def _redis_client(url: str, connect_timeout: float, socket_timeout: float) -> redis.Redis:
    # One attempt within the configured timeouts (redis-py would retry with backoff for seconds).
    return redis.Redis.from_url(url, socket_connect_timeout=connect_timeout, socket_timeout=socket_timeout, retry=None)


def redis_reachable() -> bool:
    """Whether the configured Redis (broker and SSE fan-out) answers a PING; True when none is configured."""
    if not settings.REDIS_URL:
        return True
    client = _redis_client(
        settings.REDIS_URL, settings.REDIS_CONNECT_TIMEOUT_SECONDS, settings.REDIS_SOCKET_TIMEOUT_SECONDS
    )
    try:
        return bool(client.ping())
    except redis.RedisError as error:
        logger.warning("Redis is unreachable: %s", error)
        return False


def _behind_the_server() -> None:
    """Lower this run thread's CPU priority below the server's threads (event loop, requests, SSE reads).

    A run shares the process with the requests: while it computes, the POST that started it and the opening
    of its stream waited for the CPU behind it whenever the machine was busy (docs/performance.md, "SSE
    latency"). Linux only: elsewhere the niceness is the whole process's, and the server must keep its own."""
    if not sys.platform.startswith("linux"):
        return
    try:
        os.nice(RUN_THREAD_NICENESS)
    except OSError as error:  # a sandbox that forbids it: runs at the server's priority, as before
        logger.info("embedded run threads keep the server's CPU priority: %s", error)


def run_pool() -> ThreadPoolExecutor:
    """A new pool of embedded run threads, each behind the server in CPU priority."""
    return ThreadPoolExecutor(
        max_workers=settings.EMBEDDED_WORKER_THREADS, thread_name_prefix="run", initializer=_behind_the_server
    )


def _embedded_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = run_pool()
            pass_periodically()
        return _pool


def _follow_up_pool() -> ThreadPoolExecutor:
    global _follow_ups
    with _pool_lock:
        if _follow_ups is None:
            _follow_ups = ThreadPoolExecutor(
                max_workers=FOLLOW_UP_THREADS, thread_name_prefix="follow-up", initializer=_behind_the_server
            )
        return _follow_ups


def start_embedded_runtime() -> None:
    """Start the pool and its reaper now (the ASGI app calls this in embedded mode), not at the first run."""
    if settings.RUN_EXECUTION == "embedded":
        _embedded_pool()


def stop_embedded_runtime() -> None:
    """The server is stopping (``config.lifespan``): the runs queued in this process's pool are never started,
    and those its threads execute would end with the process, RUNNING until the next process's reaper (ten
    minutes for one it had claimed, half an hour for one it had queued; meanwhile they count against their
    users' ``RUN_MAX_ACTIVE_PER_USER``). Both end now, ``interrupted``; a thread still executing one stops at
    its next check, finding it ended."""
    if settings.RUN_EXECUTION != "embedded" or _pool is None:
        return
    _pool.shutdown(wait=False, cancel_futures=True)
    with _pool_lock:
        left = sorted(_dispatched)
    try:
        ended = end_abandoned_runs(left)
    finally:
        connections.close_all()
    if ended:
        logger.warning("the server stopped: %d run(s) it was executing or had queued ended as interrupted", ended)


def _execute_embedded(run_id: str) -> None:
    try:
        _apply_in_thread(execute_run, (run_id,))
    finally:
        with _pool_lock:
            _dispatched.discard(run_id)


def _apply_in_thread(task: Task, args: tuple[str, ...]) -> None:
    try:
        task.apply(args=args)
    finally:
        # Threads of the pool outlive the task; close their connections so none is left half-open.
        connections.close_all()


def submit_task(task: Task, *args: str) -> None:
    """Have ``task`` executed where runs execute: sent to the Celery workers, or applied on the embedded
    follow-up threads (never the run pool's: a sink that hangs must not keep a run from starting).

    For other apps' follow-up work (the alerts app's deliveries). ``apply()`` runs a task's retries at once,
    in the same thread: Celery's eager mode ignores a retry's countdown, so backoff only applies on workers.
    Broker errors are the caller's (``kombu`` ``OperationalError``, ``redis.RedisError``).
    """
    if settings.RUN_EXECUTION == "embedded":
        _follow_up_pool().submit(_apply_in_thread, task, args)
        return
    task.apply_async(args=args)


def dispatch_run(run_id: uuid.UUID | str) -> None:
    """Hand the run to its executor; ``BrokerUnavailable`` when Celery's broker cannot take it."""
    if settings.RUN_EXECUTION == "embedded":
        with _pool_lock:
            _dispatched.add(str(run_id))
        _embedded_pool().submit(_execute_embedded, str(run_id))
        return
    # No time limits in the message. Left out, Celery would copy this (web) process's settings into it, and a
    # worker applies a message's limits over its own. An explicit None clears the task's defaults (see
    # ``Celery.send_task``), so each worker applies its own RUN_SOFT_TIME_LIMIT_SECONDS and
    # RUN_TIME_LIMIT_SECONDS: the limits its run budget (``execution.model_deadline``) is computed from.
    try:
        execute_run.apply_async(args=(str(run_id),), soft_time_limit=None, time_limit=None)
    except (OperationalError, redis.RedisError) as error:
        raise BrokerUnavailable(str(error)) from error


def executor_latency(timeout: float) -> float | None:
    """Seconds until whatever executes runs answered, or None when nothing did within ``timeout`` (``/healthz``).

    Celery: the first worker that consumes this deployment's queue replies to an ``active_queues`` broadcast,
    which its main process answers however busy its pool is; a worker on another queue does not count,
    since it would never take a run. Embedded: a thread of the run pool executes a no-op, so a pool whose
    threads are all busy for longer than ``timeout`` does not answer either; nor does a pool that was never
    started (the ASGI app starts it; asking must not start it, with its reaper, in any other process).
    """
    start = time.perf_counter()
    if settings.RUN_EXECUTION == "embedded":
        pool = _pool
        if pool is None:
            return None
        try:
            pool.submit(lambda: None).result(timeout=timeout)
        except FutureTimeout:
            return None
        return time.perf_counter() - start
    answers: list[float] = []

    def on_reply(reply: dict[str, list[dict[str, Any]]]) -> None:
        queues = [queue.get("name") for worker_queues in reply.values() for queue in worker_queues or ()]
        if settings.CELERY_TASK_DEFAULT_QUEUE in queues:
            answers.append(time.perf_counter() - start)

    execute_run.app.control.inspect(timeout=timeout, callback=on_reply).active_queues()
    return answers[0] if answers else None
