"""Pack validation: every problem is named as ``file:line: message`` before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tools.conftest import TINY_PACK
from tools.scenarios.pack import PACKS_DIR, PackError, read_pack, resolve_pack, shipped_pack_names, split_statements


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
        (lambda data: data.update(name="../etc"), "name", "$.name"),
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
    ],
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
    ],
)
def test_it_refuses_a_knowledge_document_without_heading_or_text(tiny_pack, text, message):
    document = tiny_pack / "knowledge" / "broken.md"
    document.write_text(text)

    error = refusal(tiny_pack)

    assert (error.file, error.line) == (document, 1)
    assert message in error.message


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


def test_it_names_the_line_of_bytes_that_are_not_utf8(tiny_pack):
    (tiny_pack / "logs.jsonl").write_bytes(b'{"a": 1}\n{"b": "\xff"}\n')

    error = refusal(tiny_pack)

    assert (error.line, error.message) == (2, "not valid UTF-8")


def test_it_names_the_first_line_of_a_failing_sql_statement(tiny_pack):
    sql = tiny_pack / "business.sql"
    sql.write_text(sql.read_text() + "\n-- a typo\nINSERT INTO deploys\n  VALUES ('v3', 'checkout-service');\n")
    lines = sql.read_text().splitlines()

    error = refusal(tiny_pack)

    assert error.file == sql
    assert lines[error.line - 1] == "INSERT INTO deploys"
    assert "table deploys has 4 columns but 2 values were supplied" in error.message


def test_it_refuses_business_sql_without_tables(tiny_pack):
    (tiny_pack / "business.sql").write_text("SELECT 1;\n")

    error = refusal(tiny_pack)

    assert "no CREATE TABLE" in error.message


def test_it_splits_statements_remembering_where_each_starts():
    statements = split_statements(
        "-- header\n\nCREATE TABLE t (a);\nINSERT INTO t\nVALUES (';');\nSELECT 1; SELECT 2;\n"
    )

    assert [(statement.line, statement.sql) for statement in statements] == [
        (3, "CREATE TABLE t (a);"),
        (4, "INSERT INTO t\nVALUES (';');"),
        (6, "SELECT 1; SELECT 2;"),
    ]


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
