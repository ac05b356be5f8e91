"""What the pictures of an answer are made of, taken from verified tool results only.

A released claim's bindings passed the Gatekeeper: each names an invocation of this run and a path in its
payload. Drawing reads the same payloads again through ``tools.store.load_verified_payload`` (same run,
READY, digest unchanged) and nothing else, so a figure can only show data the Gatekeeper could have
checked; a payload that cannot be loaded that way is simply not drawn.

- a **metric figure** for each series a released claim cites (``$.series[i]…`` of ``query_metrics``): all
  its points, its peak (the point farthest from its baseline, the median of its first third) and its onset
  (the first point at least half-way from the baseline to the peak);
- the **incident timeline**: the first error (the earliest cited log record whose level is an error level),
  the change (the cited dated record closest before the first error, or without one before the earliest
  metric onset, that is neither an error nor a warning: a business row's cited timestamp cell, else its
  first one, or a log record), and each metric figure's peak. Each event names the claim it comes from.

The result is plain JSON, stored on the run when it finishes: the invocation store expires, the picture of
an audited run must not.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from diagnosis.figures.sparkline import SeriesPoint
from tools.jsonpath import PathError, parse
from tools.names import ToolName
from tools.timestamps import format_timestamp, parse_timestamp

#: Log levels that mark a record as an error (compared upper-case).
ERROR_LEVELS = frozenset({"ERROR", "FATAL", "CRITICAL", "SEVERE", "EMERG", "ALERT", "CRIT"})
#: Levels of a symptom that is no error: such a record is not the change either.
WARNING_LEVELS = frozenset({"WARN", "WARNING"})

#: A payload by invocation id, or None when it cannot be loaded verified.
PayloadLoader = Callable[[str], Any]


class TimelineKind(StrEnum):
    CHANGE = "change"
    FIRST_ERROR = "first_error"
    METRIC_PEAK = "metric_peak"


@dataclass(frozen=True)
class ReleasedClaim:
    """A claim the answer shows, with its passed bindings (``source_invocation_id``, ``tool_name``, ``raw_path``)."""

    claim_id: str
    fact: str
    bindings: list[Mapping[str, Any]]


@dataclass(frozen=True)
class _Dated:
    ts: datetime
    error: bool
    claim_id: str
    warning: bool = False


def series_shape(points: list[SeriesPoint]) -> tuple[datetime | None, SeriesPoint | None]:
    """``(onset, peak)`` of a series in time order; both None for a flat series."""
    if not points:
        return None, None
    base = statistics.median(point.value for point in points[: max(1, len(points) // 3)])
    # max returns the first of equal points: the earliest peak.
    peak = max(points, key=lambda point: abs(point.value - base))
    distance = abs(peak.value - base)
    if distance == 0:
        return None, None
    onset = next(point for point in points if abs(point.value - base) >= distance / 2)
    return onset.ts, peak


def _timestamp(value: object) -> datetime | None:
    try:
        return parse_timestamp(value)
    except ValueError:
        return None


def _item(payload: Any, key: str, index: int) -> Any:
    items = payload.get(key) if isinstance(payload, dict) else None
    return items[index] if isinstance(items, list) and 0 <= index < len(items) else None


def _series_points(series: Any) -> list[SeriesPoint]:
    points = []
    for item in series.get("points") or [] if isinstance(series, dict) else []:
        ts = _timestamp(item.get("ts")) if isinstance(item, dict) else None
        value = item.get("value") if isinstance(item, dict) else None
        if ts is not None and isinstance(value, int | float) and not isinstance(value, bool):
            points.append(SeriesPoint(ts, float(value)))
    return sorted(points, key=lambda point: point.ts)


def _metric_figure(claim: ReleasedClaim, series: dict[str, Any], points: list[SeriesPoint]) -> dict[str, Any]:
    onset, peak = series_shape(points)
    return {
        "claim_id": claim.claim_id,
        "fact": claim.fact,
        "service": str(series.get("service") or ""),
        "metric": str(series.get("metric") or ""),
        "points": [[format_timestamp(point.ts), point.value] for point in points],
        "onset": format_timestamp(onset) if onset else None,
        "peak": [format_timestamp(peak.ts), peak.value] if peak else None,
    }


def _dated(tool: str, payload: Any, segments: list[str | int], claim_id: str) -> _Dated | None:
    """The moment a cited log record or business row carries, if it is one."""
    if len(segments) < 2 or not isinstance(segments[1], int):
        return None
    if tool == ToolName.QUERY_LOGS and segments[0] == "records":
        record = _item(payload, "records", segments[1])
        ts = _timestamp(record.get("ts")) if isinstance(record, dict) else None
        if ts is None or not isinstance(record, dict):
            return None
        level = str(record.get("level") or "").upper()
        return _Dated(ts, level in ERROR_LEVELS, claim_id, level in WARNING_LEVELS)
    if tool == ToolName.QUERY_MYSQL and segments[0] == "rows":
        row = _item(payload, "rows", segments[1])
        if not isinstance(row, list):
            return None
        # The cell cited (a change's ``changed_at``), when it is a time; else the row's first time.
        index = segments[2] if len(segments) > 2 else None
        cited = row[index] if isinstance(index, int) and 0 <= index < len(row) else None
        stamps = [stamp for cell in row if isinstance(cell, str) and (stamp := _timestamp(cell)) is not None]
        ts = _timestamp(cited) if isinstance(cited, str) else None
        ts = ts or (stamps[0] if stamps else None)
        return _Dated(ts, False, claim_id) if ts else None
    return None


def build_figures(claims: Iterable[ReleasedClaim], load: PayloadLoader) -> dict[str, Any]:
    """``{"metrics": [...], "timeline": [...], "claims": {claim_id: fact}}`` of an answer's released claims."""
    payloads: dict[str, Any] = {}
    metrics: list[dict[str, Any]] = []
    dated: list[_Dated] = []
    facts: dict[str, str] = {}
    for claim in claims:
        facts[claim.claim_id] = claim.fact
        drawn: set[tuple[str, int]] = set()
        for binding in claim.bindings:
            invocation = str(binding.get("source_invocation_id"))
            if invocation not in payloads:
                payloads[invocation] = load(invocation)
            payload = payloads[invocation]
            try:
                segments = parse(str(binding.get("raw_path")))
            except PathError:
                continue
            if payload is None or not segments:
                continue
            tool = binding.get("tool_name")
            index = segments[1] if len(segments) > 1 else None
            if tool == ToolName.QUERY_METRICS and segments[0] == "series" and isinstance(index, int):
                # A metric claim cites two points of one series: it is drawn (and read) once.
                if (invocation, index) in drawn:
                    continue
                series = _item(payload, "series", index)
                points = _series_points(series)
                if isinstance(series, dict) and len(points) >= 2:
                    drawn.add((invocation, index))
                    metrics.append(_metric_figure(claim, series, points))
            elif moment := _dated(str(tool), payload, segments, claim.claim_id):
                dated.append(moment)
    timeline = _timeline(metrics, dated)
    shown = {event["claim_id"] for event in timeline} | {figure["claim_id"] for figure in metrics}
    return {"metrics": metrics, "timeline": timeline, "claims": {key: facts[key] for key in facts if key in shown}}


def _timeline(metrics: list[dict[str, Any]], dated: list[_Dated]) -> list[dict[str, Any]]:
    events: list[tuple[datetime, TimelineKind, str]] = []
    errors = [moment for moment in dated if moment.error]
    first_error = min(errors, key=lambda moment: moment.ts, default=None)
    if first_error:
        events.append((first_error.ts, TimelineKind.FIRST_ERROR, first_error.claim_id))
    onsets = [parse_timestamp(figure["onset"]) for figure in metrics if figure["onset"]]
    before = first_error.ts if first_error else min(onsets, default=None)
    if before is not None:
        changes = [moment for moment in dated if not (moment.error or moment.warning) and moment.ts < before]
        # The closest: a record from the day before is history, the one just before is the likely trigger.
        change = max(changes, key=lambda moment: moment.ts, default=None)
        if change:
            events.append((change.ts, TimelineKind.CHANGE, change.claim_id))
    for figure in metrics:
        if figure["peak"]:
            events.append((parse_timestamp(figure["peak"][0]), TimelineKind.METRIC_PEAK, figure["claim_id"]))
    events.sort(key=lambda event: event[0])
    return [{"kind": kind.value, "ts": format_timestamp(ts), "claim_id": claim_id} for ts, kind, claim_id in events]
