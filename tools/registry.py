"""The set of tools the model gets. What one tool is lives in ``tools.tool`` (re-exported here).

The harness owns everything around a call (budgets, recording, storing), so adding a tool never touches
the harness: define it under ``tools.definitions`` and list it in ``ALL_TOOLS``.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property, lru_cache
from typing import Any

from tools.definitions import ALL_TOOLS
from tools.tool import CallContext, Handler, Projector, Tool, ToolOutput

__all__ = [
    "CallContext",
    "Handler",
    "Projector",
    "Tool",
    "ToolOutput",
    "ToolRegistry",
    "default_registry",
    "tool_specs",
]


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"tool {tool.name!r} is defined twice")
            self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    @cached_property
    def names(self) -> list[str]:
        return sorted(self._tools)

    def specs(self) -> list[dict[str, Any]]:
        return [self._tools[name].spec() for name in self.names]


@lru_cache(maxsize=1)
def default_registry() -> ToolRegistry:
    """The four tools of DESIGN.md."""
    return ToolRegistry(ALL_TOOLS)


def tool_specs() -> list[dict[str, Any]]:
    """The function definitions an agent passes to the model."""
    return default_registry().specs()
