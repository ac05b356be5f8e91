"""``query_metrics`` over a Prometheus HTTP API (``/api/v1/query_range``).

Points keep the embedded backend's meaning — the mean of the samples in ``[start + k*step, start +
(k+1)*step)``, stamped with the step's start — so a diagnosis verifies the same whichever backend answered.
Prometheus evaluates ``sum(sum_over_time(s[step])) / sum(count_over_time(s[step]))`` one millisecond before
each step's end: the mean of every sample of every matching series in the step. Prometheus 3 ranges are
left-open, so that range is exactly the step; Prometheus 2 ranges are closed, so there a sample lying exactly
one millisecond before a step's start is counted in it too. A last partial step (a window that is not a
whole number of steps) is asked apart, with a range of what is left of the window: it ends with the window,
as embedded, not a whole step past it (a baseline "before the onset" would have averaged the incident in).
Steps without samples are left out, as embedded;
so is, from its step, a series whose samples there include a NaN or an infinity (the other series' samples
still count).
The series is selected by ``__name__`` (``promql.selector``), and Prometheus' ``warnings`` (a partial answer
from Thanos or Mimir) come with the payload.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from tools.backends.http_json import HttpEndpoint, backend_warnings, error_detail, request_json
from tools.backends.promql import selector
from tools.backends.protocols import point_value
from tools.errors import ToolBackendError
from tools.timestamps import format_timestamp

MILLISECOND = timedelta(milliseconds=1)


class PrometheusMetricBackend:
    def __init__(self, endpoint: HttpEndpoint, *, service_label: str, deadline: float) -> None:
        self.endpoint = endpoint
        self.service_label = service_label
        self.deadline = deadline

    def query(self, *, service: str, metric: str, start: datetime, end: datetime, step: int) -> dict[str, Any]:
        series = selector(metric, self.service_label, service)
        window_ms = round((end - start).total_seconds() * 1000)
        whole, rest_ms = divmod(window_ms, step * 1000)
        points: list[tuple[int, float]] = []
        warnings: dict[str, Any] = {}
        if whole:
            first = start + timedelta(seconds=step) - MILLISECOND
            body = self._range(_mean(series, f"{step}s"), first, first + timedelta(seconds=step * (whole - 1)), step)
            points += _matrix_points(self.endpoint.name, body, first, step, whole)
            warnings = backend_warnings(body)
        if rest_ms:
            # The last step ends with the window, as embedded: its range is what is left of the window, not a
            # whole step reaching past the window's end into what the question asked to leave out.
            last = end - MILLISECOND
            body = self._range(_mean(series, f"{rest_ms}ms"), last, last, step)
            points += [(whole, value) for _, value in _matrix_points(self.endpoint.name, body, last, step, 1)]
            warnings = warnings or backend_warnings(body)
        payload: dict[str, Any] = {
            "series": [
                {
                    "service": service,
                    "metric": metric,
                    "points": [
                        {"ts": format_timestamp(start + timedelta(seconds=step * index)), "value": value}
                        for index, value in points
                    ],
                }
            ]
            if points
            else []
        }
        return payload | warnings

    def _range(self, expression: str, first: datetime, last: datetime, step: int) -> dict[str, Any]:
        return request_json(
            self.endpoint,
            "POST",
            "/api/v1/query_range",
            deadline=self.deadline,
            data={
                "query": expression,
                "start": _seconds(first),
                "end": _seconds(last),
                "step": str(step),
                # VictoriaMetrics otherwise moves a range's times to its cache's grid (Prometheus ignores it).
                "nocache": "1",
            },
        )


def _mean(series: str, width: str) -> str:
    """The mean of every sample of every matching series in the ``width`` before the evaluation time."""
    total = f"sum_over_time({series}[{width}])"
    # A series whose step holds a NaN (a summary's quantile with nothing observed) or an infinity (a ratio
    # over a zero) sums to NaN or ±Inf: it is left out of that step (``unless`` it is not equal to itself or
    # is infinite), not allowed to make the whole step's sum NaN or infinite, which no point can show.
    finite = f"unless ({total} != {total} or abs({total}) == Inf)"
    return f"sum({total} {finite}) / sum(count_over_time({series}[{width}]) {finite})"


def _seconds(moment: datetime) -> str:
    """Unix seconds with milliseconds, exactly (no float rounding of the instant)."""
    milliseconds = round(moment.timestamp() * 1000)
    return f"{milliseconds // 1000}.{milliseconds % 1000:03d}"


def _matrix_points(name: str, body: dict[str, Any], first: datetime, step: int, steps: int) -> list[tuple[int, float]]:
    """The ``(step number, value)`` pairs of the one series a ``matrix`` answer holds (none when nothing
    matched). Each point must have been evaluated where it was asked, ``first`` plus a whole number of steps,
    once: a point elsewhere (a store's cache that moved the range, a proxy's answer to another query) would be
    stamped with a step it does not hold."""
    data = body.get("data")
    if body.get("status") != "success" or not isinstance(data, dict) or data.get("resultType") != "matrix":
        detail = error_detail(body)
        raise ToolBackendError(
            "backend_bad_response", f"{name} did not answer a successful matrix{detail and ': '}{detail}"
        )
    result = data.get("result")
    if not isinstance(result, list) or len(result) > 1:
        raise ToolBackendError("backend_bad_response", f"{name} answered an unexpected matrix result")
    points: list[tuple[int, float]] = []
    last = -1
    for series in result:
        values = series.get("values") if isinstance(series, dict) else None
        if not isinstance(values, list):
            raise ToolBackendError("backend_bad_response", f"{name} answered a series without a list of values")
        for pair in values:
            try:
                offset = round(float(pair[0]) * 1000) - round(first.timestamp() * 1000)
                value = float(pair[1])
            except (TypeError, ValueError, IndexError, KeyError, OverflowError):
                raise ToolBackendError(
                    "backend_bad_response", f"{name} answered a malformed point {pair!r:.200}"
                ) from None
            index, off_grid = divmod(offset, step * 1000)
            if off_grid or not last < index < steps:
                raise ToolBackendError(
                    "backend_bad_response",
                    f"{name} answered a point at a time it was not asked for {pair!r:.200} (a query frontend that "
                    "aligns ranges with the step must not: Thanos' --query-range.align-range-with-step=false)",
                )
            last = index
            if math.isfinite(value):
                points.append((index, point_value(value)))
    return points
