from __future__ import annotations

import pytest

from diagnosis.graph.status import (
    ComposerStatus,
    ExecutorStatus,
    GatekeeperStatus,
    PlannerMode,
    PlannerStatus,
    Verdict,
    VerifierStatus,
    min_verdict,
)
from diagnosis.models import Verdict as RunVerdict


@pytest.mark.parametrize(
    ("enum", "names"),
    [
        (PlannerStatus, ["COMPLETED", "INVALID_OUTPUT", "RETRYABLE_FAILED", "NON_RETRYABLE_FAILED"]),
        (VerifierStatus, ["COMPLETED", "INVALID_OUTPUT", "RETRYABLE_FAILED", "NON_RETRYABLE_FAILED"]),
        (ComposerStatus, ["COMPLETED", "INVALID_OUTPUT", "RETRYABLE_FAILED", "NON_RETRYABLE_FAILED"]),
        (ExecutorStatus, ["COMPLETED", "INVALID_OUTPUT", "TOOL_BLOCKED", "FAILED"]),
        (GatekeeperStatus, ["PASS", "LOW_CONFID", "REJECT"]),
        (Verdict, ["PASS", "LOW_CONFID", "REJECT"]),
        (PlannerMode, ["NORMAL", "EVIDENCE_GAP_ONLY"]),
    ],
)
def test_it_uses_the_seed_names_as_values(enum, names):
    assert [member.value for member in enum] == names
    assert [member.name for member in enum] == names


def test_it_matches_the_verdicts_stored_on_a_run():
    assert [verdict.value for verdict in Verdict] == RunVerdict.values


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        (("PASS", "LOW_CONFID"), Verdict.LOW_CONFID),
        ((Verdict.LOW_CONFID, Verdict.PASS), Verdict.LOW_CONFID),
        (("REJECT", "PASS"), Verdict.REJECT),
        (("LOW_CONFID", "REJECT"), Verdict.REJECT),
        (("PASS", "PASS"), Verdict.PASS),
        (("PASS",), Verdict.PASS),
    ],
)
def test_it_takes_the_weakest_verdict(verdicts, expected):
    assert min_verdict(*verdicts) is expected


def test_it_refuses_an_empty_or_unknown_verdict():
    with pytest.raises(ValueError, match="at least one"):
        min_verdict()
    with pytest.raises(ValueError):
        min_verdict(Verdict.PASS, "MAYBE")
