"""``query_metrics(service, metric, start, end, step)``: one metric series of one service in a window."""

from __future__ import annotations

import math
from typing import Any

from tools.backends import metric_backend
from tools.backends.window import SERVICE_WINDOW_PROPERTIES, parse_window
from tools.errors import ToolInputError
from tools.jsonpath import format_path
from tools.names import ToolName
from tools.projection import listing, warnings_first
from tools.tool import CallContext, Tool, ToolOutput

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        **SERVICE_WINDOW_PROPERTIES,
        "metric": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Exact metric name."},
        "step": {
            "type": "integer",
            "minimum": 1,
            "maximum": 86400,
            "description": "Seconds per point; each point is the mean of the samples in its step.",
        },
    },
    "required": ["service", "metric", "start", "end", "step"],
    "additionalProperties": False,
}


def handle(arguments: dict[str, Any], context: CallContext) -> ToolOutput:
    window = parse_window(arguments["start"], arguments["end"])
    step = arguments["step"]
    points = math.ceil(window.seconds / step)
    if points > context.max_rows:
        smallest = math.ceil(window.seconds / context.max_rows)
        raise ToolInputError(
            "too_many_points",
            f"{points} points of {step}s exceed the budget of {context.max_rows}; use step >= {smallest}",
        )
    payload = metric_backend(deadline=context.deadline).query(
        service=arguments["service"], metric=arguments["metric"], start=window.start, end=window.end, step=step
    )
    return ToolOutput(payload, row_count=sum(len(series["points"]) for series in payload["series"]))


def project(payload: dict[str, Any], budget: int) -> dict[str, Any]:
    warnings = warnings_first(payload)
    share = budget // max(len(payload["series"]), 1)
    views = [_series_view(index, series, share) for index, series in enumerate(payload["series"])]
    if not views:
        return {**warnings, "series": [], "note": "no samples of this metric for this service in the window"}
    return {**warnings, "series": views}


def _series_view(index: int, series: dict[str, Any], budget: int) -> dict[str, Any]:
    """One series: its lowest and highest points, then the leading points that fit ``budget``."""
    points = series["points"]

    def point_view(number: int) -> dict[str, Any]:
        return {"raw_path": format_path("$", "series", index, "points", number), **points[number]}

    view: dict[str, Any] = {
        "raw_path": format_path("$", "series", index),
        "service": series["service"],
        "metric": series["metric"],
        "point_count": len(points),
    }
    numbers = range(len(points))
    if points:
        view["min"] = point_view(min(numbers, key=lambda number: points[number]["value"]))
        view["max"] = point_view(max(numbers, key=lambda number: points[number]["value"]))
    return {**view, **listing("points", numbers, budget, point_view)}


QUERY_METRICS = Tool(
    name=ToolName.QUERY_METRICS,
    description=(
        "Read one metric of one service in a time window as points every `step` seconds (the mean of the "
        "samples in each step; steps without samples are left out)."
    ),
    parameters=PARAMETERS,
    handler=handle,
    project=project,
)
