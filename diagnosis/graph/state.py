"""The graph state of seed 000 §2: 26 keys, replace by default, ``orchestration_events`` appended.

The state carries cross-node control data and structured results only: no prompts, no model thinking, no
raw tool payloads, no copy of another run. Routers and wrappers read it through the typed reads below,
which never raise: an absent key, ``None``, a wrong type or an unknown enum value yields a safe default,
and for a status that default is ``None``, which every router sends to the fallback.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any, TypedDict, TypeVar

from diagnosis.graph.status import PlannerMode


class DiagnosisState(TypedDict, total=False):
    # query, bounded history (query and conclusion of the session's last runs), session_id, run_id
    diagnosis_context: dict[str, Any]
    planner_plan: dict[str, Any] | None
    planner_status: str | None
    planner_retry_count: int
    planner_mode: str
    executor_output: dict[str, Any] | None
    executor_status: str | None
    gatekeeper_result: dict[str, Any] | None
    gatekeeper_status: str | None
    verified_executor_output: dict[str, Any] | None
    verified_evidence: list[dict[str, Any]] | None
    verified_binding_count: int
    verifier_verdict_ceiling: str | None
    verifier_output: dict[str, Any] | None
    verifier_status: str | None
    verifier_retry_count: int
    verifier_model_verdict: str | None
    effective_verdict: str | None
    composer_output: dict[str, Any] | None
    composer_status: str | None
    composer_retry_count: int
    evidence_retry_count: int
    retry_context: dict[str, Any] | None
    # The only appended key: one event per node attempt, bounded by the counters and the recursion limit.
    orchestration_events: Annotated[list[dict[str, Any]], operator.add]
    final_answer: str | None
    failure_reason: str | None


E = TypeVar("E", bound=StrEnum)


def read_enum(state: Mapping[str, Any], key: str, enum_type: type[E]) -> E | None:
    """The enum member stored under ``key``, or ``None`` when it is absent, not a string or unknown."""
    value = state.get(key)
    if not isinstance(value, str):
        return None
    try:
        return enum_type(value)
    except ValueError:
        return None


def read_count(state: Mapping[str, Any], key: str) -> int:
    """A non-negative counter; anything else reads as 0.

    Clamping matters for termination: wrappers increment what they read, so a corrupt negative counter
    becomes 1 after one retry instead of buying extra loops.
    """
    value = state.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return max(value, 0)


def read_mapping(state: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = state.get(key)
    return value if isinstance(value, Mapping) else {}


def read_text(state: Mapping[str, Any], key: str) -> str:
    value = state.get(key)
    return value if isinstance(value, str) else ""


def read_planner_mode(state: Mapping[str, Any]) -> PlannerMode:
    return read_enum(state, "planner_mode", PlannerMode) or PlannerMode.NORMAL


def read_events(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The events appended so far (dicts only; the wrappers never store anything else)."""
    value = state.get("orchestration_events")
    if not isinstance(value, list):
        return []
    return [event for event in value if isinstance(event, dict)]


def initial_state(diagnosis_context: Mapping[str, Any]) -> DiagnosisState:
    """The state a run starts from: every key present, counters 0, mode NORMAL, no events.

    ``diagnosis_context`` must carry a non-blank ``query``; the rest (history, session_id, run_id) is the
    caller's business and is copied as given.
    """
    if not isinstance(diagnosis_context, Mapping):
        raise TypeError(f"diagnosis_context must be a mapping, got {type(diagnosis_context).__name__}")
    query = diagnosis_context.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValueError("diagnosis_context needs a non-blank 'query'")
    return DiagnosisState(
        diagnosis_context=dict(diagnosis_context),
        planner_plan=None,
        planner_status=None,
        planner_retry_count=0,
        planner_mode=PlannerMode.NORMAL.value,
        executor_output=None,
        executor_status=None,
        gatekeeper_result=None,
        gatekeeper_status=None,
        verified_executor_output=None,
        verified_evidence=None,
        verified_binding_count=0,
        verifier_verdict_ceiling=None,
        verifier_output=None,
        verifier_status=None,
        verifier_retry_count=0,
        verifier_model_verdict=None,
        effective_verdict=None,
        composer_output=None,
        composer_status=None,
        composer_retry_count=0,
        evidence_retry_count=0,
        retry_context=None,
        orchestration_events=[],
        final_answer=None,
        failure_reason=None,
    )
