"""Hostile SQL for ``query_mysql``: each statement with the reason the guard must give for refusing it.

The same statements are run *around* the guard, straight into the read-only connections (SQLite always,
MariaDB through the ``superbiz_ro`` user in CI), to prove that nothing is written even if the guard fails.
They target the tiny pack's tables (``deploys``, ``orders``); the files they try to write live in /tmp.

``EXHAUSTING_SQL`` are reads the guard lets through (or not) that spend their time inside one function
call, where neither SQLite's progress handler nor MariaDB's ``max_statement_time`` looks: each must end
BLOCKED or FAILED by the call's deadline, through the guard and around it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.models import InvocationStatus
from tools.sql.guard import Refusal

OUTFILE = "/tmp/superbiz-hostile-outfile.txt"
DUMPFILE = "/tmp/superbiz-hostile-dumpfile.bin"
ATTACHED = "/tmp/superbiz-hostile-attached.sqlite3"
WRITTEN_FILES = (OUTFILE, DUMPFILE, ATTACHED)

HOSTILE_SQL: list[tuple[str, Refusal]] = [
    # Writes and schema changes.
    ("DELETE FROM orders", Refusal.NOT_SELECT),
    ("UPDATE orders SET status = 'PAID'", Refusal.NOT_SELECT),
    ("INSERT INTO orders (order_no, status, created_at) VALUES ('X-1', 'PAID', 'now')", Refusal.NOT_SELECT),
    ("REPLACE INTO deploys VALUES ('v9', 'checkout-service', 'now', 'pwned')", Refusal.NOT_SELECT),
    ("DROP TABLE orders", Refusal.NOT_SELECT),
    ("TRUNCATE TABLE orders", Refusal.NOT_SELECT),
    ("ALTER TABLE orders ADD COLUMN pwned INT", Refusal.NOT_SELECT),
    ("CREATE TABLE pwned (id INT)", Refusal.NOT_SELECT),
    ("CREATE TABLE pwned AS SELECT * FROM orders", Refusal.NOT_SELECT),
    ("WITH doomed AS (DELETE FROM orders RETURNING *) SELECT * FROM doomed", Refusal.NOT_SELECT),
    ("GRANT ALL PRIVILEGES ON *.* TO 'superbiz_ro'@'%'", Refusal.NOT_SELECT),
    ("SET @x = 1", Refusal.NOT_SELECT),
    ("CALL pwn()", Refusal.NOT_SELECT),
    ("SHOW GRANTS", Refusal.NOT_SELECT),
    ("KILL 1", Refusal.NOT_SELECT),
    # Stacked statements.
    ("SELECT * FROM orders; DROP TABLE orders", Refusal.MULTIPLE_STATEMENTS),
    ("SELECT 1; UPDATE orders SET amount = 0", Refusal.MULTIPLE_STATEMENTS),
    # Files and variables through INTO.
    (f"SELECT * FROM orders INTO OUTFILE '{OUTFILE}'", Refusal.INTO),
    (f"SELECT * FROM orders INTO DUMPFILE '{DUMPFILE}'", Refusal.INTO),
    ("SELECT order_no INTO @stolen FROM orders LIMIT 1", Refusal.INTO),
    ("LOAD DATA INFILE '/etc/passwd' INTO TABLE orders", Refusal.INTO),
    # Dangerous functions.
    ("SELECT LOAD_FILE('/etc/passwd')", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT SLEEP(30)", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT * FROM orders WHERE order_no = 'x' OR SLEEP(30)", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT BENCHMARK(500000000, MD5('x'))", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT GET_LOCK('superbiz', 30)", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT sys.version_major() FROM orders", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT order_no FROM orders WHERE test.stored_fn(order_no) = 1", Refusal.FORBIDDEN_FUNCTION),
    # A name no built-in has, called without a schema: the current database's stored function, or a UDF.
    ("SELECT order_no FROM orders WHERE stored_fn(order_no) = 1", Refusal.FORBIDDEN_FUNCTION),
    (
        "SELECT * FROM orders WHERE id IN (SELECT id FROM orders WHERE lookup_salary(id) > 0)",
        Refusal.FORBIDDEN_FUNCTION,
    ),
    ("SELECT EXTRACTVALUE(1, CONCAT(0x7e, (SELECT order_no FROM orders LIMIT 1)))", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT load_extension('/tmp/evil.so')", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT USER()", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT * FROM orders WHERE CURRENT_ROLE() IS NOT NULL", Refusal.FORBIDDEN_FUNCTION),
    # MariaDB's UUIDs end with the server's MAC address.
    ("SELECT * FROM orders WHERE UUID() LIKE '%-0242ac%'", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT * FROM orders WHERE UUID_SHORT() > 0", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT * FROM orders WHERE SYS_GUID() IS NOT NULL", Refusal.FORBIDDEN_FUNCTION),
    # Long strings from a short statement: a search in them outlives the call (sizes kept harmless here).
    (
        "SELECT id FROM orders WHERE id = 1 AND LOCATE(CONCAT(REPEAT('a', 80), 'b'), REPEAT('a', 160)) > 0",
        Refusal.FORBIDDEN_FUNCTION,
    ),
    ("SELECT id FROM orders WHERE LENGTH(LPAD(order_no, 100, 'x')) > 0", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT id FROM orders WHERE RPAD(order_no, 100, 'x') <> ''", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT id FROM orders WHERE SPACE(id) = ''", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT id FROM orders WHERE HEX(HEX(HEX(order_no))) <> ''", Refusal.FORBIDDEN_FUNCTION),
    # ... or from a cast's declared length, or another character set (utf32 quadruples a value).
    ("SELECT id FROM orders WHERE CAST(id AS BINARY(1000000)) = 'x'", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT id FROM orders WHERE CAST(id AS CHAR(1001)) = 'x'", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT id FROM orders WHERE CAST(id AS CHAR(1e6)) = 'x'", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT id FROM orders WHERE CONVERT(order_no USING utf32) = 'x'", Refusal.FORBIDDEN_FUNCTION),
    # MariaDB sequences: reading one advances or sets it.
    ("SELECT NEXTVAL(order_seq)", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT * FROM orders WHERE id = nextval(order_seq)", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT SETVAL(order_seq, 1000000)", Refusal.FORBIDDEN_FUNCTION),
    ("SELECT LASTVAL(order_seq)", Refusal.FORBIDDEN_FUNCTION),
    # System schemas and catalogs.
    ("SELECT * FROM information_schema.tables", Refusal.SYSTEM_SCHEMA),
    ("SELECT User, Password FROM mysql.user", Refusal.SYSTEM_SCHEMA),
    ("SELECT * FROM performance_schema.threads", Refusal.SYSTEM_SCHEMA),
    ("SELECT * FROM sys.session", Refusal.SYSTEM_SCHEMA),
    ("SELECT sql FROM sqlite_master", Refusal.SYSTEM_SCHEMA),
    ("SELECT order_no FROM orders UNION SELECT User FROM mysql.user", Refusal.SYSTEM_SCHEMA),
    ("SELECT * FROM orders WHERE id = (SELECT COUNT(*) FROM `information_schema`.`TABLES`)", Refusal.SYSTEM_SCHEMA),
    # Locking reads and variables.
    ("SELECT * FROM orders FOR UPDATE", Refusal.LOCKING_READ),
    ("SELECT * FROM orders LOCK IN SHARE MODE", Refusal.LOCKING_READ),
    ("SELECT * FROM orders WHERE id IN (SELECT id FROM orders FOR UPDATE)", Refusal.LOCKING_READ),
    ("SELECT @counter := COUNT(*) FROM orders", Refusal.VARIABLE),
    ("SELECT @@version", Refusal.VARIABLE),
    # Comments: MySQL runs /*! ... */ and hints; -- and # hide the rest of a statement.
    ("SELECT * FROM orders /*!50000 UNION SELECT User FROM mysql.user */", Refusal.COMMENT),
    ("SELECT * FROM orders WHERE 1 = 1 -- AND status = 'PAID'", Refusal.COMMENT),
    ("SELECT * FROM orders # everything", Refusal.COMMENT),
    ("SELECT /*+ MAX_EXECUTION_TIME(100000000) */ * FROM orders", Refusal.COMMENT),
    # Tables outside the allow-list.
    ("SELECT * FROM salaries", Refusal.TABLE_NOT_ALLOWED),
    ("SELECT * FROM superbiz.auth_user", Refusal.TABLE_NOT_ALLOWED),
    ("SELECT * FROM json_each('[1, 2]')", Refusal.TABLE_NOT_ALLOWED),
    # A WITH part that reads a later one: SQLite reads that part, MariaDB a table of its name.
    ("WITH a AS (SELECT id FROM b), b AS (SELECT id FROM orders) SELECT * FROM a", Refusal.TABLE_NOT_ALLOWED),
    # A WITH below the top: MariaDB's does not see the outer WITH's names, and reads the tables of those names
    # (its built-in seq_1_to_n tables too); a WITH part named like a table or another part.
    (
        "SELECT * FROM orders WHERE EXISTS (WITH salaries AS (SELECT 1) SELECT 1) AND id IN (SELECT id FROM salaries)",
        Refusal.UNSUPPORTED,
    ),
    (
        "WITH ops_changes AS (SELECT id FROM orders) "
        "SELECT * FROM (WITH a AS (SELECT * FROM ops_changes) SELECT * FROM a) AS x",
        Refusal.UNSUPPORTED,
    ),
    (
        "WITH salaries AS (SELECT id FROM orders) "
        "SELECT id FROM orders WHERE id IN (WITH a AS (SELECT id FROM salaries) SELECT id FROM a)",
        Refusal.UNSUPPORTED,
    ),
    (
        "WITH seq_500_to_500 AS (SELECT id FROM orders) "
        "SELECT * FROM (WITH a AS (SELECT seq FROM seq_500_to_500) SELECT seq FROM a) AS x",
        Refusal.UNSUPPORTED,
    ),
    ("WITH a AS (WITH b AS (SELECT id FROM orders) SELECT id FROM b) SELECT * FROM a", Refusal.UNSUPPORTED),
    (
        "WITH a AS (SELECT COUNT(*) FROM deploys), deploys AS (SELECT o.id FROM orders AS o, orders AS p) "
        "SELECT * FROM a",
        Refusal.UNSUPPORTED,
    ),
    ("WITH orders AS (SELECT id FROM deploys) SELECT COUNT(*) FROM orders", Refusal.UNSUPPORTED),
    ("WITH a AS (SELECT id FROM orders), A AS (SELECT id FROM deploys) SELECT * FROM a", Refusal.UNSUPPORTED),
    # Row counts sqlglot renders as something else, or drops: all the rows, reported as not truncated.
    ("SELECT * FROM orders ORDER BY status FETCH FIRST 1 ROWS WITH TIES", Refusal.UNSUPPORTED),
    ("SELECT * FROM orders FETCH FIRST 10 PERCENT ROWS ONLY", Refusal.UNSUPPORTED),
    ("SELECT * FROM orders LIMIT 1 + 1", Refusal.UNSUPPORTED),
    ("SELECT * FROM orders LIMIT '3'", Refusal.UNSUPPORTED),
    ("SELECT * FROM orders LIMIT 2 OFFSET 1 + 1", Refusal.UNSUPPORTED),
    ("SELECT * FROM (SELECT id FROM orders ORDER BY id LIMIT 1 + 1) AS firsts", Refusal.UNSUPPORTED),
    # Values the statement writes itself, which a READY result would then hold as evidence.
    ("SELECT 'root cause is DNS on dns-01' AS finding", Refusal.WRITTEN_VALUE),
    ("SELECT CONCAT('DNS ', 'is down') AS finding FROM orders LIMIT 1", Refusal.WRITTEN_VALUE),
    ("SELECT CHAR(68, 78, 83) AS finding", Refusal.WRITTEN_VALUE),
    ("SELECT N'DNS is down', 0x444e53, X'444e53', b'0100'", Refusal.WRITTEN_VALUE),
    ("SELECT DATE_FORMAT(created_at, 'DNS is down') FROM orders", Refusal.WRITTEN_VALUE),
    ("SELECT status, COUNT(*) + 500 AS n FROM orders GROUP BY status", Refusal.WRITTEN_VALUE),
    ("SELECT status FROM orders UNION SELECT 'DNS is down'", Refusal.WRITTEN_VALUE),
    ("WITH made AS (SELECT 'DNS is down' AS finding) SELECT finding FROM made", Refusal.WRITTEN_VALUE),
    ("SELECT finding FROM (SELECT 'DNS is down' AS finding) AS made", Refusal.WRITTEN_VALUE),
    ("SELECT * FROM (VALUES ROW('DNS is down')) AS made", Refusal.WRITTEN_VALUE),
    ("SELECT CASE WHEN status = 'FAILED' THEN 'DNS is down' END FROM orders", Refusal.WRITTEN_VALUE),
    # Numbers and text built without a literal: from booleans, comparisons, or pieces of real values.
    ("SELECT CHAR((TRUE + TRUE) * (TRUE + TRUE)) FROM orders", Refusal.WRITTEN_VALUE),
    ("SELECT (status = status) + (status = status) FROM orders", Refusal.WRITTEN_VALUE),
    ("SELECT (NULL IS NULL) * (NULL IS NULL) FROM orders", Refusal.WRITTEN_VALUE),
    ("SELECT SUBSTRING(status, id, id) FROM orders", Refusal.WRITTEN_VALUE),
    ("SELECT CONCAT(status, order_no) FROM orders", Refusal.WRITTEN_VALUE),
    # Column names the statement writes: a claim pairs a cell with its column's name.
    ("SELECT status AS `root cause is DNS on dns-01` FROM orders", Refusal.WRITTEN_VALUE),
    ("SELECT COUNT(*) AS dns_is_down FROM orders", Refusal.WRITTEN_VALUE),
    # Counts of the statement's combinations, not of a table's rows: 500 "failed payments" from 139 rows.
    ("SELECT COUNT(*) FROM orders, orders AS o2 WHERE orders.id <= 5", Refusal.WRITTEN_VALUE),
    ("SELECT SUM(orders.amount) FROM orders JOIN deploys ON deploys.service = deploys.service", Refusal.WRITTEN_VALUE),
    ("SELECT COUNT(*) FROM (SELECT id FROM orders UNION ALL SELECT id FROM orders) AS twice", Refusal.WRITTEN_VALUE),
    ("WITH twice AS (SELECT o.id FROM orders o, orders p) SELECT AVG(id) FROM twice", Refusal.WRITTEN_VALUE),
    ("SELECT (COUNT(*)) FROM orders, orders AS o2", Refusal.WRITTEN_VALUE),
    (
        "SELECT ((SUM(orders.amount))) FROM orders JOIN deploys ON deploys.service = deploys.service",
        Refusal.WRITTEN_VALUE,
    ),
    # Total rows no table holds ("5 orders whose status is NULL").
    ("SELECT status, COUNT(*) FROM orders GROUP BY status WITH ROLLUP", Refusal.WRITTEN_VALUE),
    ("SELECT status, COUNT(*) FROM orders GROUP BY ROLLUP (status)", Refusal.WRITTEN_VALUE),
    ("SELECT status, COUNT(*) FROM orders GROUP BY CUBE (status)", Refusal.WRITTEN_VALUE),
    ("SELECT status, COUNT(*) FROM orders GROUP BY GROUPING SETS ((status), ())", Refusal.WRITTEN_VALUE),
    ("WITH made(root_cause_is_dns) AS (SELECT status FROM orders) SELECT * FROM made", Refusal.WRITTEN_VALUE),
    ("SELECT * FROM (SELECT status FROM orders) AS made(root_cause_is_dns)", Refusal.WRITTEN_VALUE),
    # Statements sqlglot cannot read as MySQL at all.
    (f"ATTACH DATABASE '{ATTACHED}' AS pwned", Refusal.SYNTAX),
    ("HANDLER orders OPEN", Refusal.SYNTAX),
    ("DO SLEEP(30)", Refusal.SYNTAX),
    ("SELECT NEXT VALUE FOR order_seq", Refusal.SYNTAX),
    ("SELECT PREVIOUS VALUE FOR order_seq", Refusal.SYNTAX),
    ("SELECT 'unterminated", Refusal.SYNTAX),
    # Nothing to run.
    ("   ", Refusal.EMPTY),
    (";", Refusal.EMPTY),
]


Outcome = tuple[InvocationStatus, str]

TIMEOUT: Outcome = (InvocationStatus.FAILED, "timeout")
FORBIDDEN: Outcome = (InvocationStatus.BLOCKED, "sql_forbidden_function")
WRITTEN: Outcome = (InvocationStatus.BLOCKED, "sql_written_value")


@dataclass(frozen=True)
class Exhausting:
    """A statement (MySQL, as the model writes it) and how ``query_mysql`` ends it on each database.

    ``None``: not run on that database — there it is either harmless (fast) or, on MariaDB, would keep a
    server thread busy for minutes after the call ended (a server finishes the function call it is in).
    """

    name: str
    sql: str
    sqlite: Outcome | None
    mariadb: Outcome | None


def grown(seed: str, times: int) -> str:
    """An expression that grows ``seed`` (of ``a``s) tenfold ``times`` times by nested REPLACE calls."""
    expression = f"'{seed}'"
    for _ in range(times):
        expression = f"REPLACE({expression}, 'a', 'aaaaaaaaaa')"
    return expression


# fmt: off
# Each is sent through the guard too, which refuses most of them: for a function it forbids (PRINTF is none it
# knows; REPLACE multiplies a length), or for a value the statement writes among what it selects.
EXHAUSTING_SQL: list[Exhausting] = [
    # printf loops once per character of the precision, out of reach of any interrupt (MariaDB has none).
    Exhausting("printf-width-per-row", "SELECT id FROM orders WHERE PRINTF('%.*c', 1000000000 + id - id, 'x') <> '' LIMIT 4",
               sqlite=FORBIDDEN, mariadb=FORBIDDEN),
    Exhausting("printf-width-one-call", "SELECT id FROM orders WHERE PRINTF('%.*c', 2147483647, 'x') <> ''",
               sqlite=FORBIDDEN, mariadb=FORBIDDEN),
    # Giant blobs: refused by the guard; around it, SQLite's length limit refuses them at once.
    Exhausting("zeroblob", "SELECT LENGTH(ZEROBLOB(2000000000)) FROM orders", sqlite=FORBIDDEN, mariadb=FORBIDDEN),
    Exhausting("randomblob", "SELECT LENGTH(HEX(RANDOMBLOB(600000)))", sqlite=FORBIDDEN, mariadb=FORBIDDEN),
    # A megabyte of zeros searched for what is not there: seconds in one instr call.
    Exhausting("zeroblob-search", "SELECT INSTR(HEX(ZEROBLOB(499999)), CONCAT(HEX(ZEROBLOB(200000)), 'g'))",
               sqlite=FORBIDDEN, mariadb=FORBIDDEN),
    # REPLACE growth past the length limit (10 MB): SQLite refuses it at once, MariaDB returns it.
    Exhausting("replace-growth", f"SELECT id FROM orders WHERE LENGTH({grown('aaaaaaaaaa', 6)}) > 0",
               sqlite=FORBIDDEN, mariadb=None),
    # REPLACE growth to a megabyte, then a search that compares for seconds in one call.
    Exhausting("replace-growth-search",
               f"SELECT id FROM orders WHERE LOCATE(CONCAT({grown('aaaa', 5)}, 'b'), {grown('aaaaaaaaaa', 5)}) > 0",
               sqlite=FORBIDDEN, mariadb=None),
    # The same at a fifth of the size: SQLite (memcmp) answers at once, MariaDB compares for seconds.
    Exhausting("replace-growth-search-smaller",
               f"SELECT id FROM orders WHERE LOCATE(CONCAT({grown('a', 5)}, 'b'), {grown('aa', 5)}) > 0",
               sqlite=None, mariadb=FORBIDDEN),
    # Recursion without end (MariaDB stops at 1000 iterations, so each one multiplies the rows): the guard
    # refuses its computed values; without the guard, the statement process's deadline stops it.
    Exhausting("recursive-cte", "WITH RECURSIVE n AS (SELECT id FROM orders UNION ALL SELECT n.id + o.id FROM n, orders AS o) "
               "SELECT COUNT(*) FROM n", sqlite=WRITTEN, mariadb=WRITTEN),
    # Recursion that doubles a string: past SQLite's length limit, past the column MariaDB derived.
    Exhausting("recursive-cte-growth", "WITH RECURSIVE s AS (SELECT id, order_no FROM orders UNION ALL SELECT "
               "id + id, CONCAT(order_no, order_no) FROM s WHERE id < 1099511627776) SELECT MAX(LENGTH(order_no)) FROM s",
               sqlite=WRITTEN, mariadb=WRITTEN),
    # A join of a table with itself, twelve times over: hundreds of millions of combinations to try, none of
    # them chosen, values read only from the tables (a COUNT of them the guard refuses: it would count the
    # join's combinations, a number no table holds).
    Exhausting("cross-join", "SELECT t0.order_no FROM " + ", ".join(f"orders AS t{number}" for number in range(12))
               + " WHERE " + " + ".join(f"t{number}.id" for number in range(12)) + " < 0",
               sqlite=TIMEOUT, mariadb=TIMEOUT),
]
# fmt: on
