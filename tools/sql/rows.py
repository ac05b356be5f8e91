"""Rows as ``query_mysql`` returns them, from either database: JSON-safe values, read within a budget.

Standard library only: the embedded statement runs in a bare interpreter (``sqlite_process.py``) that
imports this module too.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool

    def payload(self) -> dict[str, Any]:
        """The canonical ``query_mysql`` payload; ``row_count`` is the number of rows in it."""
        return {"columns": self.columns, "rows": self.rows, "row_count": len(self.rows), "truncated": self.truncated}


def json_safe(value: Any) -> Any:
    """``value`` as JSON can carry it without changing what it says.

    Dates and times as ISO 8601 strings, a ``Decimal`` without decimal places as the integer it is
    (MariaDB's ``SUM`` of an integer column: a number, as the same sum is on SQLite, not a short text the
    gatekeeper would take as a cell's whole value), any other as its exact string (``5.00`` keeps its scale;
    a float could change the digits a model cites), bytes as hex, non-finite floats as strings.
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Decimal):
        return int(value) if value.is_finite() and value.as_tuple().exponent == 0 else str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        # MySQL TIME columns arrive as timedelta.
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return str(value)


def fetch_rows(cursor: Any, *, max_rows: int, max_bytes: int) -> QueryResult:
    """Rows one at a time while they fit the row and byte budgets, so a huge result is never held whole.

    A statement can make rows of any size (``REPEAT``, ``printf``, one value repeated in many columns);
    each row's text is measured before it is kept, so what is kept stays within ``max_bytes`` (a first row
    larger than that is left out too: the result is empty and truncated, and says to narrow the query).
    """
    columns = [column[0] for column in cursor.description or []]
    rows: list[list[Any]] = []
    size = 0
    truncated = False
    while (row := cursor.fetchone()) is not None:
        if len(rows) == max_rows:
            truncated = True
            break
        values = [json_safe(value) for value in row]
        row_size = sum(len(str(value)) for value in values)
        if size + row_size > max_bytes:
            truncated = True
            break
        size += row_size
        rows.append(values)
    return QueryResult(columns=columns, rows=rows, truncated=truncated)
