"""The one thread per process on which SSE streams read the database.

Under ASGI, Django gives every request its own thread for synchronous code, created at the request's
first synchronous call and kept until the response ends; for a stream that is its whole life. A stream
that read storage on it kept an idle thread and an open database connection per open page: 2,000 pages
were 2,000 connections (past MariaDB's default ``max_connections`` of 151) and a process of ~1 GB whose
runs slowed down (issue 19, docs/performance.md). Inside ``stream_reads()`` every thread-sensitive call
(the view's checks, django-eventstream's reads, the wrapper's gap fills) runs instead on one shared
thread. The reads are short and happen only when a stream (re)connects or finds a gap, so one thread is
enough.

The thread keeps its one connection from a read to the next for up to ``KEEP_CONNECTION_SECONDS``: reads
come in bursts (a stream's checks, then the library's first read; a page's reconnects), and opening a
SQLite connection cost more than the reads of a stream's opening (docs/performance.md, "SSE latency").
Otherwise a read is scoped like a request (``close_old_connections`` before and after): a connection idle
past that time is closed before it is used again (well within MariaDB's ``wait_timeout``), one that broke
or was left in a transaction is closed at once, and a kept one must answer a ping (MariaDB) to be used. A
process holds at most this one connection for all its streams, whatever their number.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from asgiref.sync import ThreadSensitiveContext
from django.db import close_old_connections, connections

T = TypeVar("T")

KEEP_CONNECTION_SECONDS = 30.0


def _as_a_request(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    close_old_connections()
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None and not connection.is_usable():  # MariaDB: a ping
            connection.close()
    try:
        return fn(*args, **kwargs)
    finally:
        # Django closes a connection at this point once past ``close_at`` (``CONN_MAX_AGE``, 0 under
        # ASGI); for this thread's connection that is the end of its idle time, from now.
        kept_until = time.monotonic() + KEEP_CONNECTION_SECONDS
        for connection in connections.all(initialized_only=True):
            if connection.connection is not None and connection.close_at is not None:
                connection.close_at = max(connection.close_at, kept_until)
        close_old_connections()


class _ReadsExecutor(ThreadPoolExecutor):
    """One worker (asgiref runs a context's thread-sensitive calls one at a time, on one thread), each call
    scoped like a request for its database connection, which it keeps between bursts of reads."""

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="sse-reads")

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return super().submit(_as_a_request, fn, *args, **kwargs)


_EXECUTOR = _ReadsExecutor()


def stream_reads() -> ThreadSensitiveContext:
    """A block whose thread-sensitive calls run on the process's SSE read thread (a fresh context each
    time: asgiref enters a context with an executor only once)."""
    return ThreadSensitiveContext(executor=_EXECUTOR)
