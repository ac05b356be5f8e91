"""The read-only connections behind ``query_mysql`` — the second and third of its read-only layers.

- Embedded: the loaded pack's SQLite file opened with ``mode=ro`` and ``PRAGMA query_only``, an authorizer
  that permits only reads (no ATTACH, no PRAGMA, no write), and a progress handler that interrupts the
  statement at the call's deadline.
- Production: ``BUSINESS_DATABASE_URL`` (a MySQL user granted SELECT only), one statement per round trip
  (multi-statements off), ``SET SESSION TRANSACTION READ ONLY`` and a server-side statement timeout
  (MariaDB ``max_statement_time``, MySQL ``max_execution_time``).

Neither trusts the guard: each refuses writes on its own (the hostile-SQL tests run them unguarded).
Results come back JSON-safe: dates and times as ISO 8601 strings, ``Decimal`` as its exact string (a float
could change the digits a model cites), bytes as hex, non-finite floats as strings.
"""

from __future__ import annotations

import datetime
import math
import sqlite3
import time
from contextlib import suppress
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

import environ
import MySQLdb
import MySQLdb.cursors
from django.conf import settings

from tools.errors import ToolBackendError, ToolTimeout

# MariaDB ER_STATEMENT_TIMEOUT, MySQL ER_QUERY_TIMEOUT, client "lost connection" after read_timeout.
_MYSQL_TIMEOUT_ERRORS = frozenset({1969, 3024, 2013})
# How often (in SQLite virtual machine instructions) the embedded connection looks at the clock.
_PROGRESS_EVERY = 10_000
SQLITE_VALUE_FLOOR_BYTES = 1_000_000

_SQLITE_READ_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool

    def payload(self) -> dict[str, Any]:
        """The canonical ``query_mysql`` payload; ``row_count`` is the number of rows in it."""
        return {"columns": self.columns, "rows": self.rows, "row_count": len(self.rows), "truncated": self.truncated}


class BusinessConnection(Protocol):
    """Use with ``contextlib.closing``: one connection per call, closed when the call ends."""

    def execute(self, sql: str, *, max_rows: int, deadline: float) -> QueryResult: ...

    def close(self) -> None: ...


def business_dialect() -> str:
    """The sqlglot dialect the guard renders for: MySQL when a business database URL is set."""
    return "mysql" if settings.BUSINESS_DATABASE_URL else "sqlite"


def open_business_connection() -> BusinessConnection:
    max_bytes = settings.TOOL_MAX_PAYLOAD_BYTES
    if settings.BUSINESS_DATABASE_URL:
        return MySQLReadOnlyConnection(
            settings.BUSINESS_DATABASE_URL, timeout_seconds=settings.TOOL_TIMEOUT_SECONDS, max_bytes=max_bytes
        )
    return SQLiteReadOnlyConnection(Path(settings.BUSINESS_SQLITE_PATH), max_bytes=max_bytes)


def mysql_connection_arguments(url: str) -> dict[str, Any]:
    """``MySQLdb.connect`` arguments for a ``mysql://user:password@host:port/database`` URL."""
    config = environ.Env.db_url_config(url)
    return {
        "host": config.get("HOST") or "127.0.0.1",
        "port": int(config.get("PORT") or 3306),
        "user": config.get("USER") or "",
        "password": config.get("PASSWORD") or "",
        "database": config["NAME"],
        "charset": "utf8mb4",
        "connect_timeout": 5,
        "autocommit": True,
    }


def json_safe(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        # MySQL TIME columns arrive as timedelta.
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return str(value)


def _fetch(cursor: Any, *, max_rows: int, max_bytes: int) -> QueryResult:
    """Rows one at a time until the row or byte budget is spent, so a huge result is never held whole.

    A statement can make rows of any size (``REPEAT``, ``printf``); counting their text as they arrive
    bounds memory at about one row past the payload limit instead of the whole result.
    """
    columns = [column[0] for column in cursor.description or []]
    rows: list[list[Any]] = []
    size = 0
    truncated = False
    while (row := cursor.fetchone()) is not None:
        if len(rows) == max_rows or size > max_bytes:
            truncated = True
            break
        values = [json_safe(value) for value in row]
        size += sum(len(str(value)) for value in values)
        rows.append(values)
    return QueryResult(columns=columns, rows=rows, truncated=truncated)


def _authorize_read(action: int, name: str | None, *_: Any) -> int:
    if action not in _SQLITE_READ_ACTIONS:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_READ and name and name.lower().startswith("sqlite_"):
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


class SQLiteReadOnlyConnection:
    """The loaded pack's business file, opened so that no statement can change it or read elsewhere."""

    def __init__(self, path: Path, *, max_bytes: int) -> None:
        if not path.is_file():
            raise ToolBackendError("no_business_data", "no business database: load a scenario pack first")
        self._max_bytes = max_bytes
        self._connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        self._connection.execute("PRAGMA query_only = ON")
        self._connection.set_authorizer(_authorize_read)
        # One SQL function call (printf, zeroblob) is one VM step, out of the progress handler's reach:
        # cap the size of any single string, blob or row instead. The floor keeps ordinary rows readable
        # under a tiny payload budget: those are cut by the byte budget while fetching, not refused.
        self._connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max(max_bytes, SQLITE_VALUE_FLOOR_BYTES))

    def execute(self, sql: str, *, max_rows: int, deadline: float) -> QueryResult:
        self._connection.set_progress_handler(lambda: int(time.monotonic() > deadline), _PROGRESS_EVERY)
        try:
            cursor = self._connection.execute(sql)
            return _fetch(cursor, max_rows=max_rows, max_bytes=self._max_bytes)
        except sqlite3.Error as error:
            if isinstance(error, sqlite3.OperationalError) and str(error) == "interrupted":
                raise ToolTimeout("the statement ran past its time budget and was interrupted") from None
            raise ToolBackendError("sql_error", f"the database refused the statement: {error}") from None

    def close(self) -> None:
        self._connection.close()


class MySQLReadOnlyConnection:
    """A session that cannot write, whatever its user's grants, and whose statements stop at the deadline."""

    def __init__(self, url: str, *, timeout_seconds: float, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        try:
            self._connection = MySQLdb.connect(
                **mysql_connection_arguments(url),
                # A backstop for a server that ignores the statement timeout.
                read_timeout=math.ceil(timeout_seconds) + 2,
                # mysqlclient enables multi-statements by default; one statement per round trip only.
                multi_statements=False,
            )
        except MySQLdb.Error as error:
            raise ToolBackendError("backend_unavailable", f"cannot reach the business database: {error}") from None
        self._mariadb = "mariadb" in self._connection.get_server_info().lower()
        cursor = self._connection.cursor()
        cursor.execute("SET SESSION TRANSACTION READ ONLY")
        cursor.close()

    def execute(self, sql: str, *, max_rows: int, deadline: float) -> QueryResult:
        remaining = max(deadline - time.monotonic(), 0.001)
        # Unbuffered: rows stream in as they are read, so the byte budget bounds memory (see _fetch).
        cursor = self._connection.cursor(MySQLdb.cursors.SSCursor)
        try:
            if self._mariadb:
                cursor.execute("SET SESSION max_statement_time = %s", (round(remaining, 3),))
            else:
                cursor.execute("SET SESSION max_execution_time = %s", (math.ceil(remaining * 1000),))
            cursor.execute(sql)
            return _fetch(cursor, max_rows=max_rows, max_bytes=self._max_bytes)
        except MySQLdb.Error as error:
            code = error.args[0] if error.args else None
            if code in _MYSQL_TIMEOUT_ERRORS:
                raise ToolTimeout("the statement ran past its time budget and was interrupted") from None
            raise ToolBackendError("sql_error", f"the database refused the statement: {error}") from None
        finally:
            # An unbuffered cursor reports a statement's late error again while discarding its rest.
            with suppress(MySQLdb.Error):
                cursor.close()

    def close(self) -> None:
        self._connection.close()
