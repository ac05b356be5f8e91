"""Prior history for the benches: clone one finished run's rows N times, fast, on the bench's SQLite.

A run's cost must not grow with the runs before it, so the benches measure with 10 000 and more prior
runs in the database. Running that many diagnoses would take hours; instead every row a template run left
(session, run, event log, tool invocations, steps, invocation-store entries) is copied with fresh ids by
``INSERT ... SELECT`` statements over a numbers table, thousands of rows a statement. SQLite only: the
benches build their database in a temporary directory.
"""

from __future__ import annotations

import uuid

from django.db import connection, transaction

#: Copy in chunks, so that one statement never holds millions of rows in memory.
CHUNK = 20_000
NEW_HEX = "lower(hex(randomblob(16)))"


def _columns(table: str) -> list[str]:
    with connection.cursor() as cursor:
        return [column.name for column in connection.introspection.get_table_description(cursor, table)]


def _copy(table: str, where: str, substitutions: dict[str, str]) -> None:
    """Copy ``table``'s template rows once per row of ``prior``, replacing the columns named."""
    columns = [name for name in _columns(table) if substitutions.get(name) != ""]
    select = ", ".join(substitutions.get(name, f"t.{name}") for name in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select} FROM {table} t, prior WHERE {where}"
        )


def add_prior_runs(template_run_id: uuid.UUID, count: int, *, store_entries: bool = True) -> None:
    """Add ``count`` copies of the template run (its own session, log, invocations, steps and, unless told
    not to, its invocation-store entries)."""
    template = template_run_id.hex
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE IF NOT EXISTS prior (n INTEGER PRIMARY KEY, run_id TEXT, session_id TEXT)")
        cursor.execute("SELECT session_id FROM diagnosis_run WHERE id = %s", [template])
        session = cursor.fetchone()[0]
    for start in range(0, count, CHUNK):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("DELETE FROM prior")
            cursor.execute(
                "WITH RECURSIVE numbers(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM numbers WHERE n < %s) "
                f"INSERT INTO prior SELECT n, {NEW_HEX}, {NEW_HEX} FROM numbers",
                [min(CHUNK, count - start)],
            )
            _copy("chat_session", f"t.id = '{session}'", {"id": "prior.session_id"})
            _copy("diagnosis_run", f"t.id = '{template}'", {"id": "prior.run_id", "session_id": "prior.session_id"})
            for table in ("diagnosis_trace_event", "agent_step"):
                _copy(table, f"t.run_id = '{template}'", {"id": "", "run_id": "prior.run_id"})
            _copy("tool_invocation", f"t.run_id = '{template}'", {"id": NEW_HEX, "run_id": "prior.run_id"})
            if not store_entries:
                continue
            # Two store entries (arguments, payload) per invocation of every prior run, unexpired: their
            # keys and expiry, not their bytes (what a count of the table costs depends on the rows).
            _copy(
                "superbiz_cache",
                "t.cache_key IN (SELECT cache_key FROM superbiz_cache LIMIT 40)",
                {"cache_key": f"t.cache_key || '-' || prior.n || '-' || {NEW_HEX}", "value": "''"},
            )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
