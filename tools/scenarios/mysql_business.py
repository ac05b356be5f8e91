"""Loading a pack's ``business.sql`` into MySQL/MariaDB, for production-style runs of ``query_mysql``.

Packs are written for SQLite; sqlglot renders each statement for MySQL. Two differences need more than
rendering: MySQL cannot index a TEXT column, so a TEXT column that is a key (PRIMARY KEY, UNIQUE, or in an
index) becomes VARCHAR(255); and SQLite numbers an INTEGER PRIMARY KEY by itself, which MySQL does only
with AUTO_INCREMENT. The load runs on an administrator connection (``query_mysql`` itself only
ever reads through the read-only user of ``BUSINESS_DATABASE_URL``), with a permissive ``sql_mode`` so that
SQLite-typed values (``2024-05-01T10:05:00Z`` in a DATETIME) are converted as SQLite would accept them
rather than refused. What runs is not the pack's text but the ASTs ``pack.checked_statements`` accepted
(CREATE TABLE, CREATE INDEX and INSERT on the pack's own tables) rendered for MySQL. Only the tables the
pack's CREATE TABLE statements create are replaced — never anything else in that database, and never a table
of the project's, whose names the check refuses.

MySQL commits DDL as it goes, so the pack is loaded into tables of its own names aside first (``aside``), and
only once every statement has run are they swapped in, in one ``RENAME TABLE``, which MySQL performs
atomically, and the old tables dropped. A statement MySQL refuses (a key that differs only in case, which its
collation calls one), or a connection lost midway, leaves the live tables as they were: the tables dropped
first made them vanish, and the command said nothing was written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from contextlib import closing

import MySQLdb
from sqlglot import exp

from tools.scenarios.pack import PackError, ScenarioPack, checked_statements, created_table
from tools.sql.connection import mysql_connection_arguments

KEY_TEXT_TYPE = "VARCHAR(255)"


def load_business_into_mysql(pack: ScenarioPack, admin_url: str) -> None:
    """Replace the pack's tables in the database of ``admin_url`` (a user allowed to create tables), all at
    once: loaded aside, then renamed in (see the module's docstring)."""
    source = pack.root / "business.sql"
    parsed = checked_statements(source, pack.statements)
    names = [table.name for table in (created_table(expression) for _, expression in parsed) if table is not None]
    staged = {name.lower(): aside(name, "load") for name in names}
    statements = _rendered(parsed, renamed=staged)
    connection = MySQLdb.connect(**mysql_connection_arguments(admin_url))
    with closing(connection), closing(connection.cursor()) as cursor:
        cursor.execute("SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION'")
        cursor.execute("SET SESSION foreign_key_checks = 0")
        # What an earlier load that failed or was cut off left aside.
        _drop(cursor, [aside(name, kind) for name in names for kind in ("load", "old")])
        try:
            for line, sql in statements:
                try:
                    cursor.execute(sql)
                except MySQLdb.Error as error:
                    raise PackError(source, line, f"MySQL refused the statement: {error}") from None
        except BaseException:
            _drop(cursor, list(staged.values()))
            raise
        live = _live_tables(cursor, names)
        swaps = [(live[name], aside(name, "old")) for name in names if name in live]
        swaps += [(staged[name.lower()], name) for name in names]
        try:
            cursor.execute("RENAME TABLE " + ", ".join(f"{_quoted(old)} TO {_quoted(new)}" for old, new in swaps))
        except BaseException:
            _drop(cursor, list(staged.values()))
            raise
        _drop(cursor, [aside(name, "old") for name in names if name in live])


def _live_tables(cursor: MySQLdb.cursors.Cursor, names: list[str]) -> dict[str, str]:
    """The pack's tables that exist, each by its name in the pack, as the server names it. A table's name is
    compared as the server compares them: exactly where it keeps names as written (Linux's default,
    ``lower_case_table_names=0``: ``Deploys`` and ``deploys`` are two tables), else without case."""
    cursor.execute("SELECT @@lower_case_table_names")
    exact = int(cursor.fetchone()[0]) == 0
    cursor.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()")
    existing = {name if exact else name.lower(): name for (name,) in cursor.fetchall()}
    return {name: existing[key] for name in names if (key := name if exact else name.lower()) in existing}


def aside(name: str, kind: str) -> str:
    """The name a pack's table is loaded under (``load``), or its live table kept under while swapped out
    (``old``): short (MySQL names end at 64 characters), and the same for the same name in every load."""
    return f"superbiz_{kind}_{hashlib.sha256(name.lower().encode()).hexdigest()[:16]}"


def _quoted(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect="mysql")


def _drop(cursor: MySQLdb.cursors.Cursor, names: list[str]) -> None:
    if names:
        cursor.execute(f"DROP TABLE IF EXISTS {', '.join(_quoted(name) for name in names)}")


def mysql_statements(pack: ScenarioPack) -> list[tuple[int, str]]:
    """Each statement of ``business.sql`` rendered for MySQL, with the line it starts on."""
    return _rendered(checked_statements(pack.root / "business.sql", pack.statements))


def _rendered(parsed: list[tuple[int, exp.Expr]], *, renamed: dict[str, str] | None = None) -> list[tuple[int, str]]:
    """The statements for MySQL; with ``renamed`` (lower-cased name → name), each of those tables named so."""
    keyed = _key_columns(expression for _, expression in parsed)
    for _, expression in parsed:
        _adapt_columns(expression, keyed)
        for table in expression.find_all(exp.Table):
            if renamed and table.name.lower() in renamed:
                table.set("this", exp.to_identifier(renamed[table.name.lower()], quoted=True))
    return [(line, expression.sql(dialect="mysql")) for line, expression in parsed]


def _table_of(create: exp.Create) -> str:
    table = create.find(exp.Table)
    return table.name.lower() if table is not None else ""


def _key_columns(expressions: Iterable[exp.Expr]) -> set[tuple[str, str]]:
    """(table, column) of every column that MySQL must index: keys, unique columns, indexed columns."""
    keyed: set[tuple[str, str]] = set()
    for expression in expressions:
        if not isinstance(expression, exp.Create):
            continue
        table = _table_of(expression)
        for column in expression.find_all(exp.ColumnDef):
            if column.find(exp.PrimaryKeyColumnConstraint, exp.UniqueColumnConstraint):
                keyed.add((table, column.name.lower()))
        for key in expression.find_all(exp.PrimaryKey, exp.UniqueColumnConstraint, exp.IndexParameters):
            keyed.update((table, identifier.name.lower()) for identifier in key.find_all(exp.Identifier))
    return keyed


def _adapt_columns(expression: exp.Expr, keyed: set[tuple[str, str]]) -> None:
    """TEXT keys become VARCHAR; an INTEGER PRIMARY KEY gets AUTO_INCREMENT, as SQLite's rowid alias has."""
    if not isinstance(expression, exp.Create):
        return
    table = _table_of(expression)
    for column in expression.find_all(exp.ColumnDef):
        kind = column.args.get("kind")
        if kind is None:
            continue
        if kind.is_type(exp.DataType.Type.TEXT) and (table, column.name.lower()) in keyed:
            column.set("kind", exp.DataType.build(KEY_TEXT_TYPE, dialect="mysql"))
        if (
            kind.is_type(exp.DataType.Type.INT, exp.DataType.Type.BIGINT)
            and column.find(exp.PrimaryKeyColumnConstraint)
            and not column.find(exp.AutoIncrementColumnConstraint)
        ):
            column.append("constraints", exp.ColumnConstraint(kind=exp.AutoIncrementColumnConstraint()))
