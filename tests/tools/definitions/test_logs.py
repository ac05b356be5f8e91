"""query_logs through the harness: schema errors, window checks, row budget, payload and projection."""

from __future__ import annotations

import pytest

from tests.tools.conftest import WINDOW
from tools.jsonpath import resolve
from tools.models import InvocationStatus
from tools.store import load_verified_payload


def call(harness, **arguments):
    return harness.call("query_logs", {"service": "checkout-service", **WINDOW, "limit": 50} | arguments)


@pytest.mark.parametrize(
    "arguments",
    [
        {"service": ""},
        {"service": 5},
        {"limit": 0},
        {"limit": 1001},
        {"limit": "10"},
        {"level": ""},
        {"contains": "x" * 201},
        {"start": 1714557600},
        {"since": "1h"},
        {"direction": "newest"},
    ],
)
def test_it_blocks_arguments_outside_the_schema(harness, loaded, arguments):
    result = call(harness, **arguments)

    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, "invalid_arguments")


def test_it_requires_service_window_and_limit(harness, loaded):
    result = harness.call("query_logs", {"level": "ERROR"})

    for name in ("service", "start", "end", "limit"):
        assert f"'{name}' is a required property" in result.projection["error"]


@pytest.mark.parametrize(
    "window",
    [
        {"start": "2024-05-01T11:00:00Z", "end": "2024-05-01T10:00:00Z"},
        {"start": "ten o'clock", "end": "2024-05-01T11:00:00Z"},
        {"start": "2024-04-01T00:00:00Z", "end": "2024-05-01T00:00:00Z"},
    ],
)
def test_it_blocks_an_invalid_window(harness, loaded, window):
    result = call(harness, **window)

    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, "invalid_window")


def test_it_returns_the_canonical_payload(harness, run, loaded):
    result = call(harness, level="error")

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert set(payload) == {"records", "total", "truncated"}
    assert [record["ts"] for record in payload["records"]] == sorted(record["ts"] for record in payload["records"])
    assert payload["records"][0] == {
        "ts": "2024-05-01T10:05:40Z",
        "service": "checkout-service",
        "level": "ERROR",
        "message": "Timeout acquiring JDBC connection after 3000ms",
        "trace_id": "t-002",
    }
    assert (payload["total"], payload["truncated"]) == (3, False)


def test_it_matches_levels_in_any_case(harness, loaded):
    assert call(harness, level="WaRn").projection["total"] == 1


def test_it_projects_each_record_with_the_path_of_its_message(harness, run, loaded):
    result = call(harness, contains="jdbc")

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert result.projection["total"] == 2
    for view in result.projection["records"]:
        assert resolve(payload, view["raw_path"]) == view["message"]


def test_it_caps_the_limit_at_the_row_budget(harness, run, loaded, settings):
    settings.TOOL_MAX_ROWS = 2

    result = call(harness, limit=1000)

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert len(payload["records"]) == 2
    assert (payload["total"], payload["truncated"]) == (7, True)
    assert result.projection["truncated"] is True


def test_it_cuts_records_to_the_byte_budget_and_says_so(harness, run, loaded, settings):
    settings.TOOL_MAX_PAYLOAD_BYTES = 400

    result = call(harness)

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert result.status == InvocationStatus.READY
    assert 0 < len(payload["records"]) < 7
    assert (payload["total"], payload["truncated"]) == (7, True)


def test_a_backward_query_cut_to_the_byte_budget_keeps_the_newest_records(harness, run, loaded, settings):
    everything = load_verified_payload(run.id, call(harness, direction="backward").invocation_id).payload
    settings.TOOL_MAX_PAYLOAD_BYTES = 400

    result = call(harness, direction="backward")

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert result.status == InvocationStatus.READY
    assert 0 < len(payload["records"]) < 7
    assert payload["records"] == everything["records"][-len(payload["records"]) :]
    assert resolve(payload, result.projection["records"][-1]["raw_path"]) == everything["records"][-1]["message"]


def test_it_returns_no_records_for_an_unknown_service(harness, loaded):
    result = call(harness, service="nobody")

    assert result.status == InvocationStatus.READY
    assert (result.projection["records"], result.projection["total"]) == ([], 0)
