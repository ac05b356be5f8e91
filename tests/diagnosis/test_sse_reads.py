"""The SSE read thread keeps its one connection between reads that come close together, and only then."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections

from diagnosis.sse import reads

pytestmark = pytest.mark.django_db(transaction=True)


def on_read_thread(fn):
    """Run ``fn`` as the SSE reads run: on the process's read thread, scoped like a request."""
    return reads._EXECUTOR.submit(fn).result(timeout=10)


def held_by_read_thread():
    """The read thread's open database connection (None when closed), looked at between reads."""
    return ThreadPoolExecutor.submit(reads._EXECUTOR, lambda: connection.connection).result(timeout=10)


@pytest.fixture(autouse=True)
def read_thread_closed_after():
    yield
    on_read_thread(connections.close_all)


def read() -> object:
    """One read; the connection it used."""
    get_user_model().objects.exists()
    return connection.connection


def test_reads_close_together_share_one_connection():
    first = on_read_thread(read)

    assert held_by_read_thread() is first  # kept while idle, within its time
    assert on_read_thread(read) is first


def test_a_connection_idle_past_its_time_is_closed_and_replaced(monkeypatch):
    monkeypatch.setattr(reads, "KEEP_CONNECTION_SECONDS", 0.0)
    first = on_read_thread(read)

    assert held_by_read_thread() is None  # closed at the end of the read
    assert on_read_thread(read) is not first


def test_a_connection_left_in_a_transaction_is_not_kept():
    def leave_a_transaction_open() -> None:
        connection.set_autocommit(False)
        get_user_model().objects.exists()

    on_read_thread(leave_a_transaction_open)

    assert held_by_read_thread() is None
