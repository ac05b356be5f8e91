"""What an answer's figures are made of: verified payloads only, the series a metric claim cites, and the
incident timeline (the change, the first error, the metric peak) each naming its claim."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from diagnosis.figures.evidence import ReleasedClaim, build_figures, series_shape
from diagnosis.figures.sparkline import SeriesPoint
from tools.names import ToolName

T0 = datetime(2026, 10, 14, 9, 30, tzinfo=UTC)

METRICS = {
    "series": [
        {
            "service": "payment-service",
            "metric": "db_pool_pending",
            "points": [
                {"ts": "2026-10-14T09:30:00Z", "value": 0.0},
                {"ts": "2026-10-14T09:45:00Z", "value": 0.0},
                {"ts": "2026-10-14T10:00:00Z", "value": 1.0},
                {"ts": "2026-10-14T10:05:00Z", "value": 30.0},
                {"ts": "2026-10-14T10:27:00Z", "value": 44.0},
                {"ts": "2026-10-14T10:40:00Z", "value": 40.0},
            ],
        }
    ]
}
LOGS = {
    "records": [
        {"ts": "2026-10-14T10:01:11Z", "service": "payment-service", "level": "INFO", "message": "pool size 10"},
        {"ts": "2026-10-14T10:05:03Z", "service": "payment-service", "level": "ERROR", "message": "timed out"},
        {"ts": "2026-10-14T10:04:00Z", "service": "payment-service", "level": "error", "message": "earlier"},
        {"ts": "2026-10-14T10:30:00Z", "service": "payment-service", "level": "INFO", "message": "after"},
        {"ts": "2026-10-14T10:03:40Z", "service": "payment-service", "level": "Warn", "message": "pool busy"},
    ]
}
ROWS = {
    "columns": ["change_id", "config_key", "created_at", "changed_at"],
    "rows": [
        ["CHG-1", "maximum-pool-size", "2026-10-01 08:00:00", "2026-10-14 10:02:14"],
        ["CHG-2", "v2.14.0", "not a time", "not a time"],
    ],
}
PAYLOADS: dict[str, Any] = {"inv-metrics": METRICS, "inv-logs": LOGS, "inv-rows": ROWS}


def bind(invocation: str, tool: str, path: str) -> dict[str, str]:
    return {"source_invocation_id": invocation, "tool_name": tool, "raw_path": path}


def claim(claim_id: str, *bindings: dict[str, str]) -> ReleasedClaim:
    return ReleasedClaim(claim_id, f"fact of {claim_id}", list(bindings))


METRIC_CLAIM = claim(
    "c5",
    bind("inv-metrics", ToolName.QUERY_METRICS, "$.series[0].metric"),
    bind("inv-metrics", ToolName.QUERY_METRICS, "$.series[0].points[0].value"),
    bind("inv-metrics", ToolName.QUERY_METRICS, "$.series[0].points[4].value"),
)
ERROR_CLAIM = claim("c1", bind("inv-logs", ToolName.QUERY_LOGS, "$.records[1].message"))
CHANGE_CLAIM = claim(
    "c7", bind("inv-rows", ToolName.QUERY_MYSQL, "$.rows[0][0]"), bind("inv-rows", ToolName.QUERY_MYSQL, "$.rows[0][3]")
)
NOTE_CLAIM = claim("c6", bind("inv-logs", ToolName.QUERY_LOGS, "$.records[0].message"))


def load(invocation_id: str) -> Any:
    return PAYLOADS.get(invocation_id)


def test_it_draws_the_whole_verified_series_of_a_metric_claim_once():
    figures = build_figures([METRIC_CLAIM], load)

    [figure] = figures["metrics"]
    assert figure["claim_id"] == "c5" and figure["fact"] == "fact of c5"
    assert (figure["service"], figure["metric"]) == ("payment-service", "db_pool_pending")
    assert figure["points"] == [[point["ts"], point["value"]] for point in METRICS["series"][0]["points"]]
    assert figure["peak"] == ["2026-10-14T10:27:00Z", 44.0]
    assert figure["onset"] == "2026-10-14T10:05:00Z"  # the first point half-way to the peak


def test_it_builds_the_timeline_in_time_order_each_event_naming_its_claim():
    figures = build_figures([ERROR_CLAIM, METRIC_CLAIM, CHANGE_CLAIM, NOTE_CLAIM], load)

    assert figures["timeline"] == [
        {"kind": "change", "ts": "2026-10-14T10:02:14Z", "claim_id": "c7"},
        {"kind": "first_error", "ts": "2026-10-14T10:05:03Z", "claim_id": "c1"},
        {"kind": "metric_peak", "ts": "2026-10-14T10:27:00Z", "claim_id": "c5"},
    ]
    # Only the claims the pictures show are kept (c6 is a dated note, earlier than the change).
    assert set(figures["claims"]) == {"c1", "c5", "c7"}


def test_the_change_is_the_record_closest_before_the_first_error_and_no_warning():
    """A warning before the first error is a symptom; a note from before the change is history. A row is
    dated by the time cell its claim cites (``changed_at``), not by its first one (``created_at``)."""
    warning = claim("c8", bind("inv-logs", ToolName.QUERY_LOGS, "$.records[4].message"))

    timeline = build_figures([ERROR_CLAIM, NOTE_CLAIM, CHANGE_CLAIM, warning], load)["timeline"]

    assert timeline[0] == {"kind": "change", "ts": "2026-10-14T10:02:14Z", "claim_id": "c7"}


def test_a_row_cited_without_its_time_is_dated_by_its_first_time():
    row = claim("c7", bind("inv-rows", ToolName.QUERY_MYSQL, "$.rows[0][1]"))

    timeline = build_figures([ERROR_CLAIM, row], load)["timeline"]

    assert timeline[0] == {"kind": "change", "ts": "2026-10-01T08:00:00Z", "claim_id": "c7"}


def test_it_takes_the_earliest_error_level_record_whatever_its_case():
    earlier = claim("c2", bind("inv-logs", ToolName.QUERY_LOGS, "$.records[2].message"))

    timeline = build_figures([ERROR_CLAIM, earlier], load)["timeline"]

    assert timeline == [{"kind": "first_error", "ts": "2026-10-14T10:04:00Z", "claim_id": "c2"}]


def test_a_change_must_come_before_the_first_error():
    after = claim("c9", bind("inv-logs", ToolName.QUERY_LOGS, "$.records[3].message"))

    kinds = [event["kind"] for event in build_figures([ERROR_CLAIM, after], load)["timeline"]]

    assert kinds == ["first_error"]


def test_without_errors_the_change_is_dated_against_the_metric_onset():
    kinds = [event["kind"] for event in build_figures([METRIC_CLAIM, CHANGE_CLAIM], load)["timeline"]]

    assert kinds == ["change", "metric_peak"]


def test_it_draws_nothing_from_a_payload_that_cannot_be_loaded_verified():
    unverified = claim("c5", bind("inv-expired", ToolName.QUERY_METRICS, "$.series[0].points[4].value"))

    assert build_figures([unverified], load) == {"metrics": [], "timeline": [], "claims": {}}


def test_it_ignores_bindings_it_cannot_read():
    odd = claim(
        "c3",
        bind("inv-metrics", ToolName.QUERY_METRICS, "not a path"),
        bind("inv-metrics", ToolName.QUERY_METRICS, "$.series[7].metric"),
        bind("inv-metrics", ToolName.QUERY_METRICS, '$.series["0"]'),
        bind("inv-logs", ToolName.QUERY_LOGS, "$.records[99].message"),
        bind("inv-rows", ToolName.QUERY_MYSQL, "$.rows[1][0]"),  # no timestamp cell
        bind("inv-rows", ToolName.LOOKUP_KNOWLEDGE, "$.rows[0][0]"),
    )

    assert build_figures([odd], load) == {"metrics": [], "timeline": [], "claims": {}}


def test_it_skips_points_that_are_not_numbers_and_series_too_short_to_draw():
    payloads = {
        "inv": {
            "series": [
                {
                    "service": "s",
                    "metric": "m",
                    "points": [{"ts": "2026-10-14T09:30:00Z", "value": True}, {"ts": "bad", "value": 1}, "x"],
                }
            ]
        }
    }
    metric = claim("c1", bind("inv", ToolName.QUERY_METRICS, "$.series[0].points[0].value"))

    assert build_figures([metric], payloads.get)["metrics"] == []


def test_it_loads_each_payload_once():
    calls: list[str] = []

    def counting(invocation_id: str) -> Any:
        calls.append(invocation_id)
        return load(invocation_id)

    build_figures([METRIC_CLAIM, ERROR_CLAIM, NOTE_CLAIM], counting)

    assert sorted(calls) == ["inv-logs", "inv-metrics"]


def test_a_flat_series_has_neither_onset_nor_peak():
    points = [SeriesPoint(T0 + timedelta(minutes=index), 3.0) for index in range(5)]

    assert series_shape(points) == (None, None)


def test_a_falling_series_peaks_at_its_lowest_point():
    values = [100.0, 100.0, 98.0, 40.0, 10.0, 12.0]
    points = [SeriesPoint(T0 + timedelta(minutes=index), value) for index, value in enumerate(values)]

    onset, peak = series_shape(points)

    assert peak == points[4] and onset == points[3].ts
