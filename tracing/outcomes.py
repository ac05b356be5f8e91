"""Node outcomes (seed 000 §2): what a node attempt ended as, in the graph state and in every audit row.

Plain ``StrEnum``s without Django, so the graph (``diagnosis/graph/status.py`` re-exports them) and the
``agent_step.outcome`` choices (``tracing/models.py``) share one definition from the lower layer.
"""

from __future__ import annotations

from enum import StrEnum


class StageStatus(StrEnum):
    """Outcome of a model-backed stage that may be retried once for a technical failure.

    Planner, Verifier and Composer share this vocabulary (seed 000 §2 lists identical values for the
    three); the aliases below keep call sites readable without three copies of the same enum.
    """

    COMPLETED = "COMPLETED"
    INVALID_OUTPUT = "INVALID_OUTPUT"
    RETRYABLE_FAILED = "RETRYABLE_FAILED"
    NON_RETRYABLE_FAILED = "NON_RETRYABLE_FAILED"


class ExecutorStatus(StrEnum):
    """Executor outcome by output contract (seed 000 §5): any valid ``executor_evidence_v2`` is COMPLETED."""

    COMPLETED = "COMPLETED"
    INVALID_OUTPUT = "INVALID_OUTPUT"
    TOOL_BLOCKED = "TOOL_BLOCKED"
    FAILED = "FAILED"
