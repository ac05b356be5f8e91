"""Pure edge guards: the routing matrix of seed 000 §3 as functions of the state.

A guard only reads (through the never-raising typed reads) and returns a route key of
``topology.CONDITIONAL_ROUTES``; it never writes state; counters belong to the wrappers. Every status,
verdict or value a guard does not recognise falls through to ``"fallback"``: the graph fails closed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from diagnosis.graph.state import read_count, read_enum, read_mapping
from diagnosis.graph.status import (
    EVIDENCE_GAP_VERIFICATIONS,
    TECHNICAL_FAILURES,
    ExecutorStatus,
    GatekeeperStatus,
    StageStatus,
    Verdict,
    VerifierStatus,
)
from diagnosis.graph.topology import (
    MAX_EVIDENCE_RETRIES,
    MAX_TECHNICAL_RETRIES,
    ComposerRoute,
    ExecutorRoute,
    GatekeeperRoute,
    PlannerRoute,
    VerifierRoute,
)


def _stage_outcome(
    state: Mapping[str, Any], status_key: str, count_key: str
) -> Literal["completed", "retry", "fallback"]:
    """The rule planner, verifier and composer share: go on, retry once for a technical failure, or stop."""
    status = read_enum(state, status_key, StageStatus)
    if status is StageStatus.COMPLETED:
        return "completed"
    if status in TECHNICAL_FAILURES and read_count(state, count_key) < MAX_TECHNICAL_RETRIES:
        return "retry"
    return "fallback"


def route_after_planner(state: Mapping[str, Any]) -> PlannerRoute:
    outcome = _stage_outcome(state, "planner_status", "planner_retry_count")
    if outcome == "completed":
        return "executor"
    return "retry_planner" if outcome == "retry" else "fallback"


def route_after_executor(state: Mapping[str, Any]) -> ExecutorRoute:
    # The executor is never retried: a retry would re-run its tools (seed 000 §4).
    if read_enum(state, "executor_status", ExecutorStatus) is ExecutorStatus.COMPLETED:
        return "gatekeeper"
    return "fallback"


def route_after_gatekeeper(state: Mapping[str, Any]) -> GatekeeperRoute:
    status = read_enum(state, "gatekeeper_status", GatekeeperStatus)
    if status is GatekeeperStatus.PASS:
        return "verified_input"
    if status is GatekeeperStatus.LOW_CONFID and read_count(state, "verified_binding_count") > 0:
        return "verified_input"
    return "fallback"


def has_evidence_gap(verifier_output: Mapping[str, Any]) -> bool:
    """Whether a checked fact names something more evidence could settle (non-blank fact, gap verdict)."""
    facts = verifier_output.get("facts_checked")
    if not isinstance(facts, list):
        return False
    return any(
        isinstance(fact, Mapping)
        and isinstance(fact.get("fact"), str)
        and fact["fact"].strip() != ""
        and fact.get("verification") in EVIDENCE_GAP_VERIFICATIONS
        for fact in facts
    )


def evidence_retry_allowed(state: Mapping[str, Any]) -> bool:
    """Seed 002 §5: all five conditions, else a LOW_CONFID verdict goes straight to the composer.

    The ceiling condition is what "not caused by the ceiling" means: when the gatekeeper already capped
    the verdict at LOW_CONFID, more queries cannot lift it, so a retry would only spend budget.
    """
    return (
        read_enum(state, "verifier_status", VerifierStatus) is VerifierStatus.COMPLETED
        and read_enum(state, "effective_verdict", Verdict) is Verdict.LOW_CONFID
        and read_enum(state, "verifier_verdict_ceiling", Verdict) is Verdict.PASS
        and has_evidence_gap(read_mapping(state, "verifier_output"))
        and read_count(state, "evidence_retry_count") < MAX_EVIDENCE_RETRIES
    )


def route_after_verifier(state: Mapping[str, Any]) -> VerifierRoute:
    outcome = _stage_outcome(state, "verifier_status", "verifier_retry_count")
    if outcome != "completed":
        return "retry_verifier" if outcome == "retry" else "fallback"
    verdict = read_enum(state, "effective_verdict", Verdict)
    if verdict in (Verdict.PASS, Verdict.REJECT):
        return "composer"
    if verdict is Verdict.LOW_CONFID:
        return "evidence_retry" if evidence_retry_allowed(state) else "composer"
    return "fallback"


def route_after_composer(state: Mapping[str, Any]) -> ComposerRoute:
    outcome = _stage_outcome(state, "composer_status", "composer_retry_count")
    if outcome == "completed":
        return "end"
    return "retry_composer" if outcome == "retry" else "fallback"
