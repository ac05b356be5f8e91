"""The two evidence backends the log and metric tools read through, and their canonical payloads.

A backend answers in the canonical shape of DESIGN.md directly, so a payload's ``raw_path`` means the same
whichever backend produced it:

- logs: ``{"records": [{"ts", "service", "level", "message", ...extra}], "total", "truncated"}``, ``ts``
  ascending, ``total`` counting every match in the window, ``truncated`` when ``records`` holds fewer;
- metrics: ``{"series": [{"service", "metric", "points": [{"ts", "value"}]}]}``, one point per ``step``
  seconds (how a point is aggregated is the backend's to document).

Windows are half-open, ``start <= ts < end``, with aware UTC datetimes; callers validate them first.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from tools.timestamps import format_timestamp

# A point's value is read to six decimals, or to six significant digits below 1, so that a cited value reads
# the same in the payload and in the model's excerpt and a small one (an error ratio of 4e-7) stays non-zero.
VALUE_DIGITS = 6


def point_value(value: float) -> float:
    """``value`` as a metric point holds it (never ``-0.0``, which a reader would cite as a negative)."""
    if abs(value) < 1:
        return float(f"{value:.{VALUE_DIGITS}g}") + 0.0
    return round(value, VALUE_DIGITS) + 0.0


def log_record_payload(ts: datetime, service: str, level: str, message: str, extra: dict[str, Any]) -> dict[str, Any]:
    """A record in canonical shape; the extra fields (a pack's, Loki's labels) follow and never shadow the four
    core ones: a label named ``message`` must not replace the line."""
    core = {"ts": format_timestamp(ts), "service": service, "level": level, "message": message}
    return core | {key: value for key, value in extra.items() if key not in core}


# Which end of the window ``limit`` keeps (Loki's ``direction`` values): the oldest records, or the newest.
FORWARD = "forward"
BACKWARD = "backward"
DIRECTIONS = (FORWARD, BACKWARD)


class LogBackend(Protocol):
    def query(
        self,
        *,
        service: str,
        level: str | None,
        contains: str | None,
        start: datetime,
        end: datetime,
        limit: int,
        direction: str = FORWARD,
    ) -> dict[str, Any]:
        """``limit`` matching records of ``service`` in the window (``level`` exact, any case; ``contains`` a
        case-insensitive substring of the message): the oldest with ``direction="forward"``, the newest
        with ``"backward"`` (Loki's names); listed ``ts`` ascending either way."""
        ...


class MetricBackend(Protocol):
    def query(self, *, service: str, metric: str, start: datetime, end: datetime, step: int) -> dict[str, Any]:
        """The ``metric`` series of ``service`` in the window, one point per ``step`` seconds."""
        ...
