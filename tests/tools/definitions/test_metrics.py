"""query_metrics through the harness: schema errors, point budget, payload and projection."""

from __future__ import annotations

import pytest

from tests.tools.conftest import WINDOW
from tools.jsonpath import resolve
from tools.models import InvocationStatus, ToolInvocation
from tools.store import load_verified_payload


def call(harness, **arguments):
    defaults = {"service": "checkout-service", "metric": "p99_latency_ms", **WINDOW, "step": 60}
    return harness.call("query_metrics", defaults | arguments)


@pytest.mark.parametrize(
    "arguments", [{"metric": ""}, {"step": 0}, {"step": 86401}, {"step": 1.5}, {"service": None}, {"aggregate": "max"}]
)
def test_it_blocks_arguments_outside_the_schema(harness, loaded, arguments):
    result = call(harness, **arguments)

    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, "invalid_arguments")


def test_it_blocks_an_invalid_window(harness, loaded):
    result = call(harness, start=WINDOW["end"], end=WINDOW["start"])

    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, "invalid_window")


def test_it_blocks_more_points_than_the_row_budget_and_names_the_step_to_use(harness, loaded, settings):
    settings.TOOL_MAX_ROWS = 30

    result = call(harness, step=60)

    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, "too_many_points")
    assert "use step >= 120" in result.projection["error"]


def test_it_returns_the_canonical_payload(harness, run, loaded):
    result = call(harness, step=300)

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert payload == {
        "series": [
            {
                "service": "checkout-service",
                "metric": "p99_latency_ms",
                "points": [
                    {"ts": "2024-05-01T10:00:00Z", "value": 125.0},
                    {"ts": "2024-05-01T10:05:00Z", "value": 3016.666667},
                ],
            }
        ]
    }
    assert ToolInvocation.objects.get(pk=result.invocation_id).row_count == 2


def test_it_projects_points_with_paths_and_the_extremes(harness, run, loaded):
    result = call(harness)

    payload = load_verified_payload(run.id, result.invocation_id).payload
    series = result.projection["series"][0]
    assert resolve(payload, series["raw_path"])["metric"] == "p99_latency_ms"
    assert series["point_count"] == 4
    assert series["max"]["value"] == 3050.0
    for point in [*series["points"], series["min"], series["max"]]:
        assert resolve(payload, point["raw_path"]) == {"ts": point["ts"], "value": point["value"]}


def test_it_says_when_there_are_no_samples(harness, loaded):
    result = call(harness, metric="disk_free_bytes")

    assert result.status == InvocationStatus.READY
    assert result.projection["series"] == []
    assert "no samples" in result.projection["note"]
