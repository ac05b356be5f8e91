"""The time window every log and metric query must carry: ISO 8601, ``start < end``, bounded span."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from tools.errors import ToolInputError
from tools.timestamps import parse_timestamp

# A week covers any incident a diagnosis looks at; a wider window only adds noise and cost.
MAX_WINDOW_SPAN = timedelta(days=7)
# No log or sample lies outside these; inside datetime's range, so that a backend's step arithmetic (window
# ends plus or minus a step) cannot overflow, and inside Loki's clock (int64 nanoseconds end in April 2262).
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2262, 1, 1, tzinfo=UTC)

# The JSON-schema properties of a call about one service in a window (parse_window checks the times).
SERVICE_WINDOW_PROPERTIES: dict[str, Any] = {
    "service": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Exact service name."},
    "start": {"type": "string", "description": "Window start, ISO 8601 UTC (inclusive), e.g. 2024-05-01T10:00:00Z."},
    "end": {
        "type": "string",
        "description": f"Window end, ISO 8601 UTC (exclusive); at most {MAX_WINDOW_SPAN.days} days after start.",
    },
}


@dataclass(frozen=True)
class TimeWindow:
    start: datetime
    end: datetime

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()


def parse_window(start: str, end: str) -> TimeWindow:
    """The window of a tool call, or ``ToolInputError("invalid_window")`` saying what is wrong. Its ends are
    whole milliseconds, both rounded down (its span as asked): the finest time Prometheus is asked in, so that
    every backend reads the same window."""
    try:
        window = TimeWindow(parse_timestamp(start), parse_timestamp(end))
    except ValueError as error:
        raise ToolInputError("invalid_window", str(error)) from None
    if window.start < EARLIEST or window.end > LATEST:
        raise ToolInputError("invalid_window", f"the window must lie between {EARLIEST.year} and {LATEST.year}")
    if window.start >= window.end:
        raise ToolInputError("invalid_window", f"start {start!r} must be before end {end!r}")
    if window.end - window.start > MAX_WINDOW_SPAN:
        raise ToolInputError("invalid_window", f"the window spans more than {MAX_WINDOW_SPAN.days} days")
    rounded = TimeWindow(_whole_millisecond(window.start), _whole_millisecond(window.end))
    if rounded.start >= rounded.end:
        raise ToolInputError("invalid_window", f"the window from {start!r} to {end!r} is shorter than a millisecond")
    return rounded


def _whole_millisecond(moment: datetime) -> datetime:
    return moment - timedelta(microseconds=moment.microsecond % 1000)
