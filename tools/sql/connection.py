"""The read-only connections behind ``query_mysql`` — the second and third of its read-only layers.

- Embedded: the statement runs in a warm child process (``sqlite_process.py``, ``statement_process.py``)
  on the loaded pack's SQLite file, opened with ``mode=ro`` and ``PRAGMA query_only``, an authorizer that
  permits only reads (no ATTACH, no PRAGMA, no write) and a length limit on any one value. The child is
  killed at the call's deadline: SQLite cannot be interrupted inside one function call, a process can.
- Production: ``BUSINESS_DATABASE_URL`` (a MySQL user granted SELECT only), one statement per round trip
  (multi-statements off), ``SET SESSION TRANSACTION READ ONLY`` and a server-side statement timeout
  (MariaDB ``max_statement_time``, MySQL ``max_execution_time``). The server checks that timeout between
  rows and scan steps, not inside one function call (``LOCATE`` over megabytes runs on), so a watchdog
  session kills the connection at the deadline as well.

Neither trusts the guard: each refuses writes on its own (the hostile-SQL tests run them unguarded).
Results come back JSON-safe (``rows.py``).
"""

from __future__ import annotations

import json
import logging
import math
import sys
import threading
import time
from contextlib import closing, suppress
from pathlib import Path
from typing import Any, Protocol

import environ
import MySQLdb
import MySQLdb.cursors
from django.conf import settings

from config.run_scope import waiting
from tools.errors import ToolBackendError, ToolTimeout
from tools.sql import sqlite_process, statement_process
from tools.sql.rows import QueryResult, fetch_rows

logger = logging.getLogger(__name__)

# MariaDB ER_STATEMENT_TIMEOUT, MySQL ER_QUERY_TIMEOUT, client "lost connection" after read_timeout.
_MYSQL_TIMEOUT_ERRORS = frozenset({1969, 3024, 2013})
# A bare interpreter: no environment (-E, and none is passed), no site-packages (-s -S); the project root
# as working directory puts the ``tools`` package on its path.
_SQLITE_PROCESS = (sys.executable, "-E", "-s", "-S", "-m", sqlite_process.__name__)
_PROJECT_ROOT = Path(__file__).resolve().parents[2]
_TIMED_OUT = "the statement ran past its time budget and was stopped"
#: The run's held progress reports go out (``config.run_scope.waiting``) once the statement's child has not
#: answered within this; it usually answers within a millisecond or two, and a write before every statement
#: was about a twentieth of an offline run.
QUIET_WAIT_SECONDS = 0.02


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


class SQLiteReadOnlyConnection:
    """The loaded pack's business file, read by a child process (``sqlite_process.py``) killed at a deadline."""

    def __init__(self, path: Path, *, max_bytes: int) -> None:
        if not path.is_file():
            raise ToolBackendError("no_business_data", "no business database: load a scenario pack first")
        self._path = path
        self._max_bytes = max_bytes

    def execute(self, sql: str, *, max_rows: int, deadline: float) -> QueryResult:
        request = {"path": str(self._path), "sql": sql, "max_rows": max_rows, "max_bytes": self._max_bytes}
        try:
            answer = statement_process.ask(
                _SQLITE_PROCESS,
                json.dumps(request).encode(),
                deadline=deadline,
                cwd=_PROJECT_ROOT,
                when_slow=waiting,
                after=QUIET_WAIT_SECONDS,
            )
        except statement_process.StatementProcessTimeout:
            raise ToolTimeout(_TIMED_OUT) from None
        except statement_process.StatementProcessFailed as failed:
            logger.error("the SQLite statement process exited with %s: %s", failed.returncode, failed.stderr[-2000:])
            raise ToolBackendError(
                "backend_error", f"the embedded database process failed (exit status {failed.returncode})"
            ) from None
        reply = json.loads(answer)
        if "error" in reply:
            raise ToolBackendError("sql_error", f"the database refused the statement: {reply['error']}")
        return QueryResult(**reply)

    def close(self) -> None:
        """Nothing to close: the statement process is kept warm for the next call (``statement_process.py``)."""


class MySQLReadOnlyConnection:
    """A session that cannot write, whatever its user's grants, and whose statements stop at the deadline."""

    def __init__(self, url: str, *, timeout_seconds: float, max_bytes: int) -> None:
        self._arguments = mysql_connection_arguments(url)
        self._max_bytes = max_bytes
        try:
            self._connection = MySQLdb.connect(
                **self._arguments,
                # A backstop should the watchdog fail to reach the server.
                read_timeout=math.ceil(timeout_seconds) + 2,
                # mysqlclient enables multi-statements by default; one statement per round trip only.
                multi_statements=False,
            )
        except MySQLdb.Error as error:
            raise ToolBackendError("backend_unavailable", f"cannot reach the business database: {error}") from None
        # Read now: mysqlclient refuses any use of a connection from a second thread while a query runs.
        self._thread_id = self._connection.thread_id()
        self._mariadb = "mariadb" in self._connection.get_server_info().lower()
        try:
            with self._connection.cursor() as cursor:
                cursor.execute("SET SESSION TRANSACTION READ ONLY")
        except MySQLdb.Error as error:
            # The server went away between the handshake and the first statement: no session to use.
            with suppress(MySQLdb.Error):
                self._connection.close()
            raise ToolBackendError("backend_unavailable", f"cannot reach the business database: {error}") from None

    def execute(self, sql: str, *, max_rows: int, deadline: float) -> QueryResult:
        waiting()  # on MySQL, over the network
        remaining = max(deadline - time.monotonic(), 0.001)
        killed = threading.Event()
        watchdog = threading.Timer(remaining, self._kill, args=(killed,))
        watchdog.daemon = True
        # Unbuffered: rows stream in as they are read, so the byte budget bounds memory (see fetch_rows).
        cursor = self._connection.cursor(MySQLdb.cursors.SSCursor)
        try:
            if self._mariadb:
                cursor.execute("SET SESSION max_statement_time = %s", (round(remaining, 3),))
            else:
                cursor.execute("SET SESSION max_execution_time = %s", (math.ceil(remaining * 1000),))
            watchdog.start()
            cursor.execute(sql)
            return fetch_rows(cursor, max_rows=max_rows, max_bytes=self._max_bytes)
        except MySQLdb.Error as error:
            code = error.args[0] if error.args else None
            if killed.is_set() or code in _MYSQL_TIMEOUT_ERRORS:
                raise ToolTimeout(_TIMED_OUT) from None
            raise ToolBackendError("sql_error", f"the database refused the statement: {error}") from None
        finally:
            # Closing an unbuffered cursor reads the rest of the result and discards it: still under the
            # watchdog, so the rows after a budget's cut cannot keep the call past its deadline. It reports a
            # statement's late error (or the watchdog's kill) again; the rows kept are the answer.
            with suppress(MySQLdb.Error):
                cursor.close()
            watchdog.cancel()

    def close(self) -> None:
        self._connection.close()

    def _kill(self, killed: threading.Event) -> None:
        """The watchdog: from a second session, end this one, which gives the client back at once.

        ``KILL QUERY`` only raises the flag the server reads at its next check, as the statement timeout
        does, and the client would wait for that check; killing the connection also shuts its socket. The
        server still finishes the function call it is in. Failing to connect leaves the ``read_timeout``
        backstop.
        """
        killed.set()
        with suppress(MySQLdb.Error), closing(MySQLdb.connect(**self._arguments)) as watchdog:
            watchdog.cursor().execute("KILL CONNECTION %s", (self._thread_id,))
