"""Pack validation: every problem is named as ``file:line: message`` before anything is written."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from tests.tools.conftest import TINY_PACK
from tools.models import KnowledgeDocument, LoadedScenario
from tools.scenarios import pack as pack_module
from tools.scenarios.pack import (
    MAX_SCENARIO_NAME_CHARS,
    PACKS_DIR,
    PackError,
    SqlStatement,
    execute_statements,
    read_pack,
    resolve_pack,
    shipped_pack_names,
    split_statements,
)


def replace_line(path: Path, number: int, text: str) -> None:
    lines = path.read_text().splitlines()
    lines[number - 1] = text
    path.write_text("\n".join(lines) + "\n")


def refusal(root: Path) -> PackError:
    with pytest.raises(PackError) as raised:
        read_pack(root)
    return raised.value


def test_it_reads_a_valid_pack():
    pack = read_pack(TINY_PACK)

    assert pack.name == "tiny-checkout-pool"
    assert (len(pack.logs), len(pack.metrics)) == (9, 10)
    assert [name for name, _ in pack.documents] == ["cache-eviction.md", "checkout-pool-runbook.md"]
    assert pack.business_tables == ["deploys", "orders"]
    assert pack.business_schema["deploys"] == ["version", "service", "deployed_at", "change_summary"]


def test_it_keeps_extra_log_fields_and_upper_cases_levels():
    pack = read_pack(TINY_PACK)

    assert pack.logs[0].extra == {"trace_id": "t-001"}
    assert pack.logs[3].level == "WARN"
    assert pack.logs[3].ts.isoformat() == "2024-05-01T10:05:12+00:00"


def test_a_manifest_number_past_a_double_is_refused_before_the_database_sees_it(tiny_pack):
    manifest = tiny_pack / "scenario.json"
    manifest.write_text(manifest.read_text().replace("{", '{"owner_budget": 1e999, ', 1))

    error = refusal(tiny_pack)

    assert error.file == manifest and "1e999 is not a finite number" in error.message


def test_it_formats_errors_as_file_line_message():
    assert str(PackError(Path("pack/logs.jsonl"), 3, "not valid JSON")) == "pack/logs.jsonl:3: not valid JSON"
    assert str(PackError(Path("pack/knowledge"), None, "missing folder")) == "pack/knowledge: missing folder"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('{"name": "x",\n  "description": "d",\n  oops}', 3, "not valid JSON"),
        ('{"name": "x"}', 1, "'description' is a required property"),
        (None, 1, "'window' is a required property"),
    ],
)
def test_it_names_the_line_of_a_broken_manifest(tiny_pack, text, line, message):
    manifest = tiny_pack / "scenario.json"
    if text is None:
        data = json.loads(manifest.read_text())
        del data["window"]
        text = json.dumps(data, indent=2)
    manifest.write_text(text)

    error = refusal(tiny_pack)

    assert (error.file, error.line) == (manifest, line)
    assert message in error.message


@pytest.mark.parametrize(
    ("change", "key", "message"),
    [
        (lambda data: data["questions"][0].pop("expect_keywords"), "questions", "$.questions[0]"),
        (lambda data: data.update(services=[]), "services", "should be non-empty"),
        (lambda data: data.update(name="tab\there"), "name", "$.name: must not be blank or hold control characters"),
        (lambda data: data.update(name="   "), "name", "$.name: must not be blank"),
        (lambda data: data.update(name=""), "name", "$.name: '' should be non-empty"),
        (lambda data: data.update(name="x" * (MAX_SCENARIO_NAME_CHARS + 1)), "name", "is too long"),
        (lambda data: data["window"].update(start="2024-05-01T12:00:00Z"), "window", "start must be before end"),
        (lambda data: data["window"].update(end="noon"), "window", "not an ISO 8601 timestamp"),
    ],
)
def test_it_names_the_line_of_the_section_that_is_wrong(tiny_pack, change, key, message):
    manifest = tiny_pack / "scenario.json"
    data = json.loads(manifest.read_text())
    change(data)
    text = json.dumps(data, indent=2)
    manifest.write_text(text)

    error = refusal(tiny_pack)

    lines = text.splitlines()
    assert f'"{key}"' in lines[error.line - 1]
    assert message in error.message


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"ts": "2024-05-01T10:00:05Z", "service": "a", "level": "INFO", "message": "cut', "not valid JSON"),
        ('["2024-05-01T10:00:05Z", "a", "INFO", "hello"]', "each line must be a JSON object"),
        ('{"ts": "2024-05-01T10:00:05Z", "service": "a", "level": "INFO"}', "missing message"),
        ('{"ts": "yesterday", "service": "a", "level": "INFO", "message": "m"}', "ts: 'yesterday' is not an ISO 8601"),
        (
            '{"ts": "2024-05-01T10:00:05Z", "service": "", "level": "INFO", "message": "m"}',
            "service must be a non-empty",
        ),
        ('{"ts": "2024-05-01T10:00:05Z", "service": "a", "level": "CATASTROPHIC", "message": "m"}', "level must be"),
        ('{"ts": "2024-05-01T10:00:05Z", "service": "a", "level": "INFO", "message": 42}', "message must be a string"),
        (
            '{"ts": "2024-05-01T10:00:05Z", "service": "a", "level": "INFO", "message": "m", "latency_ms": NaN}',
            "NaN is not a JSON number",
        ),
        (
            '{"ts": "2024-05-01T10:00:05Z", "service": "a", "level": "INFO", "message": "half a pair \\ud800"}',
            "names half of a surrogate pair",
        ),
        ("[" * 100_000, "nested deeper than 32 levels"),
        (
            '{"ts": "2024-05-01T10:00:05Z", "service": "a", "level": "INFO", "message": "m", "bytes": 1e400}',
            "1e400 is not a finite number",
        ),
        (
            '{"ts": "2024-05-01T10:00:05Z", "service": "a", "level": "INFO", "message": "m", "deep": '
            + "[" * 40
            + "]" * 40
            + "}",
            "nested deeper than 32 levels, which MariaDB's JSON does not store",
        ),
    ],
    ids=["cut", "array", "missing", "ts", "service", "level", "message", "nan", "surrogate", "nested", "inf", "deep"],
)
def test_it_names_the_line_of_a_bad_log_record(tiny_pack, line, message):
    replace_line(tiny_pack / "logs.jsonl", 5, line)

    error = refusal(tiny_pack)

    assert (error.file, error.line) == (tiny_pack / "logs.jsonl", 5)
    assert message in error.message


@pytest.mark.parametrize(
    ("number", "row", "message"),
    [
        (1, "time,service,metric,value", "the header must be ts,service,metric,value"),
        (4, "2024-05-01T10:01:00Z,checkout-service,p99_latency_ms,slow", "value 'slow' is not a number"),
        (4, "2024-05-01T10:01:00Z,checkout-service,p99_latency_ms,nan", "is not finite"),
        (4, "2024-05-01T10:01:00Z,checkout-service,p99_latency_ms", "expected 4 columns"),
        (4, "2024-05-01T10:01:00Z,checkout-service,p99_latency_ms,1,2", "expected 4 columns"),
        (4, "10:01,checkout-service,p99_latency_ms,1", "ts: '10:01' is not an ISO 8601"),
        (4, "2024-05-01T10:01:00Z,,p99_latency_ms,1", "service must be non-empty"),
    ],
)
def test_it_names_the_line_of_a_bad_metric_row(tiny_pack, number, row, message):
    replace_line(tiny_pack / "metrics.csv", number, row)

    error = refusal(tiny_pack)

    assert (error.file, error.line) == (tiny_pack / "metrics.csv", number)
    assert message in error.message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Just prose, no heading at all.\n", "no markdown heading"),
        ("# Title\n\n## Section\n", "only headings"),
        # A setext heading is a heading to the chunker that will store it, so there is no text either.
        ("# Notes\nSetext only\n===========\n", "only headings"),
        # A "#" line in a code fence is no heading to it.
        ("```\n# not a heading\n```\n\nText.\n", "no markdown heading"),
    ],
)
def test_it_refuses_a_knowledge_document_without_heading_or_text(tiny_pack, text, message):
    document = tiny_pack / "knowledge" / "broken.md"
    document.write_text(text)

    error = refusal(tiny_pack)

    assert (error.file, error.line) == (document, 1)
    assert message in error.message


def test_it_refuses_a_knowledge_file_whose_name_is_not_utf8(tiny_pack):
    """The name is stored as the document's: it crashed the load inside its transaction, with a traceback."""
    document = tiny_pack / "knowledge" / os.fsdecode(b"x\xffy.md")
    document.write_text("# T\n\nsome body\n")

    error = refusal(tiny_pack)

    assert (error.file, error.message) == (document, "the file name is not UTF-8: rename the file")


def test_a_setext_title_is_a_heading_as_the_chunker_reads_it(tiny_pack):
    (tiny_pack / "knowledge" / "setext.md").write_text("Pool runbook\n============\n\nRaise the pool size.\n")

    assert "setext.md" in [name for name, _ in read_pack(tiny_pack).documents]


def test_it_refuses_a_pack_without_knowledge_documents(tiny_pack):
    for document in (tiny_pack / "knowledge").iterdir():
        document.unlink()

    error = refusal(tiny_pack)

    assert (error.file, error.message) == (tiny_pack / "knowledge", "no .md documents")


@pytest.mark.parametrize("name", ["scenario.json", "logs.jsonl", "metrics.csv", "business.sql"])
def test_it_names_a_missing_file(tiny_pack, name):
    (tiny_pack / name).unlink()

    error = refusal(tiny_pack)

    assert (error.file, error.line, error.message) == (tiny_pack / name, None, "missing file")


def test_a_file_it_cannot_read_is_named_not_a_traceback(tiny_pack):
    (tiny_pack / "logs.jsonl").unlink()
    (tiny_pack / "logs.jsonl").symlink_to("/proc/self/mem")  # every read of it is an I/O error

    error = refusal(tiny_pack)

    assert (error.file, error.line) == (tiny_pack / "logs.jsonl", None)
    assert error.message.startswith("cannot be read: ")


def test_it_names_the_line_of_bytes_that_are_not_utf8(tiny_pack):
    (tiny_pack / "logs.jsonl").write_bytes(b'{"a": 1}\n{"b": "\xff"}\n')

    error = refusal(tiny_pack)

    assert (error.line, error.message) == (2, "not valid UTF-8")


@pytest.mark.parametrize("name", ["business.sql", "logs.jsonl"])
def test_it_names_the_line_of_a_control_character(tiny_pack, name):
    path = tiny_pack / name
    path.write_text(path.read_text() + "\n-- \x00\n")
    line = path.read_text().count("\n")  # the NUL's line, the last but the empty one after it

    error = refusal(tiny_pack)

    assert (error.file, error.line, error.message) == (path, line, "control character '\\x00'")


def test_a_statement_nested_deeper_than_the_parser_reads_is_named(tiny_pack):
    sql = tiny_pack / "business.sql"
    sql.write_text(sql.read_text() + "\nINSERT INTO deploys VALUES (" + "(" * 5000 + "1" + ")" * 5000 + ");\n")

    error = refusal(tiny_pack)

    assert error.file == sql
    assert error.message == "cannot read the statement: it is nested too deeply"


def test_it_names_the_first_line_of_a_failing_sql_statement(tiny_pack):
    sql = tiny_pack / "business.sql"
    sql.write_text(sql.read_text() + "\n-- a typo\nINSERT INTO deploys\n  VALUES ('v3', 'checkout-service');\n")
    lines = sql.read_text().splitlines()

    error = refusal(tiny_pack)

    assert error.file == sql
    assert lines[error.line - 1] == "INSERT INTO deploys"
    assert "table deploys has 4 columns but 2 values were supplied" in error.message


def test_a_pair_of_surrogate_escapes_is_one_character_and_loads(tiny_pack):
    line = '{"ts": "2024-05-01T10:00:05Z", "service": "a", "level": "INFO", "message": "emoji \\ud83d\\ude00"}'
    replace_line(tiny_pack / "logs.jsonl", 5, line)

    assert any(log.message == "emoji \U0001f600" for log in read_pack(tiny_pack).logs)


def test_a_statement_that_never_ends_is_stopped_and_named(tiny_pack, monkeypatch):
    """A recursive query with no end held the loader, and its memory, until it was killed."""
    monkeypatch.setattr("tools.scenarios.pack.SQL_STATEMENT_SECONDS", 0.5)
    sql = tiny_pack / "business.sql"
    endless = (
        "INSERT INTO deploys WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x, x, x, x FROM c;"
    )
    sql.write_text(sql.read_text() + "\n" + endless + "\n")

    error = refusal(tiny_pack)

    assert sql.read_text().splitlines()[error.line - 1] == endless
    assert error.message == "SQL did not finish within 0.5 s (a query with no end?)"


def test_it_refuses_business_sql_without_tables(tiny_pack):
    (tiny_pack / "business.sql").write_text("-- nothing yet\n")

    error = refusal(tiny_pack)

    assert "no CREATE TABLE" in error.message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "-- header\n\nCREATE TABLE t (a);\nINSERT INTO t\nVALUES (';');\nSELECT 1; SELECT 2;\n",
            [(3, "CREATE TABLE t (a);"), (4, "INSERT INTO t\nVALUES (';');"), (6, "SELECT 1;"), (6, "SELECT 2;")],
        ),
        # Not at every semicolon: SQLite's tokenizer skips those in strings and comments; empty ones go.
        (
            "INSERT INTO t VALUES ('a;b'); -- note; more\n/* x;\n y; */ INSERT INTO t VALUES (\"c;\");\n;\n-- end",
            [(1, "INSERT INTO t VALUES ('a;b');"), (3, 'INSERT INTO t VALUES ("c;");')],
        ),
    ],
)
def test_it_splits_statements_where_sqlite_ends_them_remembering_where_each_starts(text, expected):
    assert [(statement.line, statement.sql) for statement in split_statements(text)] == expected


def test_it_keeps_an_unterminated_tail_so_that_running_it_reports_it():
    assert [statement.sql for statement in split_statements("SELECT 1;\nSELECT")] == ["SELECT 1;", "SELECT"]


def test_it_finds_a_shipped_pack_by_name_and_any_pack_by_path(tiny_pack):
    name = shipped_pack_names()[0]

    assert resolve_pack(name) == PACKS_DIR / name
    assert resolve_pack(str(tiny_pack)) == tiny_pack.resolve()


def test_it_names_the_shipped_packs_when_a_name_is_unknown():
    with pytest.raises(PackError) as raised:
        resolve_pack("no-such-pack")

    assert raised.value.message == f"no such pack folder (shipped packs: {', '.join(shipped_pack_names())})"


def test_it_keeps_a_line_separator_inside_a_message(tiny_pack):
    logs = tiny_pack / "logs.jsonl"
    logs.write_text('{"ts": "2024-05-01T10:00:05Z", "service": "a", "level": "INFO", "message": "one\u2028two"}\n')

    assert [line.message for line in read_pack(tiny_pack).logs] == ["one\u2028two"]


@pytest.mark.parametrize(
    "name", ["支付 超时", "checkout pool exhausted (May 1st)", "../etc", "x" * MAX_SCENARIO_NAME_CHARS]
)
def test_it_accepts_any_scenario_name_that_is_text(tiny_pack, name):
    manifest = tiny_pack / "scenario.json"
    manifest.write_text(json.dumps(json.loads(manifest.read_text()) | {"name": name}, ensure_ascii=False))

    assert read_pack(tiny_pack).name == name


def test_the_name_limit_is_the_size_of_the_columns_that_store_it():
    for field in (LoadedScenario._meta.get_field("name"), KnowledgeDocument._meta.get_field("scenario")):
        assert field.max_length == MAX_SCENARIO_NAME_CHARS


def write_business_sql(pack: Path, text: str) -> Path:
    sql = pack / "business.sql"
    sql.write_text(text)
    return sql


def test_it_refuses_a_pack_that_would_write_files_while_being_validated(tiny_pack, tmp_path):
    attached, vacuumed = tmp_path / "x", tmp_path / "y"
    sql = write_business_sql(
        tiny_pack, f"ATTACH DATABASE '{attached}' AS x; CREATE TABLE x.t(a); VACUUM INTO '{vacuumed}';\n"
    )

    error = refusal(tiny_pack)

    assert (error.file, error.line) == (sql, 1)
    assert error.message == "only CREATE TABLE, CREATE INDEX and INSERT statements are allowed, not ATTACH"
    assert not attached.exists() and not vacuumed.exists()


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("PRAGMA writable_schema = 1;", "allowed, not PRAGMA"),
        ("VACUUM INTO '/tmp/superbiz-pack-vacuum';", "not VACUUM (a statement sqlglot cannot fully read"),
        ("DETACH DATABASE main;", "allowed, not DETACH"),
        ("DELETE FROM orders;", "allowed, not DELETE"),
        ("UPDATE orders SET status = 'PAID';", "allowed, not UPDATE"),
        ("DROP TABLE deploys;", "allowed, not DROP"),
        ("SELECT 1;", "allowed, not SELECT"),
        ("CREATE VIEW failed AS SELECT * FROM orders;", "allowed, not CREATE VIEW"),
        (
            "CREATE TRIGGER audit AFTER INSERT ON orders BEGIN DELETE FROM deploys; END;",
            "expected one statement, sqlglot reads 2",
        ),
        ("CREATE TEMP TABLE scratch (a);", "a temporary or virtual table is not a business table"),
        ("CREATE VIRTUAL TABLE search USING fts5(text);", "a temporary or virtual table is not a business table"),
    ],
)
def test_it_refuses_every_statement_but_create_table_create_index_and_insert(tiny_pack, statement, message):
    sql = write_business_sql(tiny_pack, TINY_PACK.joinpath("business.sql").read_text() + "\n" + statement + "\n")

    error = refusal(tiny_pack)

    assert error.file == sql
    assert sql.read_text().splitlines()[error.line - 1] == statement
    assert message in error.message


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("INSERT INTO auth_user (username) VALUES ('intruder');", "auth_user is not a table this pack creates"),
        ("CREATE INDEX sessions ON django_session (expire_date);", "django_session is not a table this pack creates"),
        ("INSERT INTO deploys SELECT name, type, sql, '' FROM sqlite_master;", "sqlite_master is not a table"),
        ("CREATE TABLE main.extra (a);", "name tables without a schema (main.extra)"),
        ("INSERT INTO main.orders (order_no) VALUES ('x');", "name tables without a schema (main.orders)"),
    ],
)
def test_it_refuses_statements_naming_tables_the_pack_does_not_create(tiny_pack, statement, message):
    sql = write_business_sql(tiny_pack, TINY_PACK.joinpath("business.sql").read_text() + "\n" + statement + "\n")

    error = refusal(tiny_pack)

    assert sql.read_text().splitlines()[error.line - 1] == statement
    assert message in error.message


@pytest.mark.parametrize("table", ["auth_user", "AUTH_GROUP", "django_migrations", "tool_invocation", "Chat_Session"])
def test_it_refuses_a_business_table_named_like_one_of_the_projects(tiny_pack, table):
    write_business_sql(tiny_pack, f"CREATE TABLE {table} (id INTEGER);\n")

    error = refusal(tiny_pack)

    assert (error.line, error.message) == (1, f"the table name {table!r} is taken by the project's own tables")


def test_it_refuses_the_name_of_the_database_cache_table(tiny_pack, settings):
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "shared_cache"}
    }
    write_business_sql(tiny_pack, "CREATE TABLE shared_cache (id INTEGER);\n")

    assert refusal(tiny_pack).message == "the table name 'shared_cache' is taken by the project's own tables"


def test_it_accepts_a_foreign_key_to_a_later_table_and_a_with_clause(tiny_pack):
    write_business_sql(
        tiny_pack,
        "CREATE TABLE items (id INTEGER PRIMARY KEY, box_id INTEGER REFERENCES boxes (id));\n"
        "CREATE TABLE boxes (id INTEGER PRIMARY KEY);\n"
        "INSERT INTO boxes (id) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) "
        "SELECT i FROM n;\n",
    )

    assert read_pack(tiny_pack).business_tables == ["boxes", "items"]


@pytest.mark.parametrize(
    "statement",
    ["ATTACH DATABASE '{folder}/attached' AS x", "VACUUM INTO '{folder}/vacuumed'", "PRAGMA user_version = 7"],
)
def test_its_sqlite_connection_denies_attach_vacuum_and_pragma_past_the_check(tmp_path, statement):
    connection = sqlite3.connect(":memory:")
    source = tmp_path / "business.sql"

    with pytest.raises(PackError) as raised:
        execute_statements(connection, source, [SqlStatement(4, statement.format(folder=tmp_path))])

    assert (raised.value.file, raised.value.line) == (source, 4)
    assert "authoriz" in raised.value.message
    assert list(tmp_path.iterdir()) == []
    assert connection.execute("PRAGMA user_version").fetchone() == (0,)


def test_a_folder_in_place_of_a_file_is_said_to_be_one(tiny_pack):
    (tiny_pack / "logs.jsonl").unlink()
    (tiny_pack / "logs.jsonl").mkdir()

    error = refusal(tiny_pack)

    assert (error.file, error.message) == (tiny_pack / "logs.jsonl", "not a regular file (a folder?)")


def test_a_file_over_the_limit_is_refused_before_it_is_read(tiny_pack, monkeypatch):
    monkeypatch.setattr(pack_module, "MAX_FILE_BYTES", 2**20)
    (tiny_pack / "logs.jsonl").write_text((tiny_pack / "logs.jsonl").read_text() * 2000)

    error = refusal(tiny_pack)

    assert (error.file, error.message) == (tiny_pack / "logs.jsonl", "larger than 1 MiB, the limit of a pack's file")
