"""Hand a run to whatever executes runs: Celery workers, or the embedded in-process thread pool.

Embedded mode has no broker. The same Celery task is executed with ``apply()`` on one of a bounded
number of threads of this process, so the request returns at once and the code path is the worker's.
"""

from __future__ import annotations

import logging
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import connections

logger = logging.getLogger(__name__)

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _embedded_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=settings.EMBEDDED_WORKER_THREADS, thread_name_prefix="run")
        return _pool


def _execute_in_thread(run_id: str) -> None:
    from diagnosis.tasks import execute_run

    try:
        execute_run.apply(args=(run_id,))
    finally:
        # Threads of the pool outlive the run; close their connections so none is left half-open.
        connections.close_all()


def dispatch_run(run_id: uuid.UUID | str) -> None:
    if settings.RUN_EXECUTION == "embedded":
        _embedded_pool().submit(_execute_in_thread, str(run_id))
        return
    from diagnosis.tasks import execute_run

    execute_run.apply_async(args=(str(run_id),))
