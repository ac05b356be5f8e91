"""Reading and validating a scenario pack folder (DESIGN.md "Scenario packs") before anything is written.

A pack is ``scenario.json``, ``logs.jsonl``, ``metrics.csv``, ``business.sql`` and ``knowledge/*.md``. The
whole pack is read and checked in memory first — every log line, every CSV row, every SQL statement run
against a scratch SQLite database — so a bad pack is refused with ``file:line: message`` and leaves the
loaded data untouched. Only what the format promises is required; extra log fields are kept as they are.

``business.sql`` is data, not a script: it is cut where SQLite itself ends each statement, and every
statement must read (by sqlglot's AST) as a CREATE TABLE, CREATE INDEX or INSERT that names only tables
the pack creates, none of them named like one of the project's own tables — the MySQL load drops and
recreates exactly the pack's tables, possibly in the project's database. So nothing else (ATTACH, PRAGMA,
VACUUM INTO, triggers, views) runs, not even on the scratch database; an authorizer on the SQLite
connection denies attaching files and pragmas besides, should a statement slip past that check.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sqlite3
import time
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlglot
from django.apps import apps
from django.conf import settings
from jsonschema import Draft202012Validator
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from config.json_depth import MAX_JSON_DEPTH, nesting_exceeds
from config.text import is_unicode_text
from tools.knowledge.chunking import chunk_markdown
from tools.knowledge.uploads import CONTROL_CHARACTERS
from tools.timestamps import parse_timestamp

PACKS_DIR = Path(__file__).resolve().parent / "packs"
METRIC_COLUMNS = ("ts", "service", "metric", "value")
# Column sizes of log_record / metric_point.
MAX_NAME_CHARS = 100
MAX_LEVEL_CHARS = 10
# The size of loaded_scenario.name and knowledge_document.scenario, where the manifest's name is stored.
MAX_SCENARIO_NAME_CHARS = 100

ALLOWED_STATEMENTS = "CREATE TABLE, CREATE INDEX and INSERT"
# Tables of Django's own apps (auth_user, django_migrations, django_session, ...), models or not.
RESERVED_TABLE_PREFIXES = ("auth_", "django_")
# What the scratch and staging SQLite connections refuse while the pack's statements run. VACUUM (also
# VACUUM INTO a file) attaches a database internally, so it is refused as an ATTACH.
_DENIED_ACTIONS = frozenset({sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH, sqlite3.SQLITE_PRAGMA})

# Whitespace and comments (SQLite's two forms) before the first word of a statement.
_LEADING_NOISE = re.compile(r"(?:\s+|--[^\n]*|/\*.*?(?:\*/|\Z))*", re.DOTALL)

MANIFEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "description", "window", "services", "questions"],
    "properties": {
        # Any text (blank or control characters are refused after the schema): it is stored, never a path.
        "name": {"type": "string", "minLength": 1, "maxLength": MAX_SCENARIO_NAME_CHARS},
        "description": {"type": "string"},
        "window": {
            "type": "object",
            "required": ["start", "end"],
            "properties": {"start": {"type": "string"}, "end": {"type": "string"}},
        },
        "services": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        "questions": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["text", "expect_keywords"],
                "properties": {
                    "text": {"type": "string", "minLength": 1},
                    "expect_keywords": {"type": "array", "items": {"type": "string", "minLength": 1}},
                },
            },
        },
    },
}
_MANIFEST_VALIDATOR = Draft202012Validator(MANIFEST_SCHEMA)


#: A pack's file is read whole: a larger one is refused, not left to the OOM killer (packs are scenarios,
#: not a production log store).
MAX_FILE_BYTES = 64 * 2**20


class PackError(Exception):
    """What is wrong with a pack, and where: ``file:line: message`` (``file: message`` for a whole file)."""

    def __init__(self, file: Path, line: int | None, message: str) -> None:
        super().__init__(message)
        self.file = file
        self.line = line
        self.message = message

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else str(self.file)
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class LogLine:
    ts: datetime
    service: str
    level: str
    message: str
    extra: dict[str, Any]


@dataclass(frozen=True)
class MetricSample:
    ts: datetime
    service: str
    metric: str
    value: float


@dataclass(frozen=True)
class SqlStatement:
    """One statement of ``business.sql`` as SQLite cuts it, with the line it starts on (for error messages)."""

    line: int
    sql: str


@dataclass(frozen=True)
class ScenarioPack:
    root: Path
    manifest: dict[str, Any]
    logs: list[LogLine]
    metrics: list[MetricSample]
    documents: list[tuple[str, str]]
    statements: list[SqlStatement]
    business_schema: dict[str, list[str]]

    @property
    def name(self) -> str:
        return self.manifest["name"]

    @property
    def business_tables(self) -> list[str]:
        return sorted(self.business_schema)


def resolve_pack(name_or_path: str) -> Path:
    """A pack folder: an existing path, else a folder of that name under ``tools/scenarios/packs/``."""
    candidate = Path(name_or_path)
    if candidate.is_dir():
        return candidate.resolve()
    named = PACKS_DIR / name_or_path
    if "/" not in name_or_path and named.is_dir():
        return named
    shipped = ", ".join(shipped_pack_names()) or "none"
    raise PackError(candidate, None, f"no such pack folder (shipped packs: {shipped})")


def shipped_pack_names() -> list[str]:
    return sorted(path.name for path in PACKS_DIR.iterdir() if path.is_dir()) if PACKS_DIR.is_dir() else []


def read_pack(root: Path) -> ScenarioPack:
    """Read and validate every file of the pack at ``root``; ``PackError`` at the first problem."""
    root = root.resolve()
    if not root.is_dir():
        raise PackError(root, None, "not a folder")
    manifest = _read_manifest(root / "scenario.json")
    logs = _read_logs(root / "logs.jsonl")
    metrics = _read_metrics(root / "metrics.csv")
    documents = _read_documents(root / "knowledge")
    statements = split_statements(_read_text(root / "business.sql"))
    checked_statements(root / "business.sql", statements)
    schema = _business_schema(root / "business.sql", statements)
    return ScenarioPack(root, manifest, logs, metrics, documents, statements, schema)


def _read_text(path: Path) -> str:
    if not path.is_file():
        raise PackError(path, None, "not a regular file (a folder?)" if path.exists() else "missing file")
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            # A whole file is read, and its records parsed, at once: about twelve times its size in memory.
            raise PackError(path, None, f"larger than {MAX_FILE_BYTES // 2**20} MiB, the limit of a pack's file")
        raw = path.read_bytes()
    except OSError as error:  # unreadable: permissions, an I/O error
        raise PackError(path, None, f"cannot be read: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise PackError(path, raw[: error.start].count(b"\n") + 1, "not valid UTF-8") from None
    # As an upload refuses them: a NUL or another control character is no text (and a NUL stops SQLite's
    # tokenizer with a ValueError).
    control = CONTROL_CHARACTERS.search(text)
    if control:
        raise PackError(path, text.count("\n", 0, control.start()) + 1, f"control character {control.group()!r}")
    return text


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


#: A ``\\uD800``-``\\uDFFF`` escape: half of a surrogate pair, which only its other half makes a character.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400: past a double, read as infinity
        raise ValueError(f"{text} is not a finite number")
    return value


def _json(text: str) -> Any:
    """Strict JSON: Python's reader takes NaN and Infinity (and reads 1e400 as infinity), which no database's
    JSON column stores, and an unpaired surrogate escape (``"\\ud800"``), which no database's text stores
    either; MariaDB's JSON stores no more than ``MAX_JSON_DEPTH`` levels of nesting. ``ValueError`` for those:
    accepted here, they failed the load at the database, with a traceback."""
    if nesting_exceeds(text, MAX_JSON_DEPTH):
        raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels, which MariaDB's JSON does not store")
    value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    if _SURROGATE_ESCAPE.search(text) and not is_unicode_text(json.dumps(value, ensure_ascii=False)):
        raise ValueError("a \\u escape names half of a surrogate pair, which is no character")
    return value


def _read_manifest(path: Path) -> dict[str, Any]:
    text = _read_text(path)
    try:
        manifest = _json(text)
    except json.JSONDecodeError as error:
        raise PackError(path, error.lineno, f"not valid JSON: {error.msg}") from None
    except ValueError as error:
        raise PackError(path, None, f"not valid JSON: {error}") from None
    errors = sorted(_MANIFEST_VALIDATOR.iter_errors(manifest), key=lambda error: list(error.absolute_path))
    if errors:
        first = errors[0]
        top_key = next((part for part in first.absolute_path if isinstance(part, str)), None)
        raise PackError(path, _line_of_key(text, top_key), f"{first.json_path}: {first.message}")
    window = manifest["window"]
    try:
        start, end = parse_timestamp(window["start"]), parse_timestamp(window["end"])
    except ValueError as error:
        raise PackError(path, _line_of_key(text, "window"), f"$.window: {error}") from None
    if start >= end:
        raise PackError(path, _line_of_key(text, "window"), "$.window: start must be before end")
    name = manifest["name"]
    if not name.strip() or any(unicodedata.category(character) == "Cc" for character in name):
        raise PackError(path, _line_of_key(text, "name"), "$.name: must not be blank or hold control characters")
    return manifest


def _line_of_key(text: str, key: str | None) -> int:
    """The line where ``"key":`` first appears (the top of the file when the key is absent)."""
    match = re.search(rf'"{re.escape(key)}"\s*:', text) if key else None
    return text.count("\n", 0, match.start()) + 1 if match else 1


def _read_logs(path: Path) -> list[LogLine]:
    lines = []
    # Split on newlines only: str.splitlines would also break inside a message holding U+2028.
    for number, line in enumerate(_read_text(path).split("\n"), start=1):
        if line.strip():
            lines.append(_log_line(path, number, line))
    return lines


def _log_line(path: Path, number: int, line: str) -> LogLine:
    try:
        record = _json(line)
    except json.JSONDecodeError as error:
        raise PackError(path, number, f"not valid JSON: {error.msg}") from None
    except ValueError as error:
        raise PackError(path, number, f"not valid JSON: {error}") from None
    if not isinstance(record, dict):
        raise PackError(path, number, "each line must be a JSON object")
    missing = [key for key in ("ts", "service", "level", "message") if key not in record]
    if missing:
        raise PackError(path, number, f"missing {', '.join(missing)}")
    for key, limit in (("service", MAX_NAME_CHARS), ("level", MAX_LEVEL_CHARS)):
        if not isinstance(record[key], str) or not record[key].strip() or len(record[key]) > limit:
            raise PackError(path, number, f"{key} must be a non-empty string of at most {limit} characters")
    if not isinstance(record["message"], str):
        raise PackError(path, number, "message must be a string")
    ts = _timestamp(path, number, record["ts"])
    extra = {key: value for key, value in record.items() if key not in {"ts", "service", "level", "message"}}
    return LogLine(ts, record["service"], record["level"].upper(), record["message"], extra)


def _read_metrics(path: Path) -> list[MetricSample]:
    reader = csv.DictReader(io.StringIO(_read_text(path), newline=""))
    if tuple(reader.fieldnames or ()) != METRIC_COLUMNS:
        raise PackError(path, 1, f"the header must be {','.join(METRIC_COLUMNS)}")
    samples = []
    for row in reader:
        number = reader.line_num
        if None in row or any(row[column] is None for column in METRIC_COLUMNS):
            raise PackError(path, number, f"expected {len(METRIC_COLUMNS)} columns")
        for column in ("service", "metric"):
            if not row[column].strip() or len(row[column]) > MAX_NAME_CHARS:
                raise PackError(path, number, f"{column} must be non-empty and at most {MAX_NAME_CHARS} characters")
        try:
            value = float(row["value"])
        except ValueError:
            raise PackError(path, number, f"value {row['value']!r} is not a number") from None
        if not math.isfinite(value):
            raise PackError(path, number, f"value {row['value']!r} is not finite")
        samples.append(MetricSample(_timestamp(path, number, row["ts"]), row["service"], row["metric"], value))
    return samples


def _read_documents(folder: Path) -> list[tuple[str, str]]:
    if not folder.is_dir():
        raise PackError(folder, None, "missing folder of knowledge documents")
    documents = []
    for path in sorted(folder.glob("*.md")):
        if not is_unicode_text(path.name):  # stored as the document's file name, which no database column holds
            raise PackError(path, None, "the file name is not UTF-8: rename the file")
        text = _read_text(path)
        # Read by the chunker that will store it: a setext heading is a heading, a "#" line in a fence is not.
        chunked = chunk_markdown(text, fallback_title="")
        if not chunked.title:
            raise PackError(path, 1, "no markdown heading (the first heading is the document title)")
        if not chunked.chunks:
            raise PackError(path, 1, "only headings: there is no text to search")
        documents.append((path.name, text))
    if not documents:
        raise PackError(folder, None, "no .md documents")
    return documents


def split_statements(text: str) -> list[SqlStatement]:
    """Cut ``business.sql`` into single statements, remembering the line each starts on.

    SQLite's own tokenizer (``sqlite3.complete_statement``) decides where a statement ends, so a ``;`` in a
    string or a comment does not cut, and each piece is exactly one statement to SQLite: what sqlglot checks
    is what runs. An unterminated tail is kept, for the check or SQLite to report.
    """
    bounds: list[tuple[int, int]] = []
    start = 0
    for semicolon in re.finditer(";", text):
        if sqlite3.complete_statement(text[start : semicolon.end()]):
            bounds.append((start, semicolon.end()))
            start = semicolon.end()
    bounds.append((start, len(text)))
    statements: list[SqlStatement] = []
    line, counted = 1, 0
    for start, end in bounds:
        noise = _LEADING_NOISE.match(text, start, end)
        assert noise is not None  # the pattern accepts the empty string, so it always matches
        begin = noise.end()
        if text[begin:end] in ("", ";"):
            continue
        # Counted on from the previous statement: a pack of many INSERTs stays linear.
        line += text.count("\n", counted, begin)
        counted = begin
        statements.append(SqlStatement(line, text[begin:end]))
    return statements


def checked_statements(path: Path, statements: list[SqlStatement]) -> list[tuple[int, exp.Expr]]:
    """Each statement as sqlglot reads it (SQLite), with its line, once all are known to be harmless.

    Allowed: CREATE TABLE (not temporary or virtual), CREATE INDEX and INSERT, naming only tables that some
    CREATE TABLE of the pack creates (a foreign key may point forward), unqualified, and none named like a
    table of the project. Anything else is a ``PackError`` at the statement's line.
    """
    parsed = [(statement.line, _parse_statement(path, statement)) for statement in statements]
    created: set[str] = set()
    reserved = reserved_table_names()
    for line, expression in parsed:
        _check_statement_kind(path, line, expression)
        table = created_table(expression)
        if table is None:
            continue
        name = table.name.lower()
        if name in reserved or name.startswith(RESERVED_TABLE_PREFIXES):
            raise PackError(path, line, f"the table name {table.name!r} is taken by the project's own tables")
        created.add(name)
    for line, expression in parsed:
        ctes = {cte.alias_or_name.lower() for cte in expression.find_all(exp.CTE)}
        for table in expression.find_all(exp.Table):
            if table.db or table.catalog:
                raise PackError(path, line, f"name tables without a schema ({table.sql(dialect='sqlite')})")
            if table.name.lower() not in created | ctes:
                raise PackError(
                    path, line, f"{table.sql(dialect='sqlite')} is not a table this pack creates with CREATE TABLE"
                )
    return parsed


def created_table(expression: exp.Expr) -> exp.Table | None:
    """The table a CREATE TABLE statement creates; None for any other statement."""
    if not isinstance(expression, exp.Create) or expression.kind != "TABLE":
        return None
    target = expression.this
    return target.this if isinstance(target, exp.Schema) else target


def reserved_table_names() -> frozenset[str]:
    """Lower-cased names of the project's tables: every model's (and many-to-many table's), the DB cache's."""
    models = {model._meta.db_table.lower() for model in apps.get_models(include_auto_created=True)}
    caches = {
        cache["LOCATION"].lower()
        for cache in settings.CACHES.values()
        if cache["BACKEND"] == "django.core.cache.backends.db.DatabaseCache"
    }
    return frozenset(models | caches)


def _parse_statement(path: Path, statement: SqlStatement) -> exp.Expr:
    try:
        expressions = [parsed for parsed in sqlglot.parse(statement.sql, read="sqlite") if parsed is not None]
    except (ParseError, TokenError) as error:
        first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise PackError(path, statement.line, f"cannot read the statement: {first_line}") from None
    except RecursionError:
        raise PackError(path, statement.line, "cannot read the statement: it is nested too deeply") from None
    if len(expressions) != 1:
        # SQLite cut it as one statement; a parser that sees another count cannot vouch for what runs.
        raise PackError(path, statement.line, f"expected one statement, sqlglot reads {len(expressions)}")
    return expressions[0]


def _check_statement_kind(path: Path, line: int, expression: exp.Expr) -> None:
    if isinstance(expression, exp.Insert):
        return
    if isinstance(expression, exp.Create) and expression.kind == "INDEX":
        return
    if isinstance(expression, exp.Create) and expression.kind == "TABLE":
        properties = expression.args.get("properties")
        if properties is not None and properties.find(exp.TemporaryProperty, exp.VirtualProperty):
            raise PackError(path, line, "a temporary or virtual table is not a business table; use CREATE TABLE")
        return
    if isinstance(expression, exp.Command):
        kind = f"{str(expression.this).upper()} (a statement sqlglot cannot fully read, so cannot check)"
    elif isinstance(expression, exp.Create):
        kind = f"CREATE {expression.kind}"
    else:
        kind = expression.key.upper()
    raise PackError(path, line, f"only {ALLOWED_STATEMENTS} statements are allowed, not {kind}")


def execute_statements(connection: sqlite3.Connection, path: Path, statements: list[SqlStatement]) -> None:
    """Run ``business.sql`` on ``connection`` and commit; a failing statement is a ``PackError`` at its line.

    One ``execute`` per statement (it refuses a second statement), with ATTACH, DETACH and PRAGMA denied, and
    each within ``SQL_STATEMENT_SECONDS``: a recursive query with no end (``WITH RECURSIVE`` inserting rows
    for ever) would otherwise hold the loader, and its memory, until it is killed (SQLite does not see Ctrl-C).
    """
    connection.set_authorizer(_authorize)
    deadline = 0.0
    connection.set_progress_handler(lambda: time.monotonic() > deadline, SQL_PROGRESS_STEPS)
    try:
        with connection:
            for statement in statements:
                deadline = time.monotonic() + SQL_STATEMENT_SECONDS
                try:
                    connection.execute(statement.sql)
                except sqlite3.Error as error:
                    if time.monotonic() > deadline:
                        message = f"SQL did not finish within {SQL_STATEMENT_SECONDS} s (a query with no end?)"
                        raise PackError(path, statement.line, message) from None
                    raise PackError(path, statement.line, f"SQL failed: {error}") from None
    finally:
        connection.set_authorizer(None)
        connection.set_progress_handler(None, 0)


#: How long one statement of ``business.sql`` may run, and how often (in SQLite's virtual machine steps) that is
#: checked: a pack's whole business database loads in well under a second.
SQL_STATEMENT_SECONDS = 30
SQL_PROGRESS_STEPS = 100_000


def _authorize(action: int, *_: str | None) -> int:
    return sqlite3.SQLITE_DENY if action in _DENIED_ACTIONS else sqlite3.SQLITE_OK


def _business_schema(path: Path, statements: list[SqlStatement]) -> dict[str, list[str]]:
    """Run the statements on a scratch database; its tables (and their columns) are the allow-list."""
    connection = sqlite3.connect(":memory:")
    try:
        execute_statements(connection, path, statements)
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                "ORDER BY name"
            )
        ]
        schema = {
            table: [row[1] for row in connection.execute("SELECT * FROM pragma_table_info(?)", (table,))]
            for table in tables
        }
    finally:
        connection.close()
    if not schema:
        raise PackError(path, 1, "no CREATE TABLE: the business tables are what query_mysql may read")
    return schema


def _timestamp(path: Path, number: int, value: Any) -> datetime:
    try:
        return parse_timestamp(value)
    except ValueError as error:
        raise PackError(path, number, f"ts: {error}") from None
