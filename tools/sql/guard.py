"""The first of ``query_mysql``'s three read-only layers: a sqlglot AST check of the model's SQL.

A statement passes only if it is exactly one SELECT (WITH and UNION/INTERSECT/EXCEPT of SELECTs included)
over allow-listed tables, with no comment, no ``INTO``, no locking read, no variable, no dangerous function,
no system schema, and no value or column name it writes itself among what it selects (a result is evidence:
it may hold only what the tables hold; a COUNT, SUM or AVG only over the rows of one table, not over a join's
combinations). What runs is then not the model's text but the checked AST rendered again for the
target database, with a LIMIT of at most ``max_rows + 1`` — so nothing the parser did not see (a MySQL
``/*! executable comment */``, a dialect quirk in quoting) can reach the database — and that rendering is
parsed and checked again in the target dialect before it is handed out. The read-only connection and the
statement timeout (``connection.py``) are the other two layers; each holds if another one fails.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

import sqlglot
from sqlglot import Dialect, exp
from sqlglot.dialects.sqlite import SQLite
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from config.text import is_unicode_text

MAX_SQL_CHARS = 10_000
# The model writes MySQL (the tool is query_mysql); the embedded database receives it rendered for SQLite.
SOURCE_DIALECT = "mysql"

SYSTEM_SCHEMAS = frozenset({"information_schema", "mysql", "performance_schema", "sys"})
# SQLite's catalog (sqlite_master, sqlite_schema, sqlite_sequence, ...) and its pragma table functions.
SYSTEM_TABLE_PREFIXES = ("sqlite_", "pragma_")

# Functions that touch files, sleep, take locks, burn CPU, disclose the server, smuggle data out
# through error messages, or write inside a SELECT: MariaDB's sequence functions advance or set a sequence
# (``NEXT VALUE FOR s`` is the same as NEXTVAL; sqlglot reads it as MySQL only as a syntax error today, and
# as ``NEXT_VALUE_FOR`` in dialects that know it, so a newer sqlglot still refuses it). Compared upper-case
# with the name sqlglot parsed.
# fmt: off
FORBIDDEN_FUNCTIONS = frozenset(
    {
        "LOAD_FILE", "LOAD_EXTENSION", "READFILE", "WRITEFILE", "EDIT", "FTS3_TOKENIZER",
        "SLEEP", "BENCHMARK", "RANDOMBLOB", "ZEROBLOB",
        "GET_LOCK", "RELEASE_LOCK", "RELEASE_ALL_LOCKS", "IS_FREE_LOCK", "IS_USED_LOCK",
        "NEXTVAL", "SETVAL", "LASTVAL", "NEXT_VALUE_FOR",
        "MASTER_POS_WAIT", "MASTER_GTID_WAIT", "SOURCE_POS_WAIT", "WAIT_FOR_EXECUTED_GTID_SET",
        "SYS_EXEC", "SYS_EVAL", "EXTRACTVALUE", "UPDATEXML", "NAME_CONST",
        "USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER", "DATABASE", "SCHEMA", "CURRENT_SCHEMA",
        "VERSION", "CURRENT_VERSION", "CONNECTION_ID", "LAST_INSERT_ID", "ROW_COUNT", "FOUND_ROWS",
        "SQLITE_VERSION", "SQLITE_SOURCE_ID", "SQLITE_COMPILEOPTION_GET", "SQLITE_COMPILEOPTION_USED",
        "PASSWORD", "ENCRYPT", "DES_ENCRYPT", "DES_DECRYPT",
    }
)
# fmt: on

_INTO_TARGETS = frozenset({"OUTFILE", "DUMPFILE"})
# What a bracketed statement may carry besides its body: dropping the brackets must not drop these.
_SUBQUERY_MODIFIERS = frozenset(exp.Subquery.arg_types) - {"this", "alias"}

# Statements that are never a read, wherever they sit in the tree (a CTE body, a subquery).
# fmt: off
STATEMENT_NODES: tuple[type[exp.Expr], ...] = (
    exp.DML, exp.DDL, exp.Drop, exp.Alter, exp.TruncateTable, exp.Command, exp.Set, exp.Use,
    exp.Transaction, exp.Commit, exp.Rollback, exp.Pragma, exp.Show, exp.Describe, exp.LoadData,
    exp.Analyze, exp.Grant, exp.Revoke, exp.Kill, exp.Cache, exp.Uncache, exp.Refresh, exp.Execute,
    exp.Declare, exp.Summarize,
)
# fmt: on


class Refusal(StrEnum):
    EMPTY = "empty"
    TOO_LONG = "too_long"
    SYNTAX = "syntax"
    COMMENT = "comment"
    MULTIPLE_STATEMENTS = "multiple_statements"
    NOT_SELECT = "not_select"
    INTO = "into"
    LOCKING_READ = "locking_read"
    VARIABLE = "variable"
    FORBIDDEN_FUNCTION = "forbidden_function"
    SYSTEM_SCHEMA = "system_schema"
    TABLE_NOT_ALLOWED = "table_not_allowed"
    WRITTEN_VALUE = "written_value"


@dataclass(frozen=True)
class SqlVerdict:
    """``sql`` is the statement to run (rendered for the target dialect) when ``allowed``; else ``""``."""

    allowed: bool
    reason: Refusal | None
    message: str
    sql: str = ""


class _Refused(Exception):
    def __init__(self, reason: Refusal, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def check_sql(sql: str, *, allowed_tables: Iterable[str], max_rows: int, dialect: str) -> SqlVerdict:
    """Accept ``sql`` as one safe SELECT over ``allowed_tables``, or say why not."""
    # Anything but a string is refused as empty, as ``_single_select`` would: it could not be a cache key.
    text = sql if isinstance(sql, str) else ""
    return _verdict(text, frozenset(table.lower() for table in allowed_tables), max_rows, dialect)


# A verdict depends on nothing but its arguments, and parsing twice with sqlglot cost more than running the
# statement: repeated statements (an offline run asks the same ones every time) are judged once per process.
@functools.lru_cache(maxsize=256)
def _verdict(sql: str, allowed: frozenset[str], max_rows: int, dialect: str) -> SqlVerdict:
    try:
        return _judged(sql, allowed, max_rows, dialect)
    except RecursionError:
        # sqlglot parses, walks and renders recursively: a few dozen nested parentheses exhaust the stack.
        return SqlVerdict(False, Refusal.SYNTAX, "the statement is nested too deeply to check; write it flatter")


class _SQLite(SQLite):
    """SQLite, its identifiers rendered in backticks: SQLite reads a double-quoted name that is no column as a
    string (``SELECT "DNS is down" FROM orders`` returns that text), a backticked one as the error it is."""

    class Tokenizer(SQLite.Tokenizer):
        IDENTIFIERS = ["`", '"', ("[", "]")]


def _target(dialect: str) -> str | type[Dialect]:
    return _SQLite if dialect == "sqlite" else dialect


def _judged(sql: str, allowed: frozenset[str], max_rows: int, dialect: str) -> SqlVerdict:
    target = _target(dialect)
    try:
        statement = _checked(sql, SOURCE_DIALECT, allowed)
        _cap_limit(statement, max_rows + 1)
        rendered = statement.sql(dialect=target)
    except _Refused as refusal:
        return SqlVerdict(False, refusal.reason, refusal.message)
    try:
        # What runs is checked too: rendered for the target, it must still be one safe SELECT.
        _checked(rendered, target, allowed)
    except _Refused as refusal:
        return SqlVerdict(False, refusal.reason, f"once rendered for {dialect}: {refusal.message}")
    return SqlVerdict(True, None, "accepted", rendered)


def _checked(sql: str, dialect: str | type[Dialect], allowed: frozenset[str]) -> exp.Query:
    statement = _single_select(sql, dialect)
    for node in statement.walk():
        _check_node(node, allowed)
    # Last: a statement that is unsafe as well is refused for that (a forbidden function, a table).
    for select in statement.find_all(exp.Select):
        _check_selected(select)
    return statement


def _single_select(sql: str, dialect: str | type[Dialect]) -> exp.Query:
    if not isinstance(sql, str) or not sql.strip():
        raise _Refused(Refusal.EMPTY, "the statement is empty")
    if len(sql) > MAX_SQL_CHARS:
        raise _Refused(Refusal.TOO_LONG, f"the statement is longer than {MAX_SQL_CHARS} characters")
    if not is_unicode_text(sql):
        # A ``\ud800`` escape in the model's JSON: no driver can send it (mysqlclient raises while encoding).
        raise _Refused(Refusal.SYNTAX, "the statement contains an unpaired surrogate code point, which is no character")
    try:
        tokens = sqlglot.Dialect.get_or_raise(dialect).tokenize(sql)
    except TokenError as error:
        raise _Refused(Refusal.SYNTAX, f"the statement does not tokenize: {_first_line(error)}") from None
    if any(token.comments for token in tokens):
        raise _Refused(
            Refusal.COMMENT, "comments and optimizer hints are not allowed (MySQL executes /*! ... */ comments)"
        )
    # sqlglot cannot parse every INTO form (INTO OUTFILE after FROM is a parse error), so look at the tokens.
    writes_into = any(token.token_type == TokenType.INTO or token.text.upper() in _INTO_TARGETS for token in tokens)
    into = _Refused(Refusal.INTO, "INTO (OUTFILE, DUMPFILE, a table, variables) writes; it is not allowed")
    try:
        statements = [statement for statement in sqlglot.parse(sql, read=dialect) if statement is not None]
    except ParseError as error:
        if writes_into:
            raise into from None
        raise _Refused(Refusal.SYNTAX, f"the statement does not parse: {_first_line(error)}") from None
    if not statements:
        raise _Refused(Refusal.EMPTY, "the statement is empty")
    if len(statements) > 1:
        raise _Refused(Refusal.MULTIPLE_STATEMENTS, f"exactly one statement is allowed, got {len(statements)}")
    statement = statements[0]
    while isinstance(statement, exp.Subquery) and not statement.alias:
        clauses = sorted(_SUBQUERY_MODIFIERS.intersection(key for key, value in statement.args.items() if value))
        if clauses:
            # ``(SELECT ...) ORDER BY x LIMIT 2``: unwrapping would drop the clauses, and the rows with them.
            raise _Refused(
                Refusal.SYNTAX,
                f"clauses after a bracketed SELECT ({', '.join(clauses)}) are not supported; move them inside",
            )
        statement = statement.this
    if not isinstance(statement, (exp.Select, exp.SetOperation)):
        kind = str(statement.this).upper() if isinstance(statement, exp.Command) else statement.key.upper()
        raise _Refused(Refusal.NOT_SELECT, f"only a SELECT is allowed, this is a {kind} statement")
    if writes_into:
        raise into
    return statement


def _check_node(node: exp.Expr, allowed: frozenset[str]) -> None:
    if isinstance(node, STATEMENT_NODES):
        raise _Refused(Refusal.NOT_SELECT, f"a {node.key.upper()} statement is not allowed, only SELECT")
    if isinstance(node, exp.CTE) and not isinstance(node.this, exp.Query):
        raise _Refused(Refusal.NOT_SELECT, f"the WITH part {node.alias!r} must be a SELECT")
    if isinstance(node, exp.Lock):
        raise _Refused(
            Refusal.LOCKING_READ, "locking reads (FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE) are not allowed"
        )
    if isinstance(node, (exp.Parameter, exp.SessionParameter, exp.Placeholder, exp.PropertyEQ)):
        raise _Refused(Refusal.VARIABLE, "variables, parameters and assignments (@x, @@x, ?, :=) are not allowed")
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Func):
        # schema.function(): a stored function, or a system schema's (sys.version_major()), not a builtin
        raise _Refused(Refusal.FORBIDDEN_FUNCTION, f"schema-qualified functions are not allowed ({node.sql()})")
    if isinstance(node, exp.Func):
        name = node.name if isinstance(node, exp.Anonymous) else node.sql_name()
        if name.upper() in FORBIDDEN_FUNCTIONS:
            raise _Refused(Refusal.FORBIDDEN_FUNCTION, f"the function {name.upper()} is not allowed")
    if isinstance(node, exp.Table):
        _check_table(node, allowed)
    if isinstance(node, exp.Values):
        raise _Refused(Refusal.WRITTEN_VALUE, "VALUES rows are not allowed: select rows from the tables")
    if isinstance(node, exp.TableAlias) and node.columns:
        # ``WITH x(root_cause) AS ...``, ``(...) AS t(root_cause)``: names a result's columns anew (see below).
        raise _Refused(
            Refusal.WRITTEN_VALUE,
            f"column lists ({node.sql(dialect=SOURCE_DIALECT)}) name a result's columns anew; keep the tables' names",
        )


def _check_selected(select: exp.Select) -> None:
    """What a SELECT returns must come from the tables, names included: each selected value is a column (or
    ``*``), a scalar subquery (a SELECT checked on its own), or COUNT, SUM, AVG, MIN or MAX of a column or ``*``.

    Anything else can be made to hold the model's own words, which the gatekeeper would then verify as evidence:
    a literal (``SELECT 'DNS is down'``), a function of one (``CONCAT('DNS ', 'down')``, ``CHAR(68, 78)``), a
    number built without one (``CHAR((TRUE + TRUE) * ...)``, ``(status = status) + ...``, a sum of a column
    that holds 1), text cut from real values (``SUBSTRING(message, id, id)``), and an alias (a claim pairs a
    cell with its column's name). Literals that only choose rows (WHERE, HAVING, ORDER BY, LIMIT) stay allowed.
    """
    _check_counted_source(select)
    for expression in select.expressions:
        if isinstance(expression, exp.Alias) and expression.alias != expression.this.output_name:
            raise _Refused(
                Refusal.WRITTEN_VALUE,
                f"the alias in {expression.sql(dialect=SOURCE_DIALECT)!r} names a result's column anew; select "
                "the value without AS (its column is then named by the table, or by its expression)",
            )
        if not _read_from_tables(expression.unalias()):
            raise _Refused(
                Refusal.WRITTEN_VALUE,
                f"the selected value {expression.sql(dialect=SOURCE_DIALECT)!r} is computed in the statement: a "
                "result is evidence, so select columns, or COUNT, SUM, AVG, MIN or MAX of a column (for a "
                "share, count each kind with WHERE and GROUP BY; for time buckets, group by a column)",
            )


_AGGREGATES = (exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max)
# Aggregates whose value grows with the rows' multiplicity: over a join (a table joined with itself), a
# derived table or a WITH result (a UNION ALL of a table with itself), they count the statement's
# combinations, a number no table holds. MIN and MAX return one of the values whatever the multiplicity.
_COUNTING = (exp.Count, exp.Sum, exp.Avg)


def _check_counted_source(select: exp.Select) -> None:
    """COUNT, SUM and AVG are evidence only over the rows of one table (``COUNT(*) FROM t, t AS u`` was 500
    over 139 rows): their FROM is a table, or a derived table or WITH result that selects from one table."""
    if not any(isinstance(expression.unalias(), _COUNTING) for expression in select.expressions):
        return
    if not _rows_of_one_table(select):
        raise _Refused(
            Refusal.WRITTEN_VALUE,
            "COUNT, SUM and AVG count the rows of one table: over a join, a derived table or a WITH result they "
            "count the statement's combinations; aggregate one table and choose its rows with WHERE (a "
            "subquery in WHERE ... IN (SELECT ...) may read another table)",
        )


def _rows_of_one_table(query: exp.Expr) -> bool:
    """Whether ``query`` yields rows of one table, each at most once: no join, no UNION, no recursion."""
    while isinstance(query, exp.Subquery):
        query = query.this
    if not isinstance(query, exp.Select) or query.args.get("joins"):
        return False
    source = query.args.get("from_")
    table = source.this if isinstance(source, exp.From) else None
    if isinstance(table, exp.Subquery):
        return _rows_of_one_table(table)
    if not isinstance(table, exp.Table):
        return False
    if table.name.lower() not in _visible_cte_names(table):
        return True
    body = _cte_body(table)
    return body is not None and body is not query and _rows_of_one_table(body)


def _cte_body(table: exp.Table) -> exp.Expr | None:
    """The query of the WITH name ``table`` reads (the nearest enclosing one); None for a recursive WITH."""
    node = table.parent
    while node is not None:
        with_clause = (
            node if isinstance(node, exp.With) else node.args.get("with_") if isinstance(node, exp.Query) else None
        )
        if isinstance(with_clause, exp.With):
            for cte in with_clause.expressions:
                if cte.alias_or_name.lower() == table.name.lower():
                    return None if with_clause.args.get("recursive") else cte.this
        node = node.parent
    return None


def _read_from_tables(value: exp.Expr) -> bool:
    while isinstance(value, exp.Paren):
        value = value.this
    if isinstance(value, (exp.Column, exp.Star, exp.Subquery)):
        return True
    if isinstance(value, _AGGREGATES) and not value.args.get("expressions"):
        argument = value.this
        arguments = argument.expressions if isinstance(argument, exp.Distinct) else [argument]
        return all(isinstance(item, (exp.Column, exp.Star)) for item in arguments)
    return False


def _check_table(table: exp.Table, allowed: frozenset[str]) -> None:
    if not isinstance(table.this, exp.Identifier):
        raise _Refused(Refusal.TABLE_NOT_ALLOWED, "table functions are not allowed; select from a table")
    name = table.name.lower()
    qualifiers = [part.lower() for part in (table.catalog, table.db) if part]
    if (
        any(part in SYSTEM_SCHEMAS for part in qualifiers)
        or name in SYSTEM_SCHEMAS
        or name.startswith(SYSTEM_TABLE_PREFIXES)
    ):
        raise _Refused(Refusal.SYSTEM_SCHEMA, f"system schemas and catalog tables are not allowed ({table.sql()})")
    if qualifiers:
        raise _Refused(Refusal.TABLE_NOT_ALLOWED, f"name tables without a schema ({table.sql()})")
    if name in allowed or name in _visible_cte_names(table):
        return
    tables = ", ".join(sorted(allowed)) or "none (no scenario is loaded)"
    raise _Refused(Refusal.TABLE_NOT_ALLOWED, f"the table {table.name!r} is not allowed; the tables are: {tables}")


def _visible_cte_names(table: exp.Table) -> set[str]:
    """The WITH names in scope at ``table``: a CTE body sees only earlier CTEs (and itself if RECURSIVE).

    Scoping matters: a CTE defined in a subquery must not make a same-named real table elsewhere pass.
    """
    names: set[str] = set()
    child: exp.Expr = table
    node = table.parent
    while node is not None:
        if isinstance(node, exp.With):
            ctes = node.expressions
            position = next((index for index, cte in enumerate(ctes) if cte is child), len(ctes))
            visible = ctes[: position + 1] if node.args.get("recursive") else ctes[:position]
            names.update(cte.alias_or_name.lower() for cte in visible)
        elif isinstance(node, exp.Query):
            with_clause = node.args.get("with_")
            if with_clause is not None and with_clause is not child:
                names.update(cte.alias_or_name.lower() for cte in with_clause.expressions)
        child, node = node, node.parent
    return names


def _cap_limit(statement: exp.Query, cap: int) -> None:
    """Keep a literal LIMIT/FETCH of at most ``cap``; otherwise set ``LIMIT cap``."""
    limit = statement.args.get("limit")
    count = limit.expression if isinstance(limit, exp.Limit) else limit.args.get("count") if limit else None
    if isinstance(count, exp.Literal) and count.is_int and int(count.name) <= cap:
        return
    statement.set("limit", exp.Limit(expression=exp.Literal.number(cap)))


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__
