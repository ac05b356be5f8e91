"""load_scenario replaces logs, metrics, business tables and scenario knowledge, all or nothing."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest
from django.db import DatabaseError, connections

from tests.tools.conftest import TINY_PACK
from tools.models import DocumentSource, KnowledgeDocument, LoadedScenario, LogRecord, MetricPoint
from tools.scenarios.loader import load_scenario
from tools.scenarios.pack import PackError

pytestmark = pytest.mark.django_db


def snapshot(business_sqlite) -> tuple:
    return (
        list(LogRecord.objects.values_list("message", flat=True)),
        MetricPoint.objects.count(),
        list(LoadedScenario.objects.values_list("name", flat=True)),
        sorted(KnowledgeDocument.objects.values_list("filename", flat=True)),
        hashlib.sha256(business_sqlite.read_bytes()).hexdigest(),
        sorted(path.name for path in business_sqlite.parent.iterdir()),
    )


def renamed_copy(tiny_pack, name: str, keep_logs: int):
    manifest = tiny_pack / "scenario.json"
    manifest.write_text(json.dumps(json.loads(manifest.read_text()) | {"name": name}))
    logs = tiny_pack / "logs.jsonl"
    logs.write_text("\n".join(logs.read_text().splitlines()[:keep_logs]) + "\n")
    return tiny_pack


def test_it_loads_logs_and_metrics(loaded):
    assert loaded.log_records == LogRecord.objects.count() == 9
    assert loaded.metric_points == MetricPoint.objects.count() == 10
    warn = LogRecord.objects.get(message__startswith="connection pool at 5/5")
    assert warn.level == "WARN"
    assert LogRecord.objects.get(extra__trace_id="t-002").message == "Timeout acquiring JDBC connection after 3000ms"


def test_it_records_the_loaded_scenario_and_its_allow_list(loaded):
    scenario = LoadedScenario.objects.get()

    assert scenario.name == loaded.name == "tiny-checkout-pool"
    assert scenario.description.startswith("Checkout requests time out")
    assert scenario.business_tables == ["deploys", "orders"]
    assert scenario.manifest["questions"][0]["expect_keywords"] == ["pool", "deploy"]
    assert scenario.manifest["business_schema"]["orders"] == ["id", "order_no", "status", "amount", "created_at"]


def test_it_builds_the_business_database(loaded, business_sqlite):
    with sqlite3.connect(business_sqlite) as connection:
        assert connection.execute("SELECT COUNT(*) FROM orders").fetchone() == (5,)
        assert connection.execute("SELECT version FROM deploys ORDER BY deployed_at DESC").fetchone() == ("v2.3.1",)
    assert [path.name for path in business_sqlite.parent.iterdir()] == [business_sqlite.name]


def test_it_indexes_the_knowledge_documents(loaded):
    documents = KnowledgeDocument.objects.filter(source=DocumentSource.SCENARIO)

    assert loaded.documents == 2
    assert sorted(documents.values_list("filename", flat=True)) == ["cache-eviction.md", "checkout-pool-runbook.md"]
    assert set(documents.values_list("scenario", flat=True)) == {"tiny-checkout-pool"}


def test_a_reload_keeps_the_business_databases_permissions(loaded, business_sqlite):
    business_sqlite.chmod(0o640)

    load_scenario(TINY_PACK)

    assert business_sqlite.stat().st_mode & 0o777 == 0o640


def test_it_reports_each_stage(db, business_sqlite):
    messages: list[str] = []

    load_scenario(TINY_PACK, progress=messages.append)

    assert [message.split(" ")[0] for message in messages] == [
        "validated",
        "tokenised",
        "storing",
        "stored",
        "indexed",
        "business",
    ]


def test_loading_again_replaces_instead_of_adding(loaded):
    load_scenario(TINY_PACK)

    assert (LogRecord.objects.count(), MetricPoint.objects.count(), LoadedScenario.objects.count()) == (9, 10, 1)
    assert KnowledgeDocument.objects.count() == 2


def test_another_pack_replaces_the_loaded_one(loaded, tiny_pack):
    load_scenario(renamed_copy(tiny_pack, "other-pack", keep_logs=2))

    assert LogRecord.objects.count() == 2
    assert LoadedScenario.objects.get().name == "other-pack"
    assert set(KnowledgeDocument.objects.values_list("scenario", flat=True)) == {"other-pack"}


def test_an_invalid_pack_leaves_everything_as_it_was(loaded, tiny_pack, business_sqlite):
    before = snapshot(business_sqlite)
    (tiny_pack / "metrics.csv").write_text("ts,service,metric,value\nnot-a-time,a,b,1\n")

    with pytest.raises(PackError, match=r"metrics\.csv:2: ts:"):
        load_scenario(tiny_pack)

    assert snapshot(business_sqlite) == before


def test_a_metric_prometheus_cannot_name_leaves_everything_as_it_was(
    loaded, tiny_pack, business_sqlite, settings, tmp_path
):
    settings.METRICS_BACKEND = "prometheus"
    settings.PROMETHEUS_BACKFILL_DIR = str(tmp_path / "tsdb")
    before = snapshot(business_sqlite)
    (tiny_pack / "metrics.csv").write_text("ts,service,metric,value\n2024-05-01T10:00:00Z,api,p99-ms,1\n")

    with pytest.raises(PackError, match=r"metrics\.csv: metric 'p99-ms' is not a Prometheus metric name"):
        load_scenario(tiny_pack)

    assert snapshot(business_sqlite) == before


def test_without_a_backfill_folder_prometheus_is_left_alone(db, business_sqlite, settings):
    settings.METRICS_BACKEND = "prometheus"
    settings.PROMETHEUS_BACKFILL_DIR = ""
    messages: list[str] = []

    load_scenario(TINY_PACK, progress=messages.append)

    assert MetricPoint.objects.exists()
    assert not [message for message in messages if "Prometheus" in message]


def test_a_failure_inside_the_load_rolls_everything_back(loaded, tiny_pack, business_sqlite, monkeypatch):
    before = snapshot(business_sqlite)

    def fail(scenario_name, documents):
        raise DatabaseError("disk I/O error")  # the knowledge's writes are the load's last

    monkeypatch.setattr("tools.scenarios.loader.replace_scenario_documents", fail)

    with pytest.raises(DatabaseError):
        load_scenario(renamed_copy(tiny_pack, "other-pack", keep_logs=2))

    assert snapshot(business_sqlite) == before


@pytest.mark.django_db(transaction=True)
def test_a_failed_commit_leaves_the_old_business_database(business_sqlite, tiny_pack, monkeypatch):
    load_scenario(TINY_PACK)
    before = snapshot(business_sqlite)
    (tiny_pack / "business.sql").write_text("CREATE TABLE other_tables (a);\n")

    def fail(*args, **kwargs):
        raise DatabaseError("disk I/O error")

    # The load's own transaction is the outermost one here, so this is its real commit.
    monkeypatch.setattr(connections["default"], "commit", fail)

    with pytest.raises(DatabaseError, match="disk I/O error"):
        load_scenario(renamed_copy(tiny_pack, "other-pack", keep_logs=2))

    monkeypatch.undo()
    assert snapshot(business_sqlite) == before


def test_it_loads_a_pack_whose_name_is_any_text(business_sqlite, tiny_pack):
    name = "支付 超时 · checkout pool"

    summary = load_scenario(renamed_copy(tiny_pack, name, keep_logs=9))

    assert summary.name == LoadedScenario.objects.get().name == name
    assert set(KnowledgeDocument.objects.values_list("scenario", flat=True)) == {name}


@pytest.mark.django_db(transaction=True)
def test_the_knowledge_is_tokenised_before_the_loads_transaction(business_sqlite, monkeypatch):
    """The load holds SQLite's write lock (or MySQL's) for its whole transaction: tokenising a large pack's
    runbooks under it would keep every run's writes waiting."""
    from tools.knowledge import ingest

    inside: list[bool] = []
    real = ingest.stored_terms
    monkeypatch.setattr(
        ingest, "stored_terms", lambda *args: inside.append(connections["default"].in_atomic_block) or real(*args)
    )

    load_scenario(TINY_PACK)

    assert inside and not any(inside)
