"""Time windows of log and metric queries: ISO 8601, start before end, at most a week."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tools.backends.window import parse_window
from tools.errors import ToolInputError


def test_it_parses_a_window():
    window = parse_window("2024-05-01T10:00:00Z", "2024-05-01T10:30:00Z")

    assert window.start == datetime(2024, 5, 1, 10, tzinfo=UTC)
    assert window.seconds == 1800


def test_its_ends_are_whole_milliseconds_its_span_as_asked():
    """The finest time Prometheus is asked in: every backend reads the same window, of the steps asked for
    (rounded outwards, a 300 s window of 60 s steps made a sixth step)."""
    window = parse_window("2024-05-01T10:00:00.000500Z", "2024-05-01T10:05:00.000500Z")

    assert window.start == datetime(2024, 5, 1, 10, tzinfo=UTC)
    assert window.seconds == 300
    assert parse_window("2024-05-01T00:00:00.0005Z", "2024-05-08T00:00:00.0005Z").seconds == 7 * 24 * 3600


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        ("10:00", "2024-05-01T10:30:00Z", "not an ISO 8601 timestamp"),
        ("2024-05-01T10:00:00Z", "later", "not an ISO 8601 timestamp"),
        ("2024-05-01T10:30:00Z", "2024-05-01T10:00:00Z", "must be before end"),
        ("2024-05-01T10:00:00Z", "2024-05-01T10:00:00Z", "must be before end"),
        ("2024-05-01T00:00:00Z", "2024-05-08T00:00:01Z", "more than 7 days"),
        ("0001-01-01T00:00:00+01:00", "0001-01-02T00:00:00Z", "outside the range of UTC timestamps"),
        ("9999-12-31T00:00:00Z", "9999-12-31T23:59:59-01:00", "outside the range of UTC timestamps"),
        ("1969-12-31T23:00:00Z", "1970-01-01T01:00:00Z", "between 1970 and 2262"),
        ("9999-12-31T00:00:00Z", "9999-12-31T23:59:59Z", "between 1970 and 2262"),
        # Past Loki's clock: int64 nanoseconds end in April 2262.
        ("2262-05-01T00:00:00Z", "2262-05-02T00:00:00Z", "between 1970 and 2262"),
        ("2024-05-01T10:00:00.0005Z", "2024-05-01T10:00:00.0005Z", "must be before end"),
        ("2024-05-01T10:00:00.0002Z", "2024-05-01T10:00:00.0007Z", "shorter than a millisecond"),
    ],
)
def test_it_refuses_a_bad_window_saying_why(start, end, message):
    with pytest.raises(ToolInputError) as raised:
        parse_window(start, end)

    assert raised.value.code == "invalid_window"
    assert message in raised.value.message
