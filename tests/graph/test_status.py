from __future__ import annotations

import pytest

from config.choices import text_choices
from diagnosis.graph.status import (
    EVIDENCE_GAP_VERIFICATIONS,
    RELEASABLE_VERIFICATIONS,
    ComposerStatus,
    ExecutorStatus,
    GatekeeperStatus,
    PlannerMode,
    PlannerStatus,
    SemanticVerdict,
    StageStatus,
    Verdict,
    Verification,
    VerifierStatus,
    min_verdict,
)
from diagnosis.models import Verdict as RunVerdict
from tracing.models import StepOutcome


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
        (SemanticVerdict, ["RELEASE", "BLOCK"]),
    ],
)
def test_it_uses_the_seed_names_as_values(enum, names):
    assert [member.value for member in enum] == names
    assert [member.name for member in enum] == names


def test_it_names_the_verifications_of_the_verifier_contract():
    assert [verification.value for verification in Verification] == [
        "supported",
        "indirect_support",
        "no_evidence",
        "contradicted",
    ]
    assert {"supported", "indirect_support"} == RELEASABLE_VERIFICATIONS
    assert {"no_evidence", "indirect_support"} == EVIDENCE_GAP_VERIFICATIONS


def test_it_matches_the_verdicts_stored_on_a_run():
    assert [verdict.value for verdict in Verdict] == RunVerdict.values
    assert RunVerdict.choices == [("PASS", "Pass"), ("LOW_CONFID", "Low confidence"), ("REJECT", "Reject")]
    assert RunVerdict.LOW_CONFID == Verdict.LOW_CONFID and RunVerdict.LOW_CONFID.label == "Low confidence"


def test_step_outcomes_are_the_stage_and_executor_statuses_once_each():
    assert StepOutcome.values == list(dict.fromkeys([*StageStatus, *ExecutorStatus]))
    assert StepOutcome.values == [
        "COMPLETED",
        "INVALID_OUTPUT",
        "RETRYABLE_FAILED",
        "NON_RETRYABLE_FAILED",
        "TOOL_BLOCKED",
        "FAILED",
    ]


def test_choices_need_a_label_for_every_value_and_nothing_else():
    with pytest.raises(ValueError, match="no label for \\['REJECT'\\]"):
        text_choices("V", Verdict, {Verdict.PASS: "Pass", Verdict.LOW_CONFID: "Low"}, module=__name__)
    with pytest.raises(ValueError, match="unknown values \\['MAYBE'\\]"):
        text_choices(
            "V", Verdict, {**{verdict: verdict.title() for verdict in Verdict}, "MAYBE": "Maybe"}, module=__name__
        )


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
