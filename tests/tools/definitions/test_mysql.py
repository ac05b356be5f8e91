"""query_mysql through the harness on the embedded business database of the tiny pack."""

from __future__ import annotations

import pytest

from tests.tools.sql_corpus import EXHAUSTING_SQL
from tools.jsonpath import resolve
from tools.models import InvocationStatus, ToolInvocation
from tools.store import load_verified_payload


def call(harness, sql: str):
    return harness.call("query_mysql", {"sql": sql})


@pytest.mark.parametrize("arguments", [{}, {"sql": ""}, {"sql": 42}, {"sql": "SELECT 1", "db": "mysql"}])
def test_it_blocks_arguments_outside_the_schema(harness, loaded, arguments):
    result = harness.call("query_mysql", arguments)

    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, "invalid_arguments")


def test_it_fails_clearly_before_any_pack_is_loaded(harness, business_sqlite):
    result = call(harness, "SELECT * FROM orders")

    assert (result.status, result.error_code) == (InvocationStatus.FAILED, "no_business_data")


def test_it_returns_the_canonical_payload_with_json_safe_values(harness, run, loaded):
    result = call(harness, "SELECT order_no, amount, status FROM orders WHERE status = 'FAILED' ORDER BY order_no")

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert payload == {
        "columns": ["order_no", "amount", "status"],
        "rows": [["A-1003", 42, "FAILED"], ["A-1004", 7.5, "FAILED"], ["A-1005", 12.25, "FAILED"]],
        "row_count": 3,
        "truncated": False,
    }
    assert ToolInvocation.objects.get(pk=result.invocation_id).row_count == 3


def test_it_runs_mysql_syntax_on_the_embedded_database(harness, loaded):
    sql = "SELECT COUNT(*) FROM orders WHERE DATE_FORMAT(created_at, '%Y-%m-%d') = '2024-05-01'"
    result = call(harness, sql)

    assert result.status == InvocationStatus.READY
    assert result.projection["columns"] == ["COUNT(*)"]
    assert [row["values"] for row in result.projection["rows"]] == [[5]]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 'root cause is DNS on dns-01' AS finding",
        "SELECT CONCAT('DNS ', 'is down') AS finding FROM orders LIMIT 1",
        "SELECT CHAR(68, 78, 83) AS finding",
        "SELECT DATE_FORMAT(created_at, 'DNS is down') AS finding FROM orders",  # a format with no field
        "SELECT status FROM orders UNION SELECT 'DNS is down'",
        "WITH made AS (SELECT 'DNS is down' AS finding) SELECT finding FROM made",
        "SELECT status AS `root cause is DNS on dns-01` FROM orders",  # a column name it wrote
    ],
)
def test_it_never_returns_a_value_the_model_wrote_into_its_statement(harness, loaded, sql):
    """A READY result is evidence the gatekeeper verifies citations against: one holding the statement's own
    text would let the model cite what it wrote."""
    result = call(harness, sql)

    assert result.status == InvocationStatus.BLOCKED
    assert result.error_code == "sql_written_value"


@pytest.mark.parametrize(
    "sql", ["SELECT `DNS is down on dns-01` FROM orders", 'SELECT "DNS is down on dns-01" FROM orders']
)
def test_a_quoted_name_of_no_column_is_never_read_as_text(harness, loaded, sql):
    # SQLite reads a double-quoted name that is no column as a string: rendered in double quotes, the name
    # came back as every row's value.
    result = call(harness, sql)

    assert result.status != InvocationStatus.READY
    assert "DNS is down" not in str(result.projection.get("rows", ""))


def test_it_projects_rows_with_their_paths(harness, run, loaded):
    result = call(harness, "SELECT version, change_summary FROM deploys ORDER BY deployed_at DESC")

    payload = load_verified_payload(run.id, result.invocation_id).payload
    first = result.projection["rows"][0]
    assert first["values"] == ["v2.3.1", "db.pool.max lowered from 50 to 5"]
    assert resolve(payload, first["raw_path"] + "[1]") == "db.pool.max lowered from 50 to 5"


def test_it_stops_at_the_row_budget_and_says_so(harness, run, loaded, settings):
    settings.TOOL_MAX_ROWS = 2

    result = call(harness, "SELECT order_no FROM orders ORDER BY order_no LIMIT 1000")

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert payload["rows"] == [["A-1001"], ["A-1002"]]
    assert (payload["row_count"], payload["truncated"]) == (2, True)


def test_it_returns_every_row_when_exactly_the_budget_exists(harness, run, loaded, settings):
    settings.TOOL_MAX_ROWS = 5

    result = call(harness, "SELECT order_no FROM orders")

    assert (result.projection["row_count"], result.projection["truncated"]) == (5, False)


def test_it_cuts_rows_to_the_byte_budget_and_recounts(harness, run, loaded, settings):
    settings.TOOL_MAX_PAYLOAD_BYTES = 120

    result = call(harness, "SELECT order_no, status FROM orders ORDER BY order_no")

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert 0 < payload["row_count"] == len(payload["rows"]) < 5
    assert payload["truncated"] is True


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("DELETE FROM orders", "sql_not_select"),
        ("SELECT * FROM sqlite_master", "sql_system_schema"),
        ("SELECT * FROM salaries", "sql_table_not_allowed"),
        ("SELECT 1; SELECT 2", "sql_multiple_statements"),
    ],
)
def test_it_blocks_what_the_guard_refuses(harness, loaded, sql, code):
    result = call(harness, sql)

    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, code)


def test_it_names_the_allowed_tables_when_refusing_one(harness, loaded):
    result = call(harness, "SELECT * FROM salaries")

    assert "the tables are: deploys, orders" in result.projection["error"]


def test_it_reports_a_database_error_so_the_model_can_fix_its_query(harness, loaded):
    result = call(harness, "SELECT no_such_column FROM orders")

    assert (result.status, result.error_code) == (InvocationStatus.FAILED, "sql_error")
    assert "no_such_column" in result.projection["error"]


def test_it_interrupts_a_statement_at_the_time_budget(harness, loaded, settings):
    settings.TOOL_TIMEOUT_SECONDS = 0.2
    # Hundreds of millions of rows to read (a table joined with itself twelve times), values read only from it.
    endless = next(statement.sql for statement in EXHAUSTING_SQL if statement.name == "cross-join")

    result = call(harness, endless)

    assert (result.status, result.error_code) == (InvocationStatus.FAILED, "timeout")
