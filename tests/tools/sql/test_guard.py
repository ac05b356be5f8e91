"""The SQL guard: one SELECT over allowed tables, rendered again with a capped LIMIT; everything else refused."""

from __future__ import annotations

import time

import pytest
import sqlglot
from sqlglot import exp

from tests.tools.sql_corpus import HOSTILE_SQL
from tools.sql import guard
from tools.sql.guard import MAX_SELECTS, MAX_SQL_CHARS, MAX_WITH_PARTS, PLAIN_FUNCTIONS, Refusal, check_sql

TABLES = ["deploys", "orders"]


def check(sql: str, *, dialect: str = "sqlite", max_rows: int = 200):
    return check_sql(sql, allowed_tables=TABLES, max_rows=max_rows, dialect=dialect)


@pytest.fixture
def rules_changed():
    """The guard's verdicts are kept per process: a test that changes its rules starts and ends without them."""
    guard._verdict.cache_clear()
    yield
    guard._verdict.cache_clear()


def test_the_corpus_holds_at_least_thirty_statements_of_every_kind():
    assert len(HOSTILE_SQL) >= 30
    assert {reason for _, reason in HOSTILE_SQL} == set(Refusal) - {Refusal.TOO_LONG}


@pytest.mark.parametrize("dialect", ["sqlite", "mysql"])
@pytest.mark.parametrize(("sql", "reason"), HOSTILE_SQL, ids=[sql[:60] for sql, _ in HOSTILE_SQL])
def test_it_refuses_every_hostile_statement_with_its_reason(sql, reason, dialect):
    verdict = check(sql, dialect=dialect)

    assert not verdict.allowed
    assert verdict.reason == reason, verdict.message
    assert verdict.message
    assert verdict.sql == ""


def test_it_refuses_a_statement_over_the_length_limit():
    verdict = check("SELECT * FROM orders WHERE order_no IN (" + ", ".join(["'A'"] * MAX_SQL_CHARS) + ")")

    assert verdict.reason == Refusal.TOO_LONG


@pytest.mark.parametrize("depth", [60, 400])
def test_it_refuses_a_statement_nested_too_deeply_to_check(depth, rules_changed):
    """sqlglot parses, walks and renders recursively: deep nesting exhausts the stack, which must end as a
    refusal the model can read, not as an error that ends the run."""
    verdict = check("SELECT " + "(" * depth + "order_no" + ")" * depth + " FROM orders")

    assert not verdict.allowed
    assert verdict.reason == Refusal.SYNTAX and "nested too deeply" in verdict.message


@pytest.mark.parametrize(
    ("sql", "rendered"),
    [
        ("SELECT * FROM orders", "SELECT * FROM `orders` LIMIT 201"),
        (
            "select o.order_no from orders o where o.status='FAILED'",
            "SELECT `o`.`order_no` FROM `orders` AS `o` WHERE `o`.`status` = 'FAILED' LIMIT 201",
        ),
        ("SELECT * FROM orders LIMIT 5", "SELECT * FROM `orders` LIMIT 5"),
        ("SELECT * FROM orders LIMIT 201", "SELECT * FROM `orders` LIMIT 201"),
        ("SELECT * FROM orders LIMIT 100000", "SELECT * FROM `orders` LIMIT 201"),
        ("SELECT * FROM orders LIMIT 3, 100000", "SELECT * FROM `orders` LIMIT 201 OFFSET 3"),
        ("SELECT * FROM orders FETCH FIRST 7 ROWS ONLY", "SELECT * FROM `orders` LIMIT 7"),
        ("SELECT * FROM orders FETCH FIRST ROW ONLY", "SELECT * FROM `orders` LIMIT 1"),
        ("(SELECT COUNT(*) FROM orders)", "SELECT COUNT(*) FROM `orders` LIMIT 201"),
        ("((SELECT * FROM orders ORDER BY id LIMIT 2))", "SELECT * FROM `orders` ORDER BY `id` LIMIT 2"),
        ("SELECT * FROM orders;", "SELECT * FROM `orders` LIMIT 201"),
        (
            "SELECT version FROM deploys UNION SELECT order_no FROM orders",
            "SELECT `version` FROM `deploys` UNION SELECT `order_no` FROM `orders` LIMIT 201",
        ),
        (
            "WITH failed AS (SELECT * FROM orders WHERE status = 'FAILED') SELECT COUNT(*) FROM failed",
            "WITH `failed` AS (SELECT * FROM `orders` WHERE `status` = 'FAILED') SELECT COUNT(*) FROM `failed` "
            "LIMIT 201",
        ),
        ("SELECT * FROM ORDERS", "SELECT * FROM `ORDERS` LIMIT 201"),
        (
            "SELECT order_no FROM orders WHERE DATE_FORMAT(created_at, '%Y-%m-%d') = '2024-05-01'",
            "SELECT `order_no` FROM `orders` WHERE STRFTIME('%Y-%m-%d', `created_at`) = '2024-05-01' LIMIT 201",
        ),
    ],
)
def test_it_accepts_a_select_and_renders_it_with_a_capped_limit(sql, rendered):
    verdict = check(sql)

    assert verdict.allowed, verdict.message
    assert (verdict.reason, verdict.sql) == (None, rendered)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT status, COUNT(*), MAX(amount) FROM orders WHERE status <> 'PAID' GROUP BY status HAVING COUNT(*) > 1",
        "SELECT o.status AS status FROM orders AS o",  # an alias that is the column's own name
        "SELECT order_no FROM orders WHERE created_at >= '2024-05-01' ORDER BY created_at DESC LIMIT 5",
        "SELECT (SELECT MAX(version) FROM deploys WHERE service = 'checkout') FROM orders",
        "SELECT COUNT(DISTINCT status) FROM orders",
        "SELECT (COUNT(*)) FROM orders WHERE status = 'FAILED'",  # brackets over one table's rows
        "SELECT order_no FROM orders WHERE created_at >= NOW() - INTERVAL 1 DAY",
        "SELECT order_no FROM orders WHERE UNIX_TIMESTAMP(created_at) > TIMESTAMPDIFF(SECOND, created_at, NOW())",
        # The statement's WITH parts, read by later parts and from the main query's subqueries.
        "WITH f AS (SELECT id FROM orders WHERE status = 'FAILED'), g AS (SELECT id FROM f) SELECT COUNT(*) FROM g",
        "WITH f AS (SELECT id FROM orders WHERE status = 'FAILED') SELECT COUNT(*) FROM orders "
        "WHERE id IN (SELECT id FROM f)",
        "WITH f AS (SELECT id FROM orders WHERE status = 'FAILED') SELECT id FROM (SELECT id FROM f) AS failed",
    ],
)
def test_values_written_only_to_choose_rows_are_allowed(sql):
    verdict = check(sql)

    assert verdict.allowed, verdict.message


def test_it_renders_for_mysql_when_that_is_the_target():
    verdict = check(
        "SELECT order_no FROM `orders` WHERE DATE_FORMAT(created_at, '%Y-%m-%d') = '2024-05-01'", dialect="mysql"
    )

    assert (
        verdict.sql
        == "SELECT `order_no` FROM `orders` WHERE DATE_FORMAT(`created_at`, '%Y-%m-%d') = '2024-05-01' LIMIT 201"
    )


def test_it_quotes_a_name_mariadb_would_call_as_a_function():
    """sqlglot reads a bare CURRENT_ROLE as a column; MariaDB called it. Quoted, it is a column or an error."""
    verdict = check("SELECT CURRENT_ROLE FROM orders", dialect="mysql")

    assert verdict.sql == "SELECT `CURRENT_ROLE` FROM `orders` LIMIT 201"


def test_it_accepts_a_recursive_cte_that_reads_itself():
    verdict = check(
        "WITH RECURSIVE n AS (SELECT id FROM orders WHERE id = 1 UNION ALL "
        "SELECT o.id FROM n JOIN orders AS o ON o.id = n.id + 1) SELECT id FROM n"
    )

    assert verdict.allowed, verdict.message


def test_it_does_not_let_a_cte_see_a_later_one():
    """SQLite reads a later WITH part there, MariaDB a table of its name: two answers, so neither."""
    verdict = check("WITH a AS (SELECT * FROM b), b AS (SELECT * FROM orders) SELECT * FROM a")

    assert verdict.reason == Refusal.TABLE_NOT_ALLOWED
    assert verdict.message.startswith("the WITH part 'b' is read before it is defined")


@pytest.mark.parametrize("dialect", ["sqlite", "mysql"])
def test_it_allows_a_with_only_at_the_start_of_the_statement(dialect):
    """Inside a subquery MariaDB's WITH does not see the outer WITH's names: it read the real table."""
    verdict = check(
        "WITH ops_changes AS (SELECT id FROM orders) "
        "SELECT * FROM (WITH a AS (SELECT * FROM ops_changes) SELECT * FROM a) AS x",
        dialect=dialect,
    )

    assert verdict.reason == Refusal.UNSUPPORTED
    assert "only at the start of the statement" in verdict.message


def test_it_refuses_a_function_it_does_not_know_as_a_stored_one():
    verdict = check("SELECT order_no FROM orders WHERE stored_fn(order_no) = 1")

    assert verdict.reason == Refusal.FORBIDDEN_FUNCTION
    assert verdict.message.startswith("the function STORED_FN is not a built-in function the guard knows")


@pytest.mark.parametrize("name", sorted(PLAIN_FUNCTIONS))
def test_each_allowed_unknown_function_is_one_sqlglot_has_no_class_for(name):
    """Otherwise its entry would be dead: a function sqlglot knows is judged by the deny-list alone (SQLite's
    DATE with a modifier is what sqlglot renders DATE_ADD as)."""
    readings = [
        sqlglot.parse_one(f"SELECT {name}({arguments})", read=read).expressions[0]
        for read in ("mysql", "sqlite")
        for arguments in ("id", "id, '+5 minutes'")
    ]

    assert any(isinstance(reading, exp.Anonymous) for reading in readings)


@pytest.mark.parametrize(
    "condition",
    [
        "TIME(created_at) >= '10:00:00'",
        "DATETIME(created_at) > '2026-10-14 10:00:00'",
        "CONVERT_TZ(created_at, '+00:00', '+08:00') > '2026-10-14 18:00:00'",
        "DATE_ADD(created_at, INTERVAL 5 MINUTE) > '2026-10-14 10:00:00'",
    ],
)
@pytest.mark.parametrize("dialect", ["sqlite", "mysql"])
def test_mysqls_date_functions_pass_as_rendered_for_either_engine(condition, dialect):
    """sqlglot renders them for SQLite as its own TIME, DATETIME and DATE with a modifier, which the second
    check reads back: refused there, the embedded mode refused what MariaDB runs."""
    verdict = check_sql(
        f"SELECT id FROM orders WHERE {condition}", allowed_tables=["orders"], max_rows=10, dialect=dialect
    )

    assert verdict.allowed, verdict.message


def with_chain(parts: int) -> str:
    """WITH parts that each count the one before, written as tightly as a review wrote 275 of them."""
    counts = "".join(f",a{number} AS(SELECT COUNT(*)FROM a{number - 1})" for number in range(1, parts))
    return f"WITH a0 AS(SELECT id FROM orders){counts} SELECT * FROM a{parts - 1}"


def test_it_checks_a_statement_of_at_most_so_many_with_parts():
    assert check(with_chain(MAX_WITH_PARTS)).allowed

    verdict = check(with_chain(MAX_WITH_PARTS + 1))

    assert verdict.reason == Refusal.TOO_LONG
    assert verdict.message.startswith(f"the statement has {MAX_WITH_PARTS + 1} WITH parts")


def test_it_refuses_a_long_with_chain_without_spending_seconds_on_it(rules_changed):
    """Checked part by part, 275 parts took 12 s of CPU (each SELECT walked the chain below it again)."""
    sql = with_chain(275)
    started = time.monotonic()

    verdict = check(sql)

    assert len(sql) < MAX_SQL_CHARS and verdict.reason == Refusal.TOO_LONG
    assert time.monotonic() - started < 2


def test_it_checks_a_statement_of_at_most_so_many_selects():
    subqueries = [f"id IN (SELECT id FROM orders WHERE id = {number})" for number in range(MAX_SELECTS)]

    verdict = check("SELECT id FROM orders WHERE " + " OR ".join(subqueries))

    assert verdict.reason == Refusal.TOO_LONG
    assert f"{MAX_SELECTS + 1} SELECTs" in verdict.message


def test_it_renders_string_literals_safely_for_the_target():
    verdict = check("SELECT * FROM orders WHERE order_no = 'a\\' OR 1=1; DROP TABLE orders; -- '")

    assert verdict.allowed
    assert verdict.sql == "SELECT * FROM `orders` WHERE `order_no` = 'a'' OR 1=1; DROP TABLE orders; -- ' LIMIT 201"


def test_it_lists_the_allowed_tables_when_refusing_one():
    verdict = check("SELECT * FROM salaries")

    assert verdict.message == "the table 'salaries' is not allowed; the tables are: deploys, orders"


def test_it_refuses_every_table_when_nothing_is_allowed():
    verdict = check_sql("SELECT * FROM orders", allowed_tables=[], max_rows=10, dialect="sqlite")

    assert verdict.reason == Refusal.TABLE_NOT_ALLOWED
    assert "no scenario is loaded" in verdict.message


def test_it_checks_the_rendered_statement_too(monkeypatch, rules_changed):
    # A stand-in rule: SPACE() passes as written, but SQLite has no SPACE and receives REPEAT(' ', n).
    monkeypatch.setattr("tools.sql.guard.FORBIDDEN_FUNCTIONS", frozenset({"REPEAT"}))

    verdict = check("SELECT id FROM orders WHERE SPACE(id) = ''")

    assert verdict.reason == Refusal.FORBIDDEN_FUNCTION
    assert verdict.message == "once rendered for sqlite: the function REPEAT is not allowed"


def test_it_refuses_next_value_for_where_the_dialect_parses_it(monkeypatch, rules_changed):
    # sqlglot reads NEXT VALUE FOR only outside MySQL today (as MySQL it is a syntax error, see the corpus).
    monkeypatch.setattr("tools.sql.guard.SOURCE_DIALECT", "tsql")

    verdict = check("SELECT NEXT VALUE FOR order_seq")

    assert verdict.reason == Refusal.FORBIDDEN_FUNCTION
    assert verdict.message == "the function NEXT_VALUE_FOR is not allowed"


def test_a_repeated_statement_is_judged_once(monkeypatch, rules_changed):
    judged = []
    parse = guard._single_select
    monkeypatch.setattr(guard, "_single_select", lambda sql, dialect: judged.append(sql) or parse(sql, dialect))

    first, again = check("SELECT id FROM orders WHERE id = 7"), check("SELECT id FROM orders WHERE id = 7")

    assert first == again and first.allowed
    assert len(judged) == 2  # as written and as rendered, the first time only


def test_a_verdict_is_kept_for_its_allow_list_only():
    assert check("SELECT * FROM orders").allowed
    assert check_sql("SELECT * FROM orders", allowed_tables=["deploys"], max_rows=200, dialect="sqlite").reason == (
        Refusal.TABLE_NOT_ALLOWED
    )


def test_anything_but_a_string_is_refused_as_empty():
    assert check(["SELECT 1"]).reason == Refusal.EMPTY  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "sql",
    [
        "(SELECT order_no, amount FROM orders) ORDER BY amount DESC LIMIT 2",
        "((SELECT order_no FROM orders)) LIMIT 1",
        "(SELECT order_no FROM orders) LIMIT 2 OFFSET 3",
    ],
)
def test_it_refuses_clauses_after_a_bracketed_select_rather_than_drop_them(sql):
    """Dropping the brackets alone would run the statement without its ORDER BY or LIMIT: other rows."""
    verdict = check(sql)

    assert (verdict.allowed, verdict.reason) == (False, Refusal.SYNTAX)
    assert "move them inside" in verdict.message


@pytest.mark.parametrize("dialect", ["sqlite", "mysql"])
def test_it_refuses_a_lone_surrogate_that_no_driver_could_send(dialect):
    verdict = check("SELECT order_no FROM orders WHERE order_no = '\ud800'", dialect=dialect)

    assert (verdict.allowed, verdict.reason) == (False, Refusal.SYNTAX)
    assert "surrogate" in verdict.message


@pytest.mark.parametrize(
    "cast",
    [
        "CAST(id AS CHAR(20)) = '1'",
        "CAST(id AS CHAR) = '1'",
        "CAST(id AS DECIMAL(10,2)) > 5",
        "CONVERT(order_no USING utf8mb4) = 'x'",  # MySQL's answer to an "Illegal mix of collations"
    ],
)
def test_a_cast_of_an_ordinary_length_passes(cast):
    assert check(f"SELECT id FROM orders WHERE {cast}").allowed
