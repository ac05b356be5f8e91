"""Which business tables to read, and the SELECT for each.

The planner sees only table and column names. Incidents are most often triggered by a change, so tables
that look like change records (deploys, configuration, versions, old/new values, a change log) rank
first, then tables whose names share words with the question or the services it names. Each is read as
its latest rows up to shortly after the onset: the change that matters happened just before it.

Times are compared as times in Python, not as text in SQL. A table may store them in any ISO form, even
mixed (``...T14:02:37Z``, ``...T16:02:37+02:00``, ``... 14:02:37``), and no date function reads them all
alike on both SQLite and MySQL. So the SQL only bounds the rows by their date prefix, generously (see
``sql_date_bound``), and fetches the latest ``CANDIDATE_ROWS`` of them; the business analysis parses each
stamp and never takes a row stamped after the onset (``analysis.business.corroborating_rows``).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from diagnosis.providers.offline.timing import Window, sql_date_bound
from diagnosis.providers.offline.vocabulary import CHANGE_WORDS, name_words

_TIME_WORDS = frozenset({"at", "date", "time", "timestamp", "ts", "when"})
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Enough for the rows a text ordering of mixed forms puts first (up to two days after the cutoff).
CANDIDATE_ROWS = 40
AFTER_ONSET = timedelta(minutes=5)


def ranked_tables(tables: dict[str, list[str]], context_words: set[str]) -> list[tuple[str, str]]:
    """``(table, time column)`` of the readable tables with a time column, most promising first."""
    scored = []
    for table, columns in sorted(tables.items()):
        time_column = _time_column(columns)
        if time_column is None or not _IDENTIFIER.match(table):
            continue
        table_words = name_words(table)
        column_words = {word for column in columns for word in name_words(str(column))}
        score = 3 * len(table_words & CHANGE_WORDS) + len(column_words & CHANGE_WORDS)
        score += 2 * len(table_words & context_words) + len(column_words & context_words)
        if score > 0:
            scored.append((-score, table, time_column))
    return [(table, column) for _, table, column in sorted(scored)]


def latest_rows_sql(table: str, time_column: str, onset: datetime | None, window: Window | None) -> str:
    """The latest rows up to shortly after the onset (or the window's end), bounded by date only.

    The bound keeps every row stamped up to the cutoff whatever the form of its stamp, and a few after it;
    which rows count is decided on the parsed times by the analysis.
    """
    cutoff = onset + AFTER_ONSET if onset else window.end if window else None
    where = f" WHERE {time_column} < '{sql_date_bound(cutoff)}'" if cutoff else ""
    return f"SELECT * FROM {table}{where} ORDER BY {time_column} DESC LIMIT {CANDIDATE_ROWS}"


def _time_column(columns: list[str]) -> str | None:
    """The first column whose name says it is a time; change-stamped ones (``changed_at``) first."""
    timed = [column for column in columns if _IDENTIFIER.match(str(column)) and name_words(str(column)) & _TIME_WORDS]
    changed = [column for column in timed if name_words(column) & CHANGE_WORDS]
    if changed:
        return changed[0]
    return timed[0] if timed else None
