"""The one thread per process on which SSE streams read the database.

Under ASGI, Django gives every request its own thread for synchronous code, created at the request's
first synchronous call and kept until the response ends; for a stream that is its whole life. A stream
that read storage on it kept an idle thread and an open database connection per open page: 2,000 pages
were 2,000 connections (past MariaDB's default ``max_connections`` of 151) and a process of ~1 GB whose
runs slowed down (issue 19, docs/performance.md). Inside ``stream_reads()`` every thread-sensitive call
(the view's checks, django-eventstream's reads, the wrapper's gap fills) runs instead on one shared
thread, and each call opens and closes its connection the way a request does (``close_old_connections``
before and after: with ``CONN_MAX_AGE=0`` nothing stays open between reads, with a maximum age it is
reused and health-checked). The reads are short and happen only when a stream (re)connects or finds a
gap, so one thread is enough.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from asgiref.sync import ThreadSensitiveContext
from django.db import close_old_connections

T = TypeVar("T")


def _as_a_request(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    close_old_connections()
    try:
        return fn(*args, **kwargs)
    finally:
        close_old_connections()


class _ReadsExecutor(ThreadPoolExecutor):
    """One worker (asgiref runs a context's thread-sensitive calls one at a time, on one thread), each call
    scoped like a request for its database connection."""

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="sse-reads")

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return super().submit(_as_a_request, fn, *args, **kwargs)


_EXECUTOR = _ReadsExecutor()


def stream_reads() -> ThreadSensitiveContext:
    """A block whose thread-sensitive calls run on the process's SSE read thread (a fresh context each
    time: asgiref enters a context with an executor only once)."""
    return ThreadSensitiveContext(executor=_EXECUTOR)
