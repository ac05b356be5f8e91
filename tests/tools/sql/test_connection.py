"""The embedded read-only connection, and JSON-safe values from either database."""

from __future__ import annotations

import datetime
import hashlib
import sqlite3
import sys
import time
from contextlib import closing, suppress
from decimal import Decimal
from pathlib import Path

import MySQLdb
import pytest
import sqlglot

from config.run_scope import run_scope
from tests.tools.conftest import TINY_PACK
from tests.tools.sql_corpus import EXHAUSTING_SQL, HOSTILE_SQL, WRITTEN_FILES
from tools.errors import ToolBackendError, ToolError, ToolTimeout
from tools.scenarios.loader import build_business_sqlite
from tools.scenarios.pack import read_pack
from tools.sql import connection as connection_module
from tools.sql import statement_process
from tools.sql.connection import (
    QUIET_WAIT_SECONDS,
    MySQLReadOnlyConnection,
    SQLiteReadOnlyConnection,
    open_business_connection,
)
from tools.sql.rows import json_safe


@pytest.fixture
def database(tmp_path) -> Path:
    path = tmp_path / "business.sqlite3"
    build_business_sqlite(read_pack(TINY_PACK), path)
    return path


def far() -> float:
    return time.monotonic() + 5


def test_it_reads_rows_columns_and_flags_more(database):
    connection = SQLiteReadOnlyConnection(database, max_bytes=65536)

    result = connection.execute("SELECT order_no, amount FROM orders ORDER BY order_no", max_rows=2, deadline=far())

    assert result.columns == ["order_no", "amount"]
    assert result.rows == [["A-1001", 19.9], ["A-1002", 5]]
    assert result.truncated is True
    assert result.payload() == {
        "columns": ["order_no", "amount"],
        "rows": result.rows,
        "row_count": 2,
        "truncated": True,
    }


def test_it_fails_clearly_without_a_business_database(tmp_path):
    with pytest.raises(ToolBackendError) as raised:
        SQLiteReadOnlyConnection(tmp_path / "missing.sqlite3", max_bytes=65536)

    assert raised.value.code == "no_business_data"


def test_it_opens_the_embedded_database_when_no_url_is_set(settings, database):
    settings.BUSINESS_DATABASE_URL = ""
    settings.BUSINESS_SQLITE_PATH = database

    connection = open_business_connection()

    assert isinstance(connection, SQLiteReadOnlyConnection)
    connection.close()


def test_it_interrupts_a_statement_at_the_deadline(database):
    connection = SQLiteReadOnlyConnection(database, max_bytes=65536)
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT COUNT(*) FROM n"

    started = time.monotonic()
    with pytest.raises(ToolTimeout):
        connection.execute(endless, max_rows=10, deadline=started + 0.2)

    assert time.monotonic() - started < 2


EMBEDDED_EXHAUSTING = [statement for statement in EXHAUSTING_SQL if statement.sqlite]


@pytest.mark.parametrize("statement", EMBEDDED_EXHAUSTING, ids=[statement.name for statement in EMBEDDED_EXHAUSTING])
def test_it_stops_a_statement_inside_one_function_call_even_without_the_guard(database, statement):
    sql = sqlglot.transpile(statement.sql, read="mysql", write="sqlite")[0]

    # Ending with rows would mean the statement ran to its end, past the deadline.
    with closing(SQLiteReadOnlyConnection(database, max_bytes=65536)) as connection, pytest.raises(ToolError):
        connection.execute(sql, max_rows=10, deadline=time.monotonic() + 1)


@pytest.mark.parametrize("statement", EMBEDDED_EXHAUSTING, ids=[statement.name for statement in EMBEDDED_EXHAUSTING])
def test_query_mysql_ends_a_statement_inside_one_function_call_blocked_or_failed(harness, loaded, settings, statement):
    settings.TOOL_TIMEOUT_SECONDS = 1

    result = harness.call("query_mysql", {"sql": statement.sql})

    assert (result.status, result.error_code) == statement.sqlite


def test_it_reports_a_failed_statement_process_as_a_backend_error(database, monkeypatch):
    monkeypatch.setattr("tools.sql.connection._SQLITE_PROCESS", (sys.executable, "-c", "raise SystemExit(3)"))

    with pytest.raises(ToolBackendError) as raised:
        SQLiteReadOnlyConnection(database, max_bytes=65536).execute("SELECT 1", max_rows=10, deadline=far())

    assert raised.value.code == "backend_error"
    assert "exit status 3" in raised.value.message


def test_it_never_builds_a_single_value_larger_than_the_payload_budget(database):
    connection = SQLiteReadOnlyConnection(database, max_bytes=65536)

    # printf gives NULL past the length limit; other functions fail with "too big".
    result = connection.execute("SELECT printf('%.*c', 5000000, 'x') FROM orders", max_rows=10, deadline=far())
    assert result.rows == [[None]] * 5
    with pytest.raises(ToolBackendError, match="too big"):
        connection.execute("SELECT zeroblob(5000000) FROM orders", max_rows=10, deadline=far())


def test_it_stops_reading_rows_once_the_byte_budget_is_spent(database):
    connection = SQLiteReadOnlyConnection(database, max_bytes=65536)

    result = connection.execute("SELECT printf('%.*c', 40000, 'x') FROM orders", max_rows=10, deadline=far())

    assert len(result.rows) == 1 and result.truncated is True  # 40 000 fits 65 536 once, not twice


def test_a_row_larger_than_the_budget_is_never_kept(database):
    connection = SQLiteReadOnlyConnection(database, max_bytes=65536)

    result = connection.execute("SELECT printf('%.*c', 70000, 'x') FROM orders", max_rows=10, deadline=far())

    assert result.rows == [] and result.truncated is True


def test_a_result_of_hundreds_of_columns_is_refused(database):
    connection = SQLiteReadOnlyConnection(database, max_bytes=65536)
    wide = ", ".join(["printf('%.*c', 900000, 'x')"] * 300)

    with pytest.raises(ToolBackendError, match="too many columns"):
        connection.execute(f"SELECT {wide} FROM orders", max_rows=10, deadline=far())


def test_it_denies_the_catalog_even_without_the_guard(database):
    connection = SQLiteReadOnlyConnection(database, max_bytes=65536)

    with pytest.raises(ToolBackendError, match=r"access to sqlite_master\.sql is prohibited"):
        connection.execute("SELECT sql FROM sqlite_master", max_rows=10, deadline=far())


@pytest.mark.parametrize(("sql", "reason"), HOSTILE_SQL, ids=[sql[:60] for sql, _ in HOSTILE_SQL])
def test_it_writes_nothing_when_the_guard_is_bypassed(database, sql, reason):
    before = hashlib.sha256(database.read_bytes()).hexdigest()

    # Refusing (raising) and reading harmlessly are both fine; writing anything is not.
    with closing(SQLiteReadOnlyConnection(database, max_bytes=65536)) as connection, suppress(ToolBackendError):
        connection.execute(sql, max_rows=10, deadline=time.monotonic() + 0.5)

    assert hashlib.sha256(database.read_bytes()).hexdigest() == before
    assert not any(Path(path).exists() for path in WRITTEN_FILES)
    with sqlite3.connect(database) as check:
        assert check.execute("SELECT COUNT(*) FROM orders").fetchone() == (5,)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Decimal("12.10"), "12.10"),
        (Decimal("4"), 4),  # MariaDB's SUM of an integer column: a number, not the short text "4"
        (Decimal("12.00"), "12.00"),  # a DECIMAL(10, 2) column keeps its scale
        (Decimal("NaN"), "NaN"),
        (datetime.datetime(2024, 5, 1, 10, 5), "2024-05-01T10:05:00"),
        (datetime.date(2024, 5, 1), "2024-05-01"),
        (datetime.time(10, 5), "10:05:00"),
        (datetime.timedelta(hours=1, minutes=2), "1:02:00"),
        (b"\x00\xff", "00ff"),
        (float("inf"), "inf"),
        (1.5, 1.5),
        (None, None),
        (True, True),
        ("text", "text"),
    ],
)
def test_it_makes_values_json_safe(value, expected):
    assert json_safe(value) == expected


def idle_pids() -> list[int]:
    return [child.pid for child in statement_process._idle]


def test_one_warm_process_answers_statement_after_statement_until_one_overruns(database):
    connection = SQLiteReadOnlyConnection(database, max_bytes=65536)
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT COUNT(*) FROM n"

    connection.execute("SELECT 1", max_rows=1, deadline=far())
    first = idle_pids()
    assert connection.execute("SELECT order_no FROM orders", max_rows=1, deadline=far()).rows == [["A-1001"]]
    assert idle_pids() == first

    with pytest.raises(ToolTimeout):
        connection.execute(endless, max_rows=10, deadline=time.monotonic() + 0.2)
    assert idle_pids() == []  # the overrunning child was killed, not put back

    assert connection.execute("SELECT 1", max_rows=1, deadline=far()).rows == [[1]]
    (replacement,) = idle_pids()
    assert replacement not in first


def test_a_refused_statement_leaves_its_process_usable(database):
    connection = SQLiteReadOnlyConnection(database, max_bytes=65536)
    connection.execute("SELECT 1", max_rows=1, deadline=far())
    before = idle_pids()

    with pytest.raises(ToolBackendError):
        connection.execute("DELETE FROM orders", max_rows=1, deadline=far())

    assert idle_pids() == before
    assert connection.execute("SELECT COUNT(*) FROM orders", max_rows=1, deadline=far()).rows == [[5]]


# About a second of work in the child, whatever the machine: far past ``QUIET_WAIT_SECONDS``.
SLOW = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) SELECT COUNT(*) FROM n"


def test_a_statement_answered_at_once_is_waited_for_without_a_word(database):
    connection = SQLiteReadOnlyConnection(database, max_bytes=65536)
    connection.execute("SELECT 1", max_rows=1, deadline=far())  # a warm child, as in a run
    said = []

    with run_scope(before_wait=lambda: said.append("waiting")):
        assert connection.execute("SELECT COUNT(*) FROM orders", max_rows=1, deadline=far()).rows == [[5]]

    assert said == []


def test_a_slow_statement_says_once_that_the_run_is_waiting_then_answers(database):
    connection = SQLiteReadOnlyConnection(database, max_bytes=65536)
    said = []

    with run_scope(before_wait=lambda: said.append(time.monotonic())):
        started = time.monotonic()
        rows = connection.execute(SLOW, max_rows=1, deadline=time.monotonic() + 60).rows
        answered = time.monotonic()

    assert rows == [[3000000]]
    assert len(said) == 1 and started + QUIET_WAIT_SECONDS <= said[0] < answered


def test_a_run_that_cannot_wait_kills_the_statements_child(database):
    connection = SQLiteReadOnlyConnection(database, max_bytes=65536)
    connection.execute("SELECT 1", max_rows=1, deadline=far())
    (child,) = statement_process._idle

    def refuse() -> None:
        raise RuntimeError("the run's reports could not be written")

    with run_scope(before_wait=refuse), pytest.raises(RuntimeError, match="could not be written"):
        connection.execute(SLOW, max_rows=1, deadline=time.monotonic() + 60)

    # Killed, not left computing with its reply bound for the next statement's pipe.
    assert child._process.poll() is not None and idle_pids() == []
    assert connection.execute("SELECT 1", max_rows=1, deadline=far()).rows == [[1]]


class _SessionGoneConnection:
    """A MySQL connection whose server went away after the handshake: its first statement fails."""

    closed = False

    def thread_id(self) -> int:
        return 7

    def get_server_info(self) -> str:
        return "10.11.19-MariaDB"

    def cursor(self):
        raise MySQLdb.OperationalError(2006, "MySQL server has gone away")

    def close(self) -> None:
        type(self).closed = True


def test_a_mysql_session_lost_before_it_is_read_only_is_a_backend_error(monkeypatch):
    monkeypatch.setattr(connection_module.MySQLdb, "connect", lambda **_: _SessionGoneConnection())

    with pytest.raises(ToolBackendError, match=r"cannot reach the business database: .*gone away") as raised:
        MySQLReadOnlyConnection("mysql://reader@127.0.0.1:3306/business", timeout_seconds=1, max_bytes=65536)

    assert raised.value.code == "backend_unavailable"
    assert _SessionGoneConnection.closed
