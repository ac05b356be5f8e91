"""The same diagnosis verifies the same claims whether its metrics come from metric_point or a real Prometheus.

``load_scenario`` backfills the pack's metrics into a TSDB folder (``PROMETHEUS_BACKFILL_DIR``); a real
Prometheus 2.42 is then started over that folder and the question diagnosed again through it.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.providers.offline.loop import diagnose
from tests.services import require
from tests.support.prometheus import running_prometheus
from tools.models import InvocationStatus, ToolInvocation
from tools.names import ToolName
from tools.scenarios.pack import read_pack, resolve_pack


def without_invocation_ids(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The claims as compared across runs: invocation ids differ by construction, nothing else may."""
    return [
        claim | {"evidence": [{**item, "source_invocation_id": None} for item in claim["evidence"]]} for claim in claims
    ]


@pytest.mark.parametrize("name", ["payment-db-pool", "broker-disk-full"])
def test_the_verified_claims_are_the_same_from_prometheus(name, settings, tmp_path, models, load_pack, new_harness):
    require("prometheus")
    data = tmp_path / "tsdb"
    settings.METRICS_BACKEND = "prometheus"
    settings.PROMETHEUS_BACKFILL_DIR = str(data)
    environment = load_pack(resolve_pack(name))
    question = read_pack(resolve_pack(name)).manifest["questions"][0]["text"]

    settings.METRICS_BACKEND = "embedded"
    embedded = diagnose(models, new_harness(question), question, environment)
    with running_prometheus(data) as url:
        settings.METRICS_BACKEND = "prometheus"
        settings.PROMETHEUS_URL = url
        harness = new_harness(question)
        prometheus = diagnose(models, harness, question, environment)

    metric_calls = ToolInvocation.objects.filter(run_id=harness.run_id, tool_name=ToolName.QUERY_METRICS)
    assert metric_calls.exists()
    assert set(metric_calls.values_list("status", flat=True)) == {InvocationStatus.READY}
    assert prometheus.gatekeeper.status.value == "PASS"
    cited_tools = {item["tool_name"] for claim in prometheus.verified_claims for item in claim["evidence"]}
    assert ToolName.QUERY_METRICS in cited_tools
    assert without_invocation_ids(prometheus.verified_claims) == without_invocation_ids(embedded.verified_claims)
    assert prometheus.effective_verdict == embedded.effective_verdict
