"""The embedded ``query_mysql`` statement, run in a process of its own so that its deadline can stop it.

SQLite looks for an interruption (a progress handler, ``Connection.interrupt()``) only between steps of its
virtual machine, and one SQL function call is one step: ``printf('%.*c', 1000000000, 'x')`` loops a billion
times and ``instr`` over a megabyte compares for seconds before the next step comes. No in-process
mechanism reaches inside that call, so the statement runs here and ``SQLiteReadOnlyConnection``
(``connection.py``) waits for its answer until the deadline, and kills this process then, wherever it is.
Short of that, the process stays and answers the next statement (``statement_process.py``).

The read-only layers are the same as in any process: the file opened with ``mode=ro``, ``PRAGMA
query_only``, an authorizer that permits only reads (no ATTACH, no PRAGMA, no write, no catalog), and a
length limit so that a giant string or blob fails at once ("string or blob too big") instead of filling
memory until the kill.

Protocol: one JSON request per line on stdin (``path``, ``sql``, ``max_rows``, ``max_bytes``), one JSON
reply per line on stdout: ``columns``, ``rows``, ``truncated``, or ``error`` (SQLite's message). Standard library only, so
the parent can start it without site-packages, settings or environment (``python -E -s -S -m``).
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

from tools.sql.rows import QueryResult, fetch_rows

# One value (string, blob) may be as large as the payload budget, and at least this: ordinary rows stay
# readable under a tiny budget, cut by the byte budget while fetching rather than refused.
VALUE_FLOOR_BYTES = 1_000_000
# Columns of a result (and of any table or index the statement makes): business tables have a few dozen.
MAX_COLUMNS = 100

_READ_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)


def _authorize_read(action: int, name: str | None, *_: Any) -> int:
    if action not in _READ_ACTIONS:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_READ and name and name.lower().startswith("sqlite_"):
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def execute(path: Path, sql: str, *, max_rows: int, max_bytes: int) -> QueryResult:
    """Run ``sql`` on the business file at ``path`` through a connection that can only read it."""
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        connection.execute("PRAGMA query_only = ON")
        connection.set_authorizer(_authorize_read)
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max(max_bytes, VALUE_FLOOR_BYTES))
        # And few columns: one row of a megabyte value repeated in hundreds of columns is held whole here.
        connection.setlimit(sqlite3.SQLITE_LIMIT_COLUMN, MAX_COLUMNS)
        return fetch_rows(connection.execute(sql), max_rows=max_rows, max_bytes=max_bytes)
    finally:
        connection.close()


def answer(request: dict[str, Any]) -> dict[str, Any]:
    try:
        result = execute(
            Path(request["path"]), request["sql"], max_rows=request["max_rows"], max_bytes=request["max_bytes"]
        )
    except sqlite3.Error as error:
        return {"error": str(error)}
    return dataclasses.asdict(result)


def main() -> None:
    """Answer requests until stdin ends; JSON escapes every newline inside a value, so a line is a message."""
    for line in sys.stdin.buffer:
        reply = answer(json.loads(line))
        sys.stdout.buffer.write(json.dumps(reply, ensure_ascii=False).encode() + b"\n")
        sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
