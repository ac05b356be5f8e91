"""Tool calls as the planner writes them and as ``completed_queries`` records them.

One description format serves both directions: the executor reports each call it made with ``describe``,
and in EVIDENCE_GAP_ONLY mode the planner compares its candidate steps against those descriptions, so a
query that already ran is never planned twice.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from diagnosis.providers.offline.timing import Window
from tools.backends.protocols import BACKWARD
from tools.names import ToolName
from tools.timestamps import format_timestamp

# Aim for about this many points per series: enough to see a change, few enough for the row budget.
TARGET_POINTS = 120
LOG_LIMIT = 200
KNOWLEDGE_TOP_K = 5
MAX_QUERY_CHARS = 1000  # lookup_knowledge's schema limit
MAX_DESCRIPTION_CHARS = 500


@dataclass(frozen=True)
class Step:
    tool: str
    purpose: str
    args: dict[str, Any]

    def as_plan_step(self) -> dict[str, Any]:
        return {"tool": self.tool, "purpose": self.purpose, "args": self.args}

    @cached_property
    def description(self) -> str:
        """Read several times per turn, when the executor matches its planned steps against its results."""
        return describe(self.tool, self.args)


def describe(tool: str, args: dict[str, Any]) -> str:
    """``query_logs level=ERROR service=x ...``: a stable, human-readable key for one tool call."""
    parts = [tool, *(f"{key}={_flat(args[key])}" for key in sorted(args))]
    return " ".join(parts)[:MAX_DESCRIPTION_CHARS]


def _flat(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def knowledge(query: str, purpose: str) -> Step:
    return Step(ToolName.LOOKUP_KNOWLEDGE, purpose, {"query": query[:MAX_QUERY_CHARS], "top_k": KNOWLEDGE_TOP_K})


def logs(service: str, level: str, window: Window, purpose: str) -> Step:
    start, end = window.iso()
    return Step(
        ToolName.QUERY_LOGS,
        purpose,
        {"service": service, "level": level, "start": start, "end": end, "limit": LOG_LIMIT},
    )


def latest_logs(service: str, start: datetime, end: datetime, purpose: str) -> Step:
    """The newest records of every level up to ``end``: the lines logged just before a moment."""
    return Step(
        ToolName.QUERY_LOGS,
        purpose,
        {
            "service": service,
            "start": format_timestamp(start),
            "end": format_timestamp(end),
            "limit": LOG_LIMIT,
            "direction": BACKWARD,
        },
    )


def metric(service: str, name: str, window: Window, purpose: str) -> Step:
    start, end = window.iso()
    return Step(
        ToolName.QUERY_METRICS,
        purpose,
        {"service": service, "metric": name, "start": start, "end": end, "step": metric_step(window)},
    )


def sql(statement: str, purpose: str) -> Step:
    return Step(ToolName.QUERY_MYSQL, purpose, {"sql": statement})


def metric_step(window: Window) -> int:
    """Whole minutes per point, so that the window gives at most about ``TARGET_POINTS`` points."""
    minutes = max(1, math.ceil(window.seconds / TARGET_POINTS / 60))
    return minutes * 60
