"""Whole runs (``manage.py diagnose``, the graph) with query_metrics on Prometheus: a real one, and a hung one."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.services import require
from tests.support.prometheus import running_prometheus
from tests.support.silent_server import running_silent_server
from tools.models import InvocationStatus, ToolInvocation
from tools.names import ToolName
from tools.scenarios.pack import read_pack, resolve_pack

pytestmark = pytest.mark.django_db

PACK = resolve_pack("payment-db-pool")
QUESTION = read_pack(PACK).manifest["questions"][0]["text"]


def diagnose() -> dict:
    out = StringIO()
    call_command("diagnose", QUESTION, "--provider", "offline", "--json", stdout=out)
    return json.loads(out.getvalue())


def metric_statuses(run_id: str) -> set[str]:
    calls = ToolInvocation.objects.filter(run_id=run_id, tool_name=ToolName.QUERY_METRICS)
    return set(calls.values_list("status", flat=True))


def test_a_run_diagnoses_from_a_real_prometheus_the_pack_was_backfilled_into(settings, tmp_path):
    require("prometheus")
    settings.METRICS_BACKEND = "prometheus"
    settings.PROMETHEUS_BACKFILL_DIR = str(tmp_path / "tsdb")
    call_command("load_scenario", str(PACK), stdout=StringIO())

    with running_prometheus(tmp_path / "tsdb") as url:
        settings.PROMETHEUS_URL = url
        result = diagnose()

    assert (result["status"], result["effective_verdict"]) == ("SUCCESS", "PASS")
    assert metric_statuses(result["run_id"]) == {InvocationStatus.READY}


def test_a_hung_prometheus_fails_the_metric_calls_and_the_run_still_finishes(settings):
    call_command("load_scenario", str(PACK), stdout=StringIO())
    settings.TOOL_TIMEOUT_SECONDS = 0.5

    with running_silent_server() as url:
        settings.METRICS_BACKEND = "prometheus"
        settings.PROMETHEUS_URL = url
        result = diagnose()

    assert result["status"] == "SUCCESS"
    assert result["final_answer"]
    assert metric_statuses(result["run_id"]) == {InvocationStatus.FAILED}
    errors = ToolInvocation.objects.filter(run_id=result["run_id"], tool_name=ToolName.QUERY_METRICS)
    assert set(errors.values_list("error_code", flat=True)) == {"timeout"}
