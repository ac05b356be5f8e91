"""The tool names: the one definition that contracts, providers and paths compare against.

Values are the names the model sees in its tool specs; the tool definitions (``tools/definitions``) take
their names from here, and ``tests/tools/test_names.py`` checks that every name has exactly one tool.
"""

from __future__ import annotations

from enum import StrEnum


class ToolName(StrEnum):
    LOOKUP_KNOWLEDGE = "lookup_knowledge"
    QUERY_LOGS = "query_logs"
    QUERY_METRICS = "query_metrics"
    QUERY_MYSQL = "query_mysql"


#: The names as plain strings, for membership tests on untrusted values (``in`` on a tuple never raises).
TOOL_NAMES: tuple[str, ...] = tuple(name.value for name in ToolName)
#: What the trace records for a call of a name no tool has: the name is the model's text, which the restricted
#: reasoning audit keeps and the trace's readers must not see.
UNKNOWN_TOOL = "unknown_tool"
