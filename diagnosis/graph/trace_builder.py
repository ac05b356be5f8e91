"""The orchestration trace of seed 002 §7: a run's attempt events compressed into a route summary.

Pure: it reads the events the graph appended and the state's ``evidence_retry_count`` and returns value
objects; saving them to ``diagnosis_run.orchestration_trace`` is the caller's job. The route comes from
the events only, never from logs, and the state keeps no second list of transitions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from diagnosis.graph.topology import Node

TRACE_VERSION = "stategraph-v1"
EVENT_KEYS = frozenset({"node", "outcome", "reason_code", "attempt"})


class InvalidTraceError(ValueError):
    """The events cannot form a trace: none at all, or one that breaks the event contract."""


def _require_text(name: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidTraceError(f"{name} must be a non-blank string, got {value!r}")


@dataclass(frozen=True)
class OrchestrationEvent:
    """The terminal event of one node attempt; whitelisted fields only, so no raw text reaches the trace."""

    node: str
    outcome: str
    reason_code: str
    attempt: int

    def __post_init__(self) -> None:
        _require_text("node", self.node)
        _require_text("outcome", self.outcome)
        _require_text("reason_code", self.reason_code)
        if isinstance(self.attempt, bool) or not isinstance(self.attempt, int) or self.attempt < 1:
            raise InvalidTraceError(f"attempt must be an integer >= 1, got {self.attempt!r}")

    @classmethod
    def from_dict(cls, raw: object) -> OrchestrationEvent:
        if not isinstance(raw, Mapping):
            raise InvalidTraceError(f"an event must be a mapping, got {type(raw).__name__}")
        if set(raw) != EVENT_KEYS:
            raise InvalidTraceError(f"an event has exactly the keys {sorted(EVENT_KEYS)}, got {sorted(map(str, raw))}")
        return cls(node=raw["node"], outcome=raw["outcome"], reason_code=raw["reason_code"], attempt=raw["attempt"])

    def to_dict(self) -> dict[str, Any]:
        return {"node": self.node, "outcome": self.outcome, "reason_code": self.reason_code, "attempt": self.attempt}


@dataclass(frozen=True)
class OrchestrationTransition:
    """One edge taken; its reason and attempt are those of the source node's attempt."""

    source: str
    target: str
    reason_code: str
    attempt: int

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.source, "to": self.target, "reason_code": self.reason_code, "attempt": self.attempt}


@dataclass(frozen=True)
class OrchestrationTrace:
    transitions: tuple[OrchestrationTransition, ...]
    final_node: str | None
    termination_reason: str
    # True iff the run ended in the fallback; answer quality otherwise shows in the effective verdict.
    degraded: bool
    evidence_retry_count: int

    def to_dict(self) -> dict[str, Any]:
        """The frozen JSON shape stored in ``diagnosis_run.orchestration_trace`` (seed 004 §6)."""
        return {
            "version": TRACE_VERSION,
            "transitions": [transition.to_dict() for transition in self.transitions],
            "final_node": self.final_node,
            "termination_reason": self.termination_reason,
            "degraded": self.degraded,
            "evidence_retry_count": self.evidence_retry_count,
        }


def _parse(events: Sequence[object]) -> list[OrchestrationEvent]:
    if isinstance(events, (str, bytes)) or not isinstance(events, Sequence):
        raise InvalidTraceError(f"events must be a list, got {type(events).__name__}")
    parsed = []
    for index, raw in enumerate(events):
        try:
            parsed.append(OrchestrationEvent.from_dict(raw))
        except InvalidTraceError as exc:
            raise InvalidTraceError(f"events[{index}]: {exc}") from exc
    return parsed


def _transitions(events: Sequence[OrchestrationEvent], then: str | None = None) -> tuple[OrchestrationTransition, ...]:
    """Edges between adjacent events, and from the last event to ``then`` when a node followed it."""
    targets = [event.node for event in events[1:]]
    if then is not None:
        targets.append(then)
    # Not strict: without ``then`` the last event has no successor, and with no events there is no edge.
    return tuple(
        OrchestrationTransition(source.node, target, source.reason_code, source.attempt)
        for source, target in zip(events, targets, strict=False)
    )


def _check_count(evidence_retry_count: object) -> int:
    if isinstance(evidence_retry_count, bool) or not isinstance(evidence_retry_count, int) or evidence_retry_count < 0:
        raise InvalidTraceError(f"evidence_retry_count must be an integer >= 0, got {evidence_retry_count!r}")
    return evidence_retry_count


def build_trace(events: Sequence[object], *, evidence_retry_count: int) -> OrchestrationTrace:
    """The trace of a run that ended: at least one event, the last one names where and why it ended.

    ``termination_reason`` is ``<final node>_<its reason code>``: ``composer_completed``, or for a degraded
    run ``fallback_<cause>`` (the fallback's reason code already names the failing node and its reason).
    """
    count = _check_count(evidence_retry_count)
    parsed = _parse(events)
    if not parsed:
        raise InvalidTraceError("a finished run has at least one event")
    last = parsed[-1]
    return OrchestrationTrace(
        transitions=_transitions(parsed),
        final_node=last.node,
        termination_reason=f"{last.node}_{last.reason_code}",
        degraded=last.node == Node.FALLBACK,
        evidence_retry_count=count,
    )


def build_partial_trace(
    events: Sequence[object],
    *,
    evidence_retry_count: int | None = None,
    failed_node: str | None = None,
    termination_reason: str | None = None,
) -> OrchestrationTrace:
    """The best-effort trace of a run that did not end (seed 000 §3, last row): the events completed so far.

    ``failed_node`` is the node whose attempt raised, when known; it becomes the final node, reached by a
    last transition from the event before it. ``termination_reason`` defaults to ``<failed_node>_error``,
    or ``graph_error`` when no node is named; a caller that knows better names it (``worker_lost``).
    Without the state (a reaped run), ``evidence_retry_count`` is the number of evidence_retry events.
    """
    parsed = _parse(events)
    if evidence_retry_count is None:
        evidence_retry_count = sum(event.node == Node.EVIDENCE_RETRY for event in parsed)
    count = _check_count(evidence_retry_count)
    if failed_node is not None:
        _require_text("failed_node", failed_node)
    if termination_reason is None:
        termination_reason = f"{failed_node}_error" if failed_node else "graph_error"
    _require_text("termination_reason", termination_reason)
    final_node = failed_node or (parsed[-1].node if parsed else None)
    return OrchestrationTrace(
        transitions=_transitions(parsed, then=failed_node),
        final_node=final_node,
        termination_reason=termination_reason,
        degraded=final_node == Node.FALLBACK,
        evidence_retry_count=count,
    )
