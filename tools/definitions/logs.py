"""``query_logs(service, level?, contains?, start, end, limit)``: log records of one service in a window."""

from __future__ import annotations

from typing import Any

from tools.backends import log_backend
from tools.backends.window import SERVICE_WINDOW_PROPERTIES, parse_window
from tools.jsonpath import format_path
from tools.names import ToolName
from tools.projection import clip_values, listing
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
            "description": "How many records at most (oldest first); the run's row budget may cap it lower.",
        },
    },
    "required": ["service", "start", "end", "limit"],
    "additionalProperties": False,
}


def handle(arguments: dict[str, Any], context: CallContext) -> ToolOutput:
    window = parse_window(arguments["start"], arguments["end"])
    payload = log_backend().query(
        service=arguments["service"],
        level=arguments.get("level"),
        contains=arguments.get("contains"),
        start=window.start,
        end=window.end,
        limit=min(arguments["limit"], context.max_rows),
    )
    return ToolOutput(payload, row_count=len(payload["records"]))


def project(payload: dict[str, Any], budget: int) -> dict[str, Any]:
    records = (
        {"raw_path": format_path("$", "records", index, "message"), **clip_values(record)}
        for index, record in enumerate(payload["records"])
    )
    return {"total": payload["total"], "truncated": payload["truncated"], **listing("records", records, budget)}


QUERY_LOGS = Tool(
    name=ToolName.QUERY_LOGS,
    description=(
        "Read log records of one service in a time window, oldest first, optionally filtered by level and by "
        "text in the message. total counts every match; truncated says more matched than were returned."
    ),
    parameters=PARAMETERS,
    handler=handle,
    project=project,
    truncation=Truncation("records", flag_key="truncated"),
)
