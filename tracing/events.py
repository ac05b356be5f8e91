"""The names of timeline events (``diagnosis_trace_event.name``): the one definition writers and readers share.

Node progress events are named ``<node>_<phase>`` (``planner_started``) by ``RunProgress.status``; every
other event has a fixed name from this enum.
"""

from __future__ import annotations

from enum import StrEnum


class TimelineEvent(StrEnum):
    INTENT_ROUTED = "intent_routed"
    CLAIMED = "claimed"
    CANCEL_REQUESTED = "cancel_requested"
    """Someone asked the run to stop (``by``: owner or staff); it ends FAILED ``cancelled``."""
    NODE_FINISHED = "node_finished"
    """One graph node attempt ended; the reaper rebuilds a partial orchestration trace from these."""
    TOOL_CALLED = "tool_called"
    EVIDENCE_CHECKED = "evidence_checked"
    SEMANTIC_GUARD_REVIEWED = "semantic_guard_reviewed"
    RELEASE_DECIDED = "release_decided"
    ANSWER_RELEASED = "answer_released"
    FAILED = "failed"
