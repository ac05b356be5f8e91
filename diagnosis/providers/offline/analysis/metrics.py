"""Metric analysis: which series changed most at the onset, and which two points show it.

A series is split at the onset (or, when the question gives none, at its own strongest level shift). The
baseline is summarised robustly (median and MAD), so a few spikes before the incident do not hide the
change; the score is the shift in baseline deviations, capped, times the relative size of the shift. The
cap stops a series that was exactly 0 before (pending threads, evictions) from drowning all others, while
the relative factor keeps a large but proportionally tiny wiggle from counting. The cited evidence is one
baseline point near the usual level, the first point of the new level (when the shift began) and the
extreme point after it.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from diagnosis.providers.offline.conversation import ToolExchange, result_items
from diagnosis.providers.offline.memo import NO_MEMO, Memo
from diagnosis.providers.offline.timing import parse_ts
from tools.names import ToolName

MIN_SIDE_POINTS = 3
MAX_DEVIATIONS = 50.0
MIN_SCORE = 3.0
MAD_TO_SIGMA = 1.4826


@dataclass(frozen=True)
class Point:
    raw_path: str
    ts: datetime
    ts_text: str
    value: float
    given: int | float
    """The value as the tool gave it (an int stays an int)."""

    @property
    def value_text(self) -> str:
        """The value as JSON text: what the gatekeeper compares a cited number against. Only a cited point's
        is ever read, so it is not written for every point read."""
        return json.dumps(self.given)


@dataclass(frozen=True)
class Series:
    invocation_id: str
    raw_path: str
    service: str
    metric: str
    points: list[Point]


@dataclass(frozen=True)
class Anomaly:
    series: Series
    score: float
    rising: bool
    baseline: Point
    extreme: Point
    shifted: Point
    """The first point past half the shift: where the series changed (the extreme itself after a jump)."""


def series_of(exchanges: Iterable[ToolExchange], memo: Memo = NO_MEMO) -> list[Series]:
    """Every series of every READY ``query_metrics`` result, with its visible points (each result read once
    per run, ``memo``)."""
    return [series for exchange in exchanges for series in memo.get(exchange.memo_key("series"), _series_in, exchange)]


def _series_in(exchange: ToolExchange) -> list[Series]:
    found = (
        _series(exchange.invocation_id, item) for _, item in result_items([exchange], ToolName.QUERY_METRICS, "series")
    )
    return [series for series in found if series is not None]


def _series(invocation_id: str, item: dict[str, Any]) -> Series | None:
    service, metric, raw_path = item.get("service"), item.get("metric"), item.get("raw_path")
    if not (isinstance(service, str) and isinstance(metric, str) and isinstance(raw_path, str)):
        return None
    points = [point for point in map(_point, item.get("points") or []) if point is not None]
    return Series(invocation_id, raw_path, service, metric, sorted(points, key=lambda point: point.ts))


def _point(item: object) -> Point | None:
    if not isinstance(item, dict):
        return None
    ts, value, raw_path = parse_ts(item.get("ts")), item.get("value"), item.get("raw_path")
    if ts is None or isinstance(value, bool) or not isinstance(value, int | float) or not isinstance(raw_path, str):
        return None
    return Point(raw_path, ts, item["ts"], float(value), value)


def anomaly(series: Series, onset: datetime | None) -> Anomaly | None:
    """The series' shift at ``onset`` (its own change point without one), if it is strong enough."""
    split = _split_index(series.points, onset)
    if split is None:
        return None
    before, after = series.points[:split], series.points[split:]
    base = statistics.median(point.value for point in before)
    level = statistics.median(point.value for point in after)
    spread = statistics.median(abs(point.value - base) for point in before) * MAD_TO_SIGMA
    largest = max(abs(point.value) for point in series.points)
    scale = max(spread, 0.05 * abs(base), 0.01 * largest, 1e-9)
    shift = level - base
    relative = abs(shift) / max(abs(base), abs(level), 1e-9)
    score = min(abs(shift) / scale, MAX_DEVIATIONS) * relative
    if score < MIN_SCORE:
        return None
    rising = shift > 0
    # max and min return the first of equal points, and points are in time order: the earliest extreme.
    extreme = (max if rising else min)(after, key=lambda point: point.value)
    baseline = min(before, key=lambda point: abs(point.value - base))
    # Where the new level began: the first point past half the shift, in its direction (a point after the
    # onset still at the old level, or dipping the other way, is not where the series changed).
    shifted = next(point for point in after if (point.value - base) * (1 if rising else -1) >= abs(shift) / 2)
    return Anomaly(series, score, rising, baseline, extreme, shifted)


def _split_index(points: list[Point], onset: datetime | None) -> int | None:
    if len(points) < 2 * MIN_SIDE_POINTS:
        return None
    if onset is not None:
        split = next((index for index, point in enumerate(points) if point.ts >= onset), len(points))
        return split if MIN_SIDE_POINTS <= split <= len(points) - MIN_SIDE_POINTS else None
    return _change_point(points)


def _change_point(points: list[Point]) -> int:
    """The split that best separates two levels (largest mean shift weighted by both sides' sizes)."""
    values = [point.value for point in points]
    total = sum(values)
    best, best_index, prefix = -1.0, MIN_SIDE_POINTS, 0.0
    for index in range(1, len(values)):
        prefix += values[index - 1]
        if index < MIN_SIDE_POINTS or index > len(values) - MIN_SIDE_POINTS:
            continue
        left, right = prefix / index, (total - prefix) / (len(values) - index)
        gain = abs(right - left) * (index * (len(values) - index)) ** 0.5
        if gain > best:
            best, best_index = gain, index
    return best_index


def strongest(anomalies: Iterable[Anomaly], service: str) -> Anomaly | None:
    """The most anomalous series of ``service``."""
    own = [item for item in anomalies if item.series.service == service]
    return max(own, key=lambda item: (item.score, item.series.metric), default=None)
