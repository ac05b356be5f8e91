"""query_mysql against MariaDB through the read-only user ``superbiz_ro`` (created by ``.ci/run``).

The hostile corpus runs straight into the read-only connection, around the guard, and nothing changes:
same tables, same checksums, same grants, no file written. The read-only session refuses writes even on a
connection whose user could write.
"""

from __future__ import annotations

import time
from contextlib import closing, suppress
from pathlib import Path

import MySQLdb
import pytest

from config.run_scope import run_scope
from tests.services import TEST_BUSINESS_DATABASE, require
from tests.tools.conftest import TINY_PACK
from tests.tools.sql_corpus import EXHAUSTING_SQL, HOSTILE_SQL, WRITTEN_FILES
from tools.errors import ToolBackendError, ToolError, ToolTimeout
from tools.models import InvocationStatus
from tools.scenarios.mysql_business import load_business_into_mysql
from tools.scenarios.pack import read_pack
from tools.sql.connection import MySQLReadOnlyConnection, open_business_connection
from tools.store import load_verified_payload

pytestmark = pytest.mark.service

DATABASE = TEST_BUSINESS_DATABASE
ADMIN_URL = f"mysql://root@127.0.0.1:3306/{DATABASE}"
READ_ONLY_URL = f"mysql://superbiz_ro:superbiz_ro@127.0.0.1:3306/{DATABASE}"


def admin_query(sql: str) -> list[tuple]:
    with closing(MySQLdb.connect(host="127.0.0.1", port=3306, user="root", database=DATABASE)) as connection:
        cursor = connection.cursor()
        cursor.execute(sql)
        return list(cursor.fetchall())


def state() -> tuple:
    """Everything a write could change: the tables, their contents, the read-only user's grants."""
    tables = admin_query("SHOW TABLES")
    checksums = admin_query("CHECKSUM TABLE " + ", ".join(f"`{name}`" for (name,) in tables))
    grants = admin_query("SHOW GRANTS FOR 'superbiz_ro'@'127.0.0.1'")
    return tables, checksums, grants


@pytest.fixture(scope="module")
def mariadb_business() -> None:
    require("mariadb")
    load_business_into_mysql(read_pack(TINY_PACK), ADMIN_URL)


def read_only() -> MySQLReadOnlyConnection:
    try:
        return MySQLReadOnlyConnection(READ_ONLY_URL, timeout_seconds=1, max_bytes=65536)
    except ToolBackendError as error:
        pytest.fail(f"the read-only user is missing; create it as .ci/run does ({error.message})", pytrace=False)


def test_it_reads_through_the_read_only_user(mariadb_business):
    with closing(read_only()) as connection:
        result = connection.execute(
            "SELECT order_no, amount FROM orders ORDER BY order_no", max_rows=2, deadline=time.monotonic() + 5
        )

    assert result.rows == [["A-1001", "19.90"], ["A-1002", "5.00"]]
    assert result.truncated is True


def test_a_run_says_it_is_waiting_before_each_statement_goes_to_mysql(mariadb_business):
    said = []
    with closing(read_only()) as connection, run_scope(before_wait=lambda: said.append("waiting")):
        connection.execute("SELECT 1", max_rows=1, deadline=time.monotonic() + 5)
        assert said == ["waiting"]  # over the network: its reports go out first, however fast it answers
        connection.execute("SELECT 2", max_rows=1, deadline=time.monotonic() + 5)

    assert said == ["waiting", "waiting"]


def test_it_stops_reading_rows_once_the_byte_budget_is_spent(mariadb_business):
    with closing(read_only()) as connection:
        result = connection.execute(
            "SELECT REPEAT('x', 40000) FROM orders a, orders b", max_rows=10, deadline=time.monotonic() + 5
        )

    assert len(result.rows) == 1 and result.truncated is True  # 40 000 fits 65 536 once, not twice


def test_the_rows_after_a_budget_cut_cannot_outlast_the_deadline(mariadb_business):
    """Closing an unbuffered cursor reads the rest of the result: slow rows after the cut must still be
    stopped by the watchdog at the deadline (1 s), not wait for the read timeout (3 s)."""
    grown = "'a'"
    for _ in range(5):
        grown = f"REPLACE({grown}, 'a', 'aaaaaaaaaa')"
    slow = f"LOCATE(CONCAT({grown}, 'b'), CONCAT({grown}, {grown}))"
    sql = f"SELECT CASE WHEN id <= 2 THEN REPEAT('x', 70000) ELSE {slow} END AS v FROM orders ORDER BY id"
    started = time.monotonic()
    with closing(read_only()) as connection, suppress(ToolError):
        connection.execute(sql, max_rows=200, deadline=started + 1)

    assert time.monotonic() - started < 2.5


@pytest.mark.parametrize(("sql", "reason"), HOSTILE_SQL, ids=[sql[:60] for sql, _ in HOSTILE_SQL])
def test_it_writes_nothing_when_the_guard_is_bypassed(mariadb_business, sql, reason):
    before = state()

    # Refusing (raising) and reading harmlessly are both fine; writing anything is not.
    with closing(read_only()) as connection, suppress(ToolBackendError):
        connection.execute(sql, max_rows=10, deadline=time.monotonic() + 0.5)

    assert state() == before
    assert not any(Path(path).exists() for path in WRITTEN_FILES)


@pytest.mark.parametrize(
    "sql", ["DELETE FROM orders", "UPDATE orders SET amount = 0", "DROP TABLE orders", "CREATE TABLE pwned (id INT)"]
)
def test_its_session_refuses_writes_even_for_a_user_who_may_write(mariadb_business, sql):
    before = state()

    with (
        closing(MySQLReadOnlyConnection(ADMIN_URL, timeout_seconds=1, max_bytes=65536)) as connection,
        pytest.raises(ToolBackendError, match="READ ONLY"),
    ):
        connection.execute(sql, max_rows=10, deadline=time.monotonic() + 5)

    assert state() == before


def test_it_runs_one_statement_per_call(mariadb_business):
    with closing(read_only()) as connection, pytest.raises(ToolBackendError, match="syntax"):
        connection.execute("SELECT 1; SELECT 2", max_rows=10, deadline=time.monotonic() + 5)


def test_it_interrupts_a_statement_at_the_deadline(mariadb_business):
    started = time.monotonic()

    with closing(read_only()) as connection, pytest.raises(ToolTimeout):
        connection.execute("SELECT SLEEP(30) FROM orders", max_rows=10, deadline=started + 0.5)

    assert time.monotonic() - started < 5


MARIADB_EXHAUSTING = [statement for statement in EXHAUSTING_SQL if statement.mariadb]


@pytest.mark.parametrize("statement", MARIADB_EXHAUSTING, ids=[statement.name for statement in MARIADB_EXHAUSTING])
def test_it_stops_a_statement_inside_one_function_call_even_without_the_guard(mariadb_business, statement):
    with closing(read_only()) as connection, pytest.raises(ToolError):
        connection.execute(statement.sql, max_rows=10, deadline=time.monotonic() + 1)


def test_its_watchdog_ends_the_session_of_a_statement_inside_one_function_call(mariadb_business):
    (statement,) = [statement for statement in EXHAUSTING_SQL if statement.name == "replace-growth-search-smaller"]

    # A read timeout far away, so that only the watchdog can end the wait at the deadline.
    with closing(MySQLReadOnlyConnection(READ_ONLY_URL, timeout_seconds=60, max_bytes=65536)) as connection:
        with pytest.raises(ToolTimeout):
            connection.execute(statement.sql, max_rows=10, deadline=time.monotonic() + 1)

        # The server's statement timeout is looked at only once the function call returns, seconds later,
        # and it leaves the session open; the watchdog ended the session at the deadline.
        with pytest.raises(ToolBackendError, match="gone away"):
            connection.execute("SELECT 1", max_rows=10, deadline=time.monotonic() + 5)


@pytest.mark.parametrize("statement", MARIADB_EXHAUSTING, ids=[statement.name for statement in MARIADB_EXHAUSTING])
def test_query_mysql_ends_a_statement_inside_one_function_call_blocked_or_failed(
    mariadb_business, harness, loaded, settings, statement
):
    settings.BUSINESS_DATABASE_URL = READ_ONLY_URL
    settings.TOOL_TIMEOUT_SECONDS = 1

    result = harness.call("query_mysql", {"sql": statement.sql})

    assert (result.status, result.error_code) == statement.mariadb


def test_query_mysql_reads_mariadb_when_a_business_url_is_set(mariadb_business, harness, run, loaded, settings):
    settings.BUSINESS_DATABASE_URL = READ_ONLY_URL

    result = harness.call("query_mysql", {"sql": "SELECT version, change_summary FROM deploys ORDER BY `version` DESC"})

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert result.status == InvocationStatus.READY
    assert payload["rows"][0] == ["v2.3.1", "db.pool.max lowered from 50 to 5"]
    with closing(open_business_connection()) as connection:
        assert isinstance(connection, MySQLReadOnlyConnection)


def test_query_mysql_blocks_hostile_sql_before_mariadb_sees_it(mariadb_business, harness, loaded, settings):
    settings.BUSINESS_DATABASE_URL = READ_ONLY_URL

    result = harness.call(
        "query_mysql", {"sql": "SELECT * FROM orders INTO OUTFILE '/tmp/superbiz-hostile-outfile.txt'"}
    )

    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, "sql_into")


@pytest.mark.parametrize(
    ("sql", "outcome"),
    [
        # Read as a column by sqlglot, called as a function by MariaDB unless quoted: the server's role.
        ("SELECT CURRENT_ROLE FROM orders", (InvocationStatus.FAILED, "sql_error")),
        # A nested WITH that does not see the outer one's names on MariaDB: the real table of that name.
        (
            "WITH deploy_ids AS (SELECT id FROM orders) "
            "SELECT * FROM (WITH a AS (SELECT * FROM deploy_ids) SELECT * FROM a) AS x",
            (InvocationStatus.BLOCKED, "sql_unsupported"),
        ),
        # 25 "orders" from a table of 5.
        ("SELECT (COUNT(*)) FROM orders, orders AS o2", (InvocationStatus.BLOCKED, "sql_written_value")),
    ],
)
def test_query_mysql_returns_nothing_mariadb_reads_otherwise_than_the_guard(
    mariadb_business, harness, loaded, settings, sql, outcome
):
    settings.BUSINESS_DATABASE_URL = READ_ONLY_URL

    result = harness.call("query_mysql", {"sql": sql})

    assert (result.status, result.error_code) == outcome


@pytest.mark.parametrize(
    "sql",
    [
        "WITH failed AS (SELECT id FROM orders WHERE status = 'FAILED') SELECT COUNT(*) FROM orders "
        "WHERE id IN (SELECT id FROM failed)",
        "WITH failed AS (SELECT id FROM orders WHERE status = 'FAILED') "
        "SELECT COUNT(*) FROM (SELECT id FROM failed) AS f",
    ],
)
def test_the_main_querys_subqueries_read_the_statements_with_parts_on_mariadb(
    mariadb_business, harness, run, loaded, settings, sql
):
    """The guard lets every subquery of the main query read the WITH parts: MariaDB must see them there too."""
    settings.BUSINESS_DATABASE_URL = READ_ONLY_URL

    result = harness.call("query_mysql", {"sql": sql})

    assert result.status == InvocationStatus.READY
    assert load_verified_payload(run.id, result.invocation_id).payload["rows"] == [[3]]
