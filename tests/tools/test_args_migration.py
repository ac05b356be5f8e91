"""tools 0003: rows recorded with ``args_summary`` stay valid, with the digest and shape their summary allows."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tools.arguments import record_arguments

BEFORE = [("tools", "0002_cache_table")]
AFTER = [("tools", "0003_invocation_args_digest_and_shape")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def latest_schema_after():
    """The test database migrated forward to every app's latest migration afterwards: the tests that follow
    expect the schema of tools migrations added after ``AFTER`` (0004's document metadata), not AFTER's."""
    yield
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_schema_after")
def test_old_rows_keep_what_their_summary_allows_and_lose_its_text(run):
    old = migrate(BEFORE)
    Invocation = old.get_model("tools", "ToolInvocation")
    summaries = {
        "whole": '{"sql": "SELECT card_number FROM payments"}',
        "cut": '{"sql": "SELECT card_number FROM payments WHERE …',
        "text": "{broken",
        "empty": "",
    }
    ids = {name: uuid.uuid4() for name in summaries}
    for seq, (name, summary) in enumerate(summaries.items(), 1):
        Invocation.objects.create(
            id=ids[name], run_id=run.pk, seq=seq, tool_name="query_mysql", args_summary=summary, status="BLOCKED"
        )

    new = migrate(AFTER)

    rows = {row["id"]: row for row in new.get_model("tools", "ToolInvocation").objects.values()}
    whole = record_arguments({"sql": "SELECT card_number FROM payments"})
    assert (rows[ids["whole"]]["args_sha256"], rows[ids["whole"]]["args_shape"]) == (whole.sha256, {"sql": "str(32)"})
    for name in ("cut", "text", "empty"):
        assert (rows[ids[name]]["args_sha256"], rows[ids[name]]["args_shape"]) == ("", None)
    assert "args_summary" not in rows[ids["whole"]]
    assert not any("card_number" in str(value) for row in rows.values() for value in row.values())
