"""The first of ``query_mysql``'s three read-only layers: a sqlglot AST check of the model's SQL.

A statement passes only if it is exactly one SELECT (UNION/INTERSECT/EXCEPT of SELECTs included, and one
WITH at its start) over allow-listed tables, with no comment, no ``INTO``, no locking read, no variable, no
dangerous or unknown function, no system schema, no LIMIT but a whole number, and no value, row or column
name it writes itself among what it selects (a result is evidence: it may hold only what the tables hold; a
COUNT, SUM or AVG only over the rows of one table, not over a join's combinations; no ROLLUP total). What
runs is then not the model's text but the checked AST rendered again for the target database, every
identifier quoted, with a LIMIT of at most ``max_rows + 1`` — so nothing the parser did not see (a MySQL
``/*! executable comment */``, a name the server reads as a function, a dialect quirk in quoting) can reach
the database — and that rendering is parsed and checked again in the target dialect before it is handed
out. The read-only connection and the statement timeout (``connection.py``) are the other two layers; each
holds if another one fails.
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

# Functions that touch files, sleep, take locks, burn CPU, disclose the server (a UUID holds its MAC address),
# smuggle data out through error messages, or write inside a SELECT: MariaDB's sequence functions advance or
# set a sequence (``NEXT VALUE FOR s`` is the same as NEXTVAL; sqlglot reads it as MySQL only as a syntax
# error today, and as ``NEXT_VALUE_FOR`` in dialects that know it, so a newer sqlglot still refuses it). And
# those that make a long string of a short statement (PAD is sqlglot's LPAD and RPAD; nested REPLACE or HEX
# multiply a length at each level): searching megabytes keeps a MariaDB thread busy, holding its table's
# metadata lock, for seconds after the call's deadline ended the session (a server finishes the function
# call it is in). Compared upper-case with the name sqlglot parsed.
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
        "CURRENT_ROLE", "UUID", "UUID_SHORT", "SYS_GUID",
        "REPEAT", "PAD", "SPACE", "REPLACE", "REGEXP_REPLACE", "HEX", "TO_BASE64", "EXPORT_SET", "MAKE_SET",
    }
)
# Built-in functions sqlglot has no class for (it reads them as "anonymous"), which only compute from their
# arguments. Any other unknown name is refused: called without a schema, a name no built-in has is the
# current database's stored function or a UDF, which runs with its definer's rights over any table.
PLAIN_FUNCTIONS = frozenset(
    {
        "BIN", "OCT", "CONV", "CRC32", "FIELD", "FIND_IN_SET", "LENGTHB", "OCTET_LENGTH", "MID", "ORD", "STRCMP",
        "NOW", "SYSDATE", "ADDDATE", "SUBDATE", "ADDTIME", "SUBTIME", "TIMEDIFF", "MAKEDATE", "MICROSECOND",
        "WEEKDAY", "YEARWEEK", "FROM_DAYS", "TO_SECONDS", "SEC_TO_TIME", "TIME_TO_SEC", "TIME_FORMAT",
        "PERIOD_ADD", "PERIOD_DIFF", "UNIX_TIMESTAMP", "STRFTIME", "JULIANDAY", "UNIXEPOCH",
        # SQLite's own, as sqlglot renders MySQL's TIME, DATETIME, CONVERT_TZ and DATE_ADD for it.
        "DATE", "TIME", "DATETIME",
        "JSON_UNQUOTE", "JSON_CONTAINS", "JSON_LENGTH", "JSON_VALID", "JSON_QUERY", "JSON_SEARCH",
        "INET_ATON", "INET_NTOA", "INET6_ATON", "INET6_NTOA", "IS_IPV4", "IS_IPV6",
    }
)
# fmt: on
# Bounds on what one statement may ask the guard to check: without them, checking a 9 000-character chain of
# 275 WITH parts that each count the one before took seconds of CPU, per call.
MAX_WITH_PARTS = 20
MAX_SELECTS = 50
# The longest length a cast may declare: past it a short statement makes a long value, as the functions above
# do (``CAST(x AS BINARY(1000000))`` pads to a megabyte).
MAX_DECLARED_LENGTH = 1000

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
    # Valid SQL whose meaning the guard cannot prove the same on SQLite and MariaDB (or to be what it seems).
    UNSUPPORTED = "unsupported"


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
        # Every identifier quoted: MariaDB reads an unquoted ``CURRENT_ROLE``, which sqlglot takes for a
        # column, as a call of that function.
        rendered = statement.sql(dialect=target, identify=True)
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
    _check_size(statement)
    with_parts = _with_parts(statement, allowed)
    for node in statement.walk():
        _check_node(node, allowed, with_parts)
    # Last: a statement that is unsafe as well is refused for that (a forbidden function, a table).
    for select in statement.find_all(exp.Select):
        _check_selected(select, with_parts)
    return statement


def _check_size(statement: exp.Query) -> None:
    """Bound the work of checking one statement (``MAX_WITH_PARTS``, ``MAX_SELECTS``)."""
    with_clause = statement.args.get("with_")
    parts = len(with_clause.expressions) if isinstance(with_clause, exp.With) else 0
    selects = sum(1 for _ in statement.find_all(exp.Select))
    if parts > MAX_WITH_PARTS or selects > MAX_SELECTS:
        raise _Refused(
            Refusal.TOO_LONG,
            f"the statement has {parts} WITH parts and {selects} SELECTs; at most {MAX_WITH_PARTS} and "
            f"{MAX_SELECTS} are checked: ask several simpler queries",
        )


@dataclass(frozen=True)
class _WithParts:
    """The parts of the statement's one WITH, by lower-case name in their order (``_with_parts``)."""

    parts: dict[str, exp.CTE]
    recursive: bool

    def visible(self, node: exp.Expr) -> list[str]:
        """The parts ``node`` may read: in the main query (its subqueries too) all of them; in a part, the
        parts before it (and itself, if RECURSIVE). A later part is no name at all: SQLite would read that
        part there, MariaDB a table of its name."""
        names = list(self.parts)
        part = node.find_ancestor(exp.CTE)
        if part is None:
            return names
        position = names.index(part.alias_or_name.lower())
        return names[: position + 1] if self.recursive else names[:position]


def _with_parts(statement: exp.Query, allowed: frozenset[str]) -> _WithParts:
    """The statement's WITH, allowed only at its start and only with names of its own, so that each name it
    reads means the same on SQLite and MariaDB: a WITH inside a subquery does not see the outer WITH's names
    on MariaDB (which read the table of that name instead, outside the allow-list), and a part named like a
    table, or like another part, is that table to one engine and the part to the other."""
    top = statement.args.get("with_")
    if any(with_clause is not top for with_clause in statement.find_all(exp.With)):
        raise _Refused(
            Refusal.UNSUPPORTED,
            "WITH is allowed only at the start of the statement, not inside a subquery or a WITH part (MariaDB "
            "does not let a nested WITH see the outer one's names); define all the parts in the first WITH",
        )
    parts: dict[str, exp.CTE] = {}
    for part in top.expressions if isinstance(top, exp.With) else []:
        name = part.alias_or_name.lower()
        if name in allowed or name in parts:
            raise _Refused(
                Refusal.UNSUPPORTED,
                f"the WITH part {part.alias_or_name!r} has the name of a table or of another part; give each "
                "part a name of its own",
            )
        parts[name] = part
    return _WithParts(parts, isinstance(top, exp.With) and bool(top.args.get("recursive")))


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


def _check_node(node: exp.Expr, allowed: frozenset[str], with_parts: _WithParts) -> None:
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
        _check_function(node)
    if isinstance(node, exp.Table):
        _check_table(node, allowed, with_parts)
    if isinstance(node, exp.Values):
        raise _Refused(Refusal.WRITTEN_VALUE, "VALUES rows are not allowed: select rows from the tables")
    if isinstance(node, exp.TableAlias) and node.columns:
        # ``WITH x(root_cause) AS ...``, ``(...) AS t(root_cause)``: names a result's columns anew (see below).
        raise _Refused(
            Refusal.WRITTEN_VALUE,
            f"column lists ({node.sql(dialect=SOURCE_DIALECT)}) name a result's columns anew; keep the tables' names",
        )
    if isinstance(node, (exp.Rollup, exp.Cube, exp.GroupingSets)):
        # A total row with NULL in the grouped column: "5 orders whose status is NULL", which no table holds.
        raise _Refused(
            Refusal.WRITTEN_VALUE,
            "ROLLUP, CUBE and GROUPING SETS add total rows that no table holds; group by the columns alone (a "
            "total is a second COUNT without GROUP BY)",
        )
    if isinstance(node, (exp.Limit, exp.Offset, exp.Fetch)):
        _check_limit(node)
    if isinstance(node, exp.DataTypeParam) and not 0 <= _declared_length(node) <= MAX_DECLARED_LENGTH:
        raise _Refused(
            Refusal.FORBIDDEN_FUNCTION,
            f"a cast may declare a whole number of at most {MAX_DECLARED_LENGTH} as its length "
            f"({node.sql(dialect=SOURCE_DIALECT)})",
        )
    if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.CHARACTER_SET:
        _check_character_set(node)


def _declared_length(param: exp.DataTypeParam) -> int:
    """A cast's declared length or precision; -1 for anything but a whole number (``CHAR(1e6)``)."""
    literal = param.this
    if isinstance(literal, exp.Literal) and not literal.is_string and literal.this.isdigit():
        return int(literal.this)
    return -1


# Character sets a comparison may convert to (``CONVERT(x USING utf8mb4)``, MySQL's answer to "Illegal mix of
# collations"): none of them makes a value longer than its UTF-8 (utf16 and utf32 double or quadruple it).
CHARACTER_SETS = frozenset({"utf8mb4", "utf8mb3", "utf8", "latin1", "ascii", "binary"})


def _check_character_set(data_type: exp.DataType) -> None:
    kind = data_type.args.get("kind")
    name = (kind.name if isinstance(kind, exp.Expr) else str(kind or "")).lower()
    if name not in CHARACTER_SETS:
        raise _Refused(
            Refusal.FORBIDDEN_FUNCTION,
            f"converting to the character set {name or '?'} is not allowed (only {', '.join(sorted(CHARACTER_SETS))})",
        )


def _check_function(function: exp.Func) -> None:
    anonymous = isinstance(function, exp.Anonymous)
    name = (function.name if anonymous else function.sql_name()).upper()
    if name in FORBIDDEN_FUNCTIONS:
        raise _Refused(Refusal.FORBIDDEN_FUNCTION, f"the function {name} is not allowed")
    if anonymous and name not in PLAIN_FUNCTIONS:
        raise _Refused(
            Refusal.FORBIDDEN_FUNCTION,
            f"the function {name} is not a built-in function the guard knows (a stored function or UDF runs "
            "with its definer's rights); choose rows with comparisons, LIKE, IN and common date and string "
            "functions",
        )


def _check_limit(clause: exp.Limit | exp.Offset | exp.Fetch) -> None:
    """LIMIT, OFFSET and FETCH take a whole number and nothing else: sqlglot renders MySQL's ``LIMIT 1 + 1``
    as LIMIT 2 but SQLite's as it is, a LIMIT that is no number was replaced by the row cap (all the rows,
    reported as not truncated), and FETCH's PERCENT and WITH TIES are lost in a plain LIMIT."""
    options = clause.args.get("limit_options")
    if isinstance(options, exp.LimitOptions) and (options.args.get("percent") or options.args.get("with_ties")):
        raise _Refused(
            Refusal.UNSUPPORTED, "FETCH ... PERCENT and WITH TIES are not supported; write LIMIT and a number of rows"
        )
    count = clause.args.get("count") if isinstance(clause, exp.Fetch) else clause.expression
    if count is not None and not (isinstance(count, exp.Literal) and count.is_int):
        raise _Refused(
            Refusal.UNSUPPORTED,
            f"{clause.key.upper()} takes a whole number, not {count.sql(dialect=SOURCE_DIALECT)}; write, for "
            "example, LIMIT 10 OFFSET 20",
        )


def _check_selected(select: exp.Select, with_parts: _WithParts) -> None:
    """What a SELECT returns must come from the tables, names included: each selected value is a column (or
    ``*``), a scalar subquery (a SELECT checked on its own), or COUNT, SUM, AVG, MIN or MAX of a column or ``*``.

    Anything else can be made to hold the model's own words, which the gatekeeper would then verify as evidence:
    a literal (``SELECT 'DNS is down'``), a function of one (``CONCAT('DNS ', 'down')``, ``CHAR(68, 78)``), a
    number built without one (``CHAR((TRUE + TRUE) * ...)``, ``(status = status) + ...``, a sum of a column
    that holds 1), text cut from real values (``SUBSTRING(message, id, id)``), and an alias (a claim pairs a
    cell with its column's name). Literals that only choose rows (WHERE, HAVING, ORDER BY, LIMIT) stay allowed.
    """
    _check_counted_source(select, with_parts)
    for expression in select.expressions:
        if isinstance(expression, exp.Alias) and expression.alias != expression.this.output_name:
            raise _Refused(
                Refusal.WRITTEN_VALUE,
                f"the alias in {expression.sql(dialect=SOURCE_DIALECT)!r} names a result's column anew; select "
                "the value without AS (its column is then named by the table, or by its expression)",
            )
        if not _read_from_tables(_selected_value(expression)):
            raise _Refused(
                Refusal.WRITTEN_VALUE,
                f"the selected value {expression.sql(dialect=SOURCE_DIALECT)!r} is computed in the statement: a "
                "result is evidence, so select columns, or COUNT, SUM, AVG, MIN or MAX of a column (for a "
                "share, count each kind with WHERE and GROUP BY; for time buckets, group by a column)",
            )


def _selected_value(expression: exp.Expr) -> exp.Expr:
    """A selected expression without its alias and brackets: ``(COUNT(*))`` is a COUNT like any other."""
    value = expression.unalias()
    while isinstance(value, exp.Paren):
        value = value.this
    return value


_AGGREGATES = (exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max)
# Aggregates whose value grows with the rows' multiplicity: over a join (a table joined with itself), a
# derived table or a WITH result (a UNION ALL of a table with itself), they count the statement's
# combinations, a number no table holds. MIN and MAX return one of the values whatever the multiplicity.
_COUNTING = (exp.Count, exp.Sum, exp.Avg)


def _check_counted_source(select: exp.Select, with_parts: _WithParts) -> None:
    """COUNT, SUM and AVG are evidence only over the rows of one table (``COUNT(*) FROM t, t AS u`` was 500
    over 139 rows): their FROM is a table, or a derived table or WITH result that selects from one table."""
    if not any(isinstance(_selected_value(expression), _COUNTING) for expression in select.expressions):
        return
    if not _rows_of_one_table(select, with_parts):
        raise _Refused(
            Refusal.WRITTEN_VALUE,
            "COUNT, SUM and AVG count the rows of one table: over a join, a derived table or a WITH result they "
            "count the statement's combinations; aggregate one table and choose its rows with WHERE (a "
            "subquery in WHERE ... IN (SELECT ...) may read another table)",
        )


def _rows_of_one_table(query: exp.Expr, with_parts: _WithParts) -> bool:
    """Whether ``query`` yields rows of one table, each at most once: no join, no UNION, no recursion.

    A part read here is one before the query's own (``_check_table`` refused any other), so this ends.
    """
    while isinstance(query, exp.Subquery):
        query = query.this
    if not isinstance(query, exp.Select) or query.args.get("joins"):
        return False
    source = query.args.get("from_")
    table = source.this if isinstance(source, exp.From) else None
    if isinstance(table, exp.Subquery):
        return _rows_of_one_table(table, with_parts)
    if not isinstance(table, exp.Table):
        return False
    part = with_parts.parts.get(table.name.lower())
    if part is None:
        return True
    return not with_parts.recursive and _rows_of_one_table(part.this, with_parts)


def _read_from_tables(value: exp.Expr) -> bool:
    if isinstance(value, (exp.Column, exp.Star, exp.Subquery)):
        return True
    if isinstance(value, _AGGREGATES) and not value.args.get("expressions"):
        argument = value.this
        arguments = argument.expressions if isinstance(argument, exp.Distinct) else [argument]
        return all(isinstance(item, (exp.Column, exp.Star)) for item in arguments)
    return False


def _check_table(table: exp.Table, allowed: frozenset[str], with_parts: _WithParts) -> None:
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
    if name in with_parts.parts and name not in with_parts.visible(table):
        raise _Refused(
            Refusal.TABLE_NOT_ALLOWED,
            f"the WITH part {table.name!r} is read before it is defined: a part may read only the parts before "
            "it (and itself, in a WITH RECURSIVE)",
        )
    if name in allowed or name in with_parts.parts:
        return
    tables = ", ".join(sorted(allowed)) or "none (no scenario is loaded)"
    raise _Refused(Refusal.TABLE_NOT_ALLOWED, f"the table {table.name!r} is not allowed; the tables are: {tables}")


def _cap_limit(statement: exp.Query, cap: int) -> None:
    """Keep a LIMIT/FETCH of at most ``cap`` rows (``_check_limit`` made it a whole number); otherwise set
    ``LIMIT cap``."""
    rows = _limit_rows(statement.args.get("limit"))
    if rows is not None and rows <= cap:
        return
    statement.set("limit", exp.Limit(expression=exp.Literal.number(cap)))


def _limit_rows(limit: exp.Expr | None) -> int | None:
    """The rows a checked LIMIT or FETCH keeps (``FETCH FIRST ROW ONLY``: one); None without either."""
    if isinstance(limit, exp.Fetch):
        count = limit.args.get("count")
        return int(count.name) if isinstance(count, exp.Literal) else 1
    return int(limit.expression.name) if isinstance(limit, exp.Limit) else None


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__
