"""``query_mysql(sql)``: one read-only SELECT over the loaded scenario's business tables."""

from __future__ import annotations

import re
from contextlib import closing
from typing import Any

from tools.errors import ToolBackendError, ToolInputError
from tools.jsonpath import format_path
from tools.models import LoadedScenario
from tools.names import ToolName
from tools.projection import clip, listing
from tools.sql.connection import business_dialect, open_business_connection
from tools.sql.guard import check_sql
from tools.tool import CallContext, Tool, ToolOutput
from tools.truncation import Truncation

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sql": {
            "type": "string",
            "minLength": 1,
            "maxLength": 10000,
            "description": "One MySQL SELECT over the business tables, without comments.",
        }
    },
    "required": ["sql"],
    "additionalProperties": False,
}


def handle(arguments: dict[str, Any], context: CallContext) -> ToolOutput:
    scenario = LoadedScenario.current()
    if scenario is None:
        raise ToolBackendError("no_business_data", "no scenario pack is loaded, so there are no business tables")
    verdict = check_sql(
        arguments["sql"], allowed_tables=scenario.business_tables, max_rows=context.max_rows, dialect=business_dialect()
    )
    if not verdict.allowed:
        raise ToolInputError(f"sql_{verdict.reason}", verdict.message)
    with closing(open_business_connection()) as connection:
        result = connection.execute(verdict.sql, max_rows=context.max_rows, deadline=context.deadline)
    return ToolOutput(result.payload(), row_count=len(result.rows))


def project(payload: dict[str, Any], budget: int) -> dict[str, Any]:
    return {
        "columns": payload["columns"],
        "row_count": payload["row_count"],
        "truncated": payload["truncated"],
        "cite": "cite one cell as <raw_path>[column index], e.g. $.rows[0][1]",
        **listing("rows", list(enumerate(payload["rows"])), budget, _row_view),
    }


def _row_view(indexed: tuple[int, list[Any]]) -> dict[str, Any]:
    index, row = indexed
    return {"raw_path": format_path("$", "rows", index), "values": [clip(value) for value in row]}


def cites(segments: list[str | int], value: Any) -> bool:
    """The cells, and the names of the columns they are in; not a name the database made of an expression's
    text (a scalar subquery's, with the literals of its WHERE): it holds what the model wrote, no data."""
    return segments[:1] == ["rows"] or (
        segments[:1] == ["columns"] and isinstance(value, str) and not _WRITTEN_NAME.search(value)
    )


# A column named by the statement's text rather than the table's: it has a space or a quoted literal in it.
_WRITTEN_NAME = re.compile(r"[\s'\"`]")


def describe_tables() -> str:
    """The loaded scenario's tables and columns, so the model can write a query without guessing."""
    scenario = LoadedScenario.current()
    if scenario is None:
        return "No scenario pack is loaded: there are no tables."
    schema = scenario.manifest.get("business_schema", {})
    tables = "; ".join(f"{table}({', '.join(schema.get(table, []))})" for table in scenario.business_tables)
    return f"Tables: {tables}."


QUERY_MYSQL = Tool(
    name=ToolName.QUERY_MYSQL,
    description=(
        "Run one read-only SELECT (MySQL syntax; UNION allowed, and one WITH at its start whose parts are not "
        "named like tables) on the business database. Only the "
        "tables listed at the end may be read; no comments, variables, INTO, locking reads or system schemas. "
        "At most the run's row budget of rows is returned; truncated says there were more. A result is "
        "evidence: select columns, or COUNT, SUM, AVG, MIN or MAX of a column, without naming them anew (no AS "
        "alias, no column list on a WITH or derived table); a value computed in the statement is refused "
        "(filter and group with WHERE, GROUP BY and HAVING instead)."
    ),
    parameters=PARAMETERS,
    handler=handle,
    project=project,
    truncation=Truncation("rows", flag_key="truncated", count_key="row_count"),
    live_note=describe_tables,
    evidence=cites,
)
