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


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        ("10:00", "2024-05-01T10:30:00Z", "not an ISO 8601 timestamp"),
        ("2024-05-01T10:00:00Z", "later", "not an ISO 8601 timestamp"),
        ("2024-05-01T10:30:00Z", "2024-05-01T10:00:00Z", "must be before end"),
        ("2024-05-01T10:00:00Z", "2024-05-01T10:00:00Z", "must be before end"),
        ("2024-05-01T00:00:00Z", "2024-05-08T00:00:01Z", "more than 7 days"),
    ],
)
def test_it_refuses_a_bad_window_saying_why(start, end, message):
    with pytest.raises(ToolInputError) as raised:
        parse_window(start, end)

    assert raised.value.code == "invalid_window"
    assert message in raised.value.message
