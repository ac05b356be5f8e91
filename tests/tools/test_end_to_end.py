"""A pack written by someone else loads and is queryable by all four tools, with no code change.

For each pack (the tiny fixture and every shipped one), the tools are called only with what the pack itself
declares — its services, window, questions, metric names and tables — and every item the model is shown
must resolve, by its ``raw_path``, in the verified payload.
"""

from __future__ import annotations

import csv
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.tools.conftest import TINY_PACK
from tools.harness import ToolHarness
from tools.jsonpath import resolve
from tools.models import InvocationStatus, LoadedScenario, ToolInvocation
from tools.scenarios.pack import PACKS_DIR, shipped_pack_names
from tools.store import load_verified_payload

PACKS = [TINY_PACK, *(PACKS_DIR / name for name in shipped_pack_names())]


def first_metric(pack: Path) -> tuple[str, str]:
    with (pack / "metrics.csv").open(newline="") as metrics:
        row = next(csv.DictReader(metrics))
    return row["service"], row["metric"]


def calls_for(pack: Path, scenario: LoadedScenario) -> list[tuple[str, dict]]:
    manifest = json.loads((pack / "scenario.json").read_text())
    window = manifest["window"]
    service, metric = first_metric(pack)
    return [
        ("lookup_knowledge", {"query": manifest["questions"][0]["text"], "top_k": 3}),
        ("query_logs", {"service": manifest["services"][0], **window, "limit": 50}),
        ("query_metrics", {"service": service, "metric": metric, **window, "step": 300}),
        ("query_mysql", {"sql": f"SELECT * FROM {scenario.business_tables[0]}"}),
    ]


def cited_paths(projection: dict) -> list[str]:
    """Every raw_path the model is shown, at any depth of the projection."""
    if isinstance(projection, dict):
        own = [projection["raw_path"]] if "raw_path" in projection else []
        return own + [path for value in projection.values() for path in cited_paths(value)]
    if isinstance(projection, list):
        return [path for item in projection for path in cited_paths(item)]
    return []


@pytest.mark.django_db
@pytest.mark.parametrize("pack", PACKS, ids=lambda path: path.name)
def test_every_tool_answers_from_the_loaded_pack(pack, run, business_sqlite):
    call_command("load_scenario", str(pack), stdout=StringIO())
    harness = ToolHarness(run.id)

    for tool_name, arguments in calls_for(pack, LoadedScenario.objects.get()):
        result = harness.call(tool_name, arguments)

        assert result.status == InvocationStatus.READY, (tool_name, result.projection)
        payload = load_verified_payload(run.id, result.invocation_id).payload
        paths = cited_paths(result.projection)
        assert paths, (tool_name, result.projection)
        for path in paths:
            resolve(payload, path)

    assert ToolInvocation.objects.filter(run=run, status=InvocationStatus.READY).count() == 4


@pytest.mark.django_db
def test_the_tiny_pack_evidence_can_be_cited_from_each_tool(run, loaded):
    harness = ToolHarness(run.id)
    knowledge = harness.call("lookup_knowledge", {"query": "Timeout acquiring JDBC connection", "top_k": 3})
    logs = harness.call(
        "query_logs",
        {
            "service": "checkout-service",
            "level": "ERROR",
            "start": "2024-05-01T10:00:00Z",
            "end": "2024-05-01T10:10:00Z",
            "limit": 5,
        },
    )
    mysql = harness.call("query_mysql", {"sql": "SELECT version, change_summary FROM deploys WHERE version = 'v2.3.1'"})

    def value_at(result, path: str):
        return resolve(load_verified_payload(run.id, result.invocation_id).payload, path)

    assert knowledge.projection["chunks"][0]["title"] == "Runbook: checkout connection pool exhausted"
    assert "db.pool.max" in value_at(knowledge, knowledge.projection["chunks"][0]["raw_path"])
    assert value_at(logs, logs.projection["records"][0]["raw_path"]) == "Timeout acquiring JDBC connection after 3000ms"
    assert value_at(mysql, mysql.projection["rows"][0]["raw_path"] + "[1]") == "db.pool.max lowered from 50 to 5"
