"""The tool names: one enum that the contracts, the offline provider and the paths compare against."""

from __future__ import annotations

from tools.names import TOOL_NAMES, ToolName
from tools.registry import default_registry


def test_the_enum_names_exactly_the_registered_tools():
    assert [name.value for name in ToolName] == default_registry().names


def test_the_plain_names_follow_the_enum():
    assert TOOL_NAMES == ("lookup_knowledge", "query_logs", "query_metrics", "query_mysql")
    assert all(type(name) is str for name in TOOL_NAMES)
    assert [1, 2] not in TOOL_NAMES, "an unhashable value from a model must not raise"
