"""The one controlled way for a path to end a run FAILED."""

from __future__ import annotations

from typing import Any


class RunFailure(Exception):
    """No safe answer can be produced; the run is FAILED with ``code`` and, for graph runs, a partial trace."""

    def __init__(self, code: str, message: str, orchestration_trace: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.orchestration_trace = code, message, orchestration_trace


KNOWLEDGE_SEARCH_FAILED = "knowledge_search_failed"
"""A knowledge question's search failed (its tool call was not READY): no answer may say the base has nothing."""
