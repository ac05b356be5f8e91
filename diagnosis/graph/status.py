"""The status vocabularies of seed 000 §2: the values nodes write and routers read.

They are ``StrEnum``s whose values equal the seed's names, so a status stored in the graph state, an event
outcome and a database column all hold the same plain string.
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


PlannerStatus = StageStatus
VerifierStatus = StageStatus
ComposerStatus = StageStatus

#: The technical failures that earn one retry with the same input (seed 000 §3).
TECHNICAL_FAILURES = frozenset({StageStatus.INVALID_OUTPUT, StageStatus.RETRYABLE_FAILED})


class ExecutorStatus(StrEnum):
    """Executor outcome by output contract (seed 000 §5): any valid ``executor_evidence_v2`` is COMPLETED."""

    COMPLETED = "COMPLETED"
    INVALID_OUTPUT = "INVALID_OUTPUT"
    TOOL_BLOCKED = "TOOL_BLOCKED"
    FAILED = "FAILED"


class GatekeeperStatus(StrEnum):
    """The deterministic binding check, normalised fail-closed (seed 000 §6)."""

    PASS = "PASS"
    LOW_CONFID = "LOW_CONFID"
    REJECT = "REJECT"


class Verdict(StrEnum):
    """Verifier verdicts, strongest first; the effective verdict never exceeds the gatekeeper ceiling."""

    PASS = "PASS"
    LOW_CONFID = "LOW_CONFID"
    REJECT = "REJECT"


_VERDICT_STRENGTH = {Verdict.REJECT: 0, Verdict.LOW_CONFID: 1, Verdict.PASS: 2}


def min_verdict(*verdicts: Verdict) -> Verdict:
    """The weakest of ``verdicts``: how a model PASS is capped by a LOW_CONFID ceiling (seed 000 §6)."""
    if not verdicts:
        raise ValueError("min_verdict needs at least one verdict")
    return min((Verdict(verdict) for verdict in verdicts), key=_VERDICT_STRENGTH.__getitem__)


class PlannerMode(StrEnum):
    """NORMAL plans the whole diagnosis; EVIDENCE_GAP_ONLY plans only queries for the verifier's gaps."""

    NORMAL = "NORMAL"
    EVIDENCE_GAP_ONLY = "EVIDENCE_GAP_ONLY"
