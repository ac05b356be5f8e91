"""``query_logs(service, level?, contains?, start, end, limit, direction?)``: log records of one service in a window."""

from __future__ import annotations

from typing import Any

from tools.backends import log_backend
from tools.backends.protocols import BACKWARD, DIRECTIONS, FORWARD
from tools.backends.window import SERVICE_WINDOW_PROPERTIES, parse_window
from tools.jsonpath import format_path
from tools.names import ToolName
from tools.projection import cited_item, listing, warnings_first
from tools.tool import CallContext, Tool, ToolOutput
from tools.truncation import Truncation

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        **SERVICE_WINDOW_PROPERTIES,
        "level": {
            "type": "string",
            "minLength": 1,
            "maxLength": 10,
            "description": "Exact level, any case: ERROR, WARN, INFO.",
        },
        "contains": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "description": "Keep records whose message contains this text (case-insensitive).",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": 1000,
            "description": "How many records at most; the run's row budget may cap it lower.",
        },
        "direction": {
            "type": "string",
            "enum": list(DIRECTIONS),
            "description": (
                "Which records the limit keeps: forward (default) the oldest of the window, backward the newest "
                "(the last lines before a moment: what changed just before an onset). Listed oldest first either way."
            ),
        },
    },
    "required": ["service", "start", "end", "limit"],
    "additionalProperties": False,
}


def handle(arguments: dict[str, Any], context: CallContext) -> ToolOutput:
    window = parse_window(arguments["start"], arguments["end"])
    direction = arguments.get("direction", FORWARD)
    payload = log_backend(deadline=context.deadline).query(
        service=arguments["service"],
        level=arguments.get("level"),
        contains=arguments.get("contains"),
        start=window.start,
        end=window.end,
        limit=min(arguments["limit"], context.max_rows),
        direction=direction,
    )
    if direction == BACKWARD:
        # Kept in the payload so that the projection, too, shows the newest records when not all fit.
        payload["direction"] = BACKWARD
    return ToolOutput(payload, row_count=len(payload["records"]))


def project(payload: dict[str, Any], budget: int) -> dict[str, Any]:
    """The records that fit the budget: the oldest, or the newest of a ``backward`` query (still oldest first)."""
    indexed = list(enumerate(payload["records"]))
    backward = payload.get("direction") == BACKWARD
    view = listing("records", indexed[::-1] if backward else indexed, budget, _record_view)
    if backward:
        view["records"].reverse()
    return {**warnings_first(payload), "total": payload["total"], "truncated": payload["truncated"], **view}


def _record_view(indexed: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    index, record = indexed
    return cited_item(format_path("$", "records", index, "message"), record)


QUERY_LOGS = Tool(
    name=ToolName.QUERY_LOGS,
    description=(
        "Read log records of one service in a time window, listed oldest first, optionally filtered by level and "
        "by text in the message; direction=backward keeps the newest records when more match than the limit. "
        "total counts every match; truncated says more matched than were returned."
    ),
    parameters=PARAMETERS,
    handler=handle,
    project=project,
    truncation=Truncation(
        "records", flag_key="truncated", keeps_tail=lambda payload: payload.get("direction") == BACKWARD
    ),
)
