"""The tool names: the one definition that contracts, providers and paths compare against.

Values are the names the model sees in its tool specs. The tool definitions (``tools/definitions``) name
their tools with the same strings; ``tests/tools/test_names.py`` checks that the registry and this enum
agree, so a tool added or renamed in one place and not the other fails there.
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
