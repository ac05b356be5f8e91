"""A diagnosis of the demo pack stores its figures on the run: the metric claim's series exactly as its
verified tool result holds it, and the incident timeline of the change, the first error and the peak."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from diagnosis.models import DiagnosisRun
from tools.models import ToolInvocation
from tools.names import ToolName
from tools.store import load_verified_payload

pytestmark = pytest.mark.django_db

PACK = Path(__file__).resolve().parents[3] / "tools" / "scenarios" / "packs" / "payment-db-pool"


@pytest.fixture
def run() -> DiagnosisRun:
    call_command("load_scenario", str(PACK), stdout=StringIO())
    out = StringIO()
    call_command("diagnose", "payment-service p99 latency tripled since 10:05, why?", "--json", stdout=out)
    return DiagnosisRun.objects.get(pk=json.loads(out.getvalue())["run_id"])


def test_it_stores_the_verified_series_of_the_metric_claim(run):
    [figure] = run.figures["metrics"]
    assert figure["claim_id"] in run.self_evaluation["released_claim_ids"]
    assert (figure["service"], figure["metric"]) == ("payment-service", "db_pool_pending")
    verified = [
        load_verified_payload(run.pk, invocation.pk).payload
        for invocation in ToolInvocation.objects.filter(run=run, tool_name=ToolName.QUERY_METRICS)
    ]
    drawn = [
        [point["ts"], point["value"]]
        for payload in verified
        for series in payload["series"]
        if series["metric"] == "db_pool_pending"
        for point in series["points"]
    ]
    assert figure["points"] == drawn
    assert figure["peak"] == ["2026-10-14T10:27:00Z", 44.0]
    assert figure["onset"] == "2026-10-14T10:05:00Z"


def test_it_stores_the_incident_timeline(run):
    timeline = run.figures["timeline"]

    assert [(event["kind"], event["ts"]) for event in timeline] == [
        # The change closest before the first error: the pool configured at its new size as the deploy started.
        ("change", "2026-10-14T10:03:11.420000Z"),
        ("first_error", "2026-10-14T10:05:03.102000Z"),
        ("metric_peak", "2026-10-14T10:27:00Z"),
    ]
    assert "maximumPoolSize=10" in run.figures["claims"][timeline[0]["claim_id"]]
    assert "Connection is not available" in run.figures["claims"][timeline[1]["claim_id"]]
