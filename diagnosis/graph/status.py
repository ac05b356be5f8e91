"""The status vocabularies of seed 000 §2: the values nodes write and routers read.

This is the one definition of the diagnosis vocabularies: node statuses, verdicts, the verifier's
verifications and the semantic guard's verdicts. The node contracts (``diagnosis/contracts.py``),
the Django ``choices`` (``diagnosis/models.py``, ``tracing/models.py``) and the offline provider derive
from these enums instead of repeating their values.

They are ``StrEnum``s whose values equal the seed's names, so a status stored in the graph state, an event
outcome and a database column all hold the same plain string.
"""

from __future__ import annotations

from enum import StrEnum

# Node outcomes are also what every audit row records, so they are defined in the lower layer, tracing;
# the graph reads them from there (and re-exports them, so its callers need not know).
from tracing.outcomes import ExecutorStatus as ExecutorStatus
from tracing.outcomes import StageStatus as StageStatus

PlannerStatus = StageStatus
VerifierStatus = StageStatus
ComposerStatus = StageStatus

#: The technical failures that earn one retry with the same input (seed 000 §3).
TECHNICAL_FAILURES = frozenset({StageStatus.INVALID_OUTPUT, StageStatus.RETRYABLE_FAILED})


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


class Verification(StrEnum):
    """How the verifier judges one fact against its verified excerpts (the contract's ``verification``)."""

    SUPPORTED = "supported"
    INDIRECT_SUPPORT = "indirect_support"
    NO_EVIDENCE = "no_evidence"
    CONTRADICTED = "contradicted"


#: Verifications that let a claim be released by the composer.
RELEASABLE_VERIFICATIONS = frozenset({Verification.SUPPORTED, Verification.INDIRECT_SUPPORT})

#: Verifications that mean "more evidence could settle it" (seed 002 §5): an evidence gap.
EVIDENCE_GAP_VERIFICATIONS = frozenset({Verification.NO_EVIDENCE, Verification.INDIRECT_SUPPORT})


class SemanticVerdict(StrEnum):
    """The SemanticGuard's verdict on a whole draft: released as it is, or blocked (seed 003 §3)."""

    RELEASE = "RELEASE"
    BLOCK = "BLOCK"
