"""The embedded backends answer in the canonical shapes over the loaded scenario's tables."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from tools.backends import log_backend, metric_backend
from tools.models import LogRecord, MetricPoint

pytestmark = pytest.mark.django_db

START = datetime(2024, 5, 1, 10, tzinfo=UTC)
END = datetime(2024, 5, 1, 11, tzinfo=UTC)


def at(minute: int, second: int = 0) -> datetime:
    return datetime(2024, 5, 1, 10, minute, second, tzinfo=UTC)


@pytest.fixture
def logs(db) -> None:
    LogRecord.objects.bulk_create(
        [
            LogRecord(ts=at(5), service="api", level="ERROR", message="Pool exhausted", extra={"trace_id": "t1"}),
            LogRecord(ts=at(1), service="api", level="INFO", message="started"),
            LogRecord(ts=at(7), service="api", level="WARN", message="pool at 9/10", extra={"message": "shadow"}),
            LogRecord(ts=at(3), service="db", level="ERROR", message="pool of another service"),
            LogRecord(ts=END, service="api", level="ERROR", message="pool after the window"),
        ]
    )


def query_logs(**overrides):
    arguments = {"service": "api", "level": None, "contains": None, "start": START, "end": END, "limit": 10}
    return log_backend(deadline=math.inf).query(**(arguments | overrides))


def test_it_returns_the_records_of_a_service_oldest_first(logs):
    payload = query_logs()

    assert [record["message"] for record in payload["records"]] == ["started", "Pool exhausted", "pool at 9/10"]
    assert (payload["total"], payload["truncated"]) == (3, False)


def test_it_returns_records_in_canonical_shape_with_their_extra_fields(logs):
    record = query_logs(level="error")["records"][0]

    assert record == {
        "ts": "2024-05-01T10:05:00Z",
        "service": "api",
        "level": "ERROR",
        "message": "Pool exhausted",
        "trace_id": "t1",
    }


def test_it_never_lets_an_extra_field_shadow_a_core_one(logs):
    assert query_logs(level="WARN")["records"][0]["message"] == "pool at 9/10"


def test_it_filters_by_message_text_in_any_case(logs):
    payload = query_logs(contains="POOL")

    assert [record["message"] for record in payload["records"]] == ["Pool exhausted", "pool at 9/10"]


def test_it_counts_every_match_and_flags_a_cut(logs):
    payload = query_logs(limit=1)

    assert len(payload["records"]) == 1
    assert (payload["total"], payload["truncated"]) == (3, True)


def test_a_page_that_holds_every_match_exactly_is_not_a_cut(logs):
    payload = query_logs(limit=3)
    assert (payload["total"], payload["truncated"]) == (3, False)
    assert query_logs(limit=4)["total"] == 3


def test_backward_keeps_the_newest_records_and_still_lists_them_oldest_first(logs):
    payload = query_logs(limit=2, direction="backward")

    assert [record["message"] for record in payload["records"]] == ["Pool exhausted", "pool at 9/10"]
    assert (payload["total"], payload["truncated"]) == (3, True)
    assert [record["message"] for record in query_logs(limit=2, direction="forward")["records"]] == [
        "started",
        "Pool exhausted",
    ]


def test_it_excludes_the_end_of_the_window(logs):
    assert "pool after the window" not in [record["message"] for record in query_logs(contains="pool")["records"]]


@pytest.fixture
def metrics(db) -> None:
    MetricPoint.objects.bulk_create(
        [
            MetricPoint(ts=at(0, 0), service="api", metric="p99_ms", value=100),
            MetricPoint(ts=at(0, 30), service="api", metric="p99_ms", value=200),
            MetricPoint(ts=at(2, 10), service="api", metric="p99_ms", value=1 / 3),
            MetricPoint(ts=at(1, 0), service="api", metric="errors", value=7),
            MetricPoint(ts=at(1, 0), service="db", metric="p99_ms", value=9),
        ]
    )


def test_it_averages_samples_per_step_and_skips_empty_steps(metrics):
    payload = metric_backend(deadline=math.inf).query(service="api", metric="p99_ms", start=START, end=END, step=60)

    assert payload == {
        "series": [
            {
                "service": "api",
                "metric": "p99_ms",
                "points": [
                    {"ts": "2024-05-01T10:00:00Z", "value": 150.0},
                    {"ts": "2024-05-01T10:02:00Z", "value": 0.333333},
                ],
            }
        ]
    }


def test_it_aligns_steps_to_the_window_start(metrics):
    payload = metric_backend(deadline=math.inf).query(
        service="api", metric="p99_ms", start=at(0, 15), end=END, step=120
    )

    assert payload["series"][0]["points"] == [{"ts": "2024-05-01T10:00:15Z", "value": 100.166667}]


def test_it_returns_no_series_for_an_unknown_metric(metrics):
    assert metric_backend(deadline=math.inf).query(service="api", metric="nope", start=START, end=END, step=60) == {
        "series": []
    }
