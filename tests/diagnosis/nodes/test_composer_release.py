"""The release guard inside the composer's attempt: what it blocks, what it records where, and what stays private.

The guard's verdict decides the composer's status (a block is INVALID_OUTPUT with a specific reason), the
findings reach the retry and the restricted audit only, and the public rows (step summary, timeline) carry
rule names, never the draft's words.
"""

from __future__ import annotations

import json

import pytest

from diagnosis.graph.status import ComposerStatus
from diagnosis.nodes import composer
from diagnosis.nodes.release_review import release_summary
from diagnosis.providers.base import ErrorCode, ProviderError
from tests.diagnosis.nodes.conftest import FakeModel
from tracing.models import AgentReasoningAudit, AgentStep, DiagnosisTraceEvent

pytestmark = pytest.mark.django_db

VERIFIED = {
    "claims": [
        {
            "claim_id": "c1",
            "evidence": [
                {
                    "source_invocation_id": "i",
                    "tool_name": "query_logs",
                    "raw_path": "$.records[1].message",
                    "matched_text": "HikariPool-1 - Connection is not available, request timed out after 30000ms",
                }
            ],
        }
    ]
}
VERDICT = {
    "verdict": "PASS",
    "facts_checked": [
        {"claim_id": "c1", "fact": "payment-service logged HikariPool-1 timeouts", "verification": "supported"}
    ],
    "missing_info": [],
    "evidence_gaps": [],
    "recommended_actions": ["Raise the pool size of payment-service"],
}
STATE = {"effective_verdict": "PASS", "verified_executor_output": VERIFIED, "verifier_output": VERDICT}
HONEST = "payment-service requests timed out after 30000ms [c1].\n\n- Raise the pool size of payment-service"
INVENTED = "The database host of payment-service caught fire at 10:47 [c1]."
RELEASE = json.dumps({"verdict": "RELEASE", "unsupported": []})


def draft(markdown: str, cited: list[str] | None = None) -> str:
    return json.dumps({"answer_markdown": markdown, "cited_claim_ids": ["c1"] if cited is None else cited})


def compose(run, make_context, composer_replies, guard_replies=(), state=STATE):
    context = make_context(
        run, composer=FakeModel(list(composer_replies)), semantic_guard=FakeModel(list(guard_replies))
    )
    update = composer.compose(context, state, {})
    context.progress.flush()  # as the run does before it waits or ends: the node's reports are written
    return context, update


def timeline(run, kind):
    return list(DiagnosisTraceEvent.objects.filter(run=run, kind=kind).order_by("seq"))


def test_it_releases_a_grounded_draft_the_guard_accepts(run, make_context):
    context, update = compose(run, make_context, [draft(HONEST)], [RELEASE])

    assert update["composer_status"] == ComposerStatus.COMPLETED and update["final_answer"] == HONEST
    steps = list(AgentStep.objects.filter(run=run).order_by("seq"))
    assert [(step.role, step.outcome) for step in steps] == [("semantic_guard", "COMPLETED"), ("composer", "COMPLETED")]
    assert steps[0].prompt_version == "semantic-guard-v2" and steps[1].prompt_version == "composer-v4"
    [release] = timeline(run, "RELEASE")
    assert release.details == {
        "attempt": 1,
        "decision": "released",
        "rule": "passed",
        "rules": [],
        "policy_version": "release-policy-v1",
    }
    [semantic] = timeline(run, "SEMANTIC")
    assert semantic.details["verdict"] == "RELEASE" and semantic.details["unsupported"] == 0
    assert release_summary(context)["decisions"] == [
        {"attempt": 1, "decision": "released", "rule": "passed", "rules": []}
    ]


def test_the_released_answer_is_the_text_the_review_read_without_invisible_characters(run, make_context):
    """The review reads a draft without its format characters (zero-width spaces, bidi marks): the answer
    released is that text, not one holding characters no check read."""
    hidden = "payment\u200b-service requests timed out after 30000\u200bms [c1]."

    _, update = compose(run, make_context, [draft(hidden)], [RELEASE])

    assert update["composer_status"] == ComposerStatus.COMPLETED
    assert update["final_answer"] == "payment-service requests timed out after 30000ms [c1]."


def test_an_escape_or_emphasis_inside_a_word_is_refused(run, make_context):
    """The page joins what the checks read apart: ``10\\:10`` shows 10:10, ``30**0**00ms`` shows 30000ms; and a
    backslash before a zero-width space before a bracket was an escaped bracket to the review, a link on the
    page."""
    for markdown in (
        "payment-service requests timed out at 10\\:47 [c1].",
        "payment-service requests timed out after 30**0**00ms [c1].",
        "payment-service requests timed out after &#51;0000ms [c1].",
        "payment-service requests \\\u200b[timed out](x) after 30000ms [c1].",
    ):
        _, update = compose(run, make_context, [draft(markdown), draft(markdown)], [RELEASE, RELEASE])

        assert update["composer_status"] == ComposerStatus.INVALID_OUTPUT, markdown
        assert update["failure_reason"] == "release_policy_blocked", markdown


def test_guidance_copied_from_the_verifier_needs_no_marker_but_may_not_name_what_no_claim_holds(run, make_context):
    verdict = {**VERDICT, "recommended_actions": ["Restart db-host-7 of payment-service"]}
    state = {**STATE, "verifier_output": verdict}

    _, update = compose(
        run,
        make_context,
        [draft("payment-service timed out [c1].\n\n- Restart db-host-7 of payment-service")],
        state=state,
    )

    assert update["failure_reason"] == "release_policy_blocked"
    assert AgentReasoningAudit.objects.get(step__role="composer").findings[0]["detail"] == "db-host-7"


def test_a_policy_block_never_reaches_the_guard_and_keeps_the_draft_private(run, make_context):
    context, update = compose(run, make_context, [draft(INVENTED)])  # the guard has no reply: it must not be asked

    assert update == {"composer_status": ComposerStatus.INVALID_OUTPUT, "failure_reason": "release_policy_blocked"}
    step = AgentStep.objects.get(run=run)
    assert step.outcome == "INVALID_OUTPUT" and "ungrounded_token" in step.summary
    assert "caught fire" not in step.summary and "10:47" not in step.summary
    audit = AgentReasoningAudit.objects.get(step=step)
    assert "caught fire" in audit.assistant_text
    assert audit.findings[0]["rule"] == "ungrounded_token" and "10:47" in audit.findings[0]["detail"]
    [release] = timeline(run, "RELEASE")
    assert release.details["decision"] == "blocked" and release.details["rule"] == "ungrounded_token"
    assert "caught fire" not in json.dumps([event.details for event in DiagnosisTraceEvent.objects.filter(run=run)])
    assert context.release.last_findings == audit.findings


def test_a_guard_block_is_invalid_output_with_the_guards_findings(run, make_context):
    unsupported = [{"sentence": "payment-service requests timed out after 30000ms [c1].", "reason": "wrong subject"}]
    _, update = compose(
        run, make_context, [draft(HONEST)], [json.dumps({"verdict": "BLOCK", "unsupported": unsupported})]
    )

    assert update == {"composer_status": ComposerStatus.INVALID_OUTPUT, "failure_reason": "semantic_guard_blocked"}
    guard_step = AgentStep.objects.get(run=run, role="semantic_guard")
    assert guard_step.summary == "BLOCK: 1 unsupported sentence(s)"
    assert AgentReasoningAudit.objects.get(step=guard_step).findings == unsupported
    composer_audit = AgentReasoningAudit.objects.get(step__role="composer")
    assert composer_audit.findings == [
        {"rule": "semantic_guard", "sentence": unsupported[0]["sentence"], "detail": "wrong subject"}
    ]


@pytest.mark.parametrize(
    ("guard_reply", "failure"),
    [
        (ProviderError(ErrorCode.TIMEOUT, "read timed out"), "model_timeout"),
        (ProviderError(ErrorCode.SERVER_ERROR, "502"), "model_server_error"),
        ("not json", "invalid_output"),
        (json.dumps({"verdict": "MAYBE", "unsupported": []}), "invalid_output"),
        (json.dumps({"verdict": "RELEASE", "unsupported": [{"sentence": "x", "reason": "y"}]}), "invalid_output"),
    ],
    ids=["timeout", "server-error", "not-json", "unknown-verdict", "release-with-findings"],
)
def test_a_guard_that_fails_blocks_the_draft(run, make_context, guard_reply, failure):
    _, update = compose(run, make_context, [draft(HONEST)], [guard_reply])

    assert update == {"composer_status": ComposerStatus.INVALID_OUTPUT, "failure_reason": "semantic_guard_failed"}
    [release] = timeline(run, "RELEASE")
    assert (release.details["decision"], release.details["rules"]) == ("blocked", [failure])
    assert timeline(run, "SEMANTIC")[0].details["verdict"] == "FAILED"


def test_the_retry_is_told_why_the_first_draft_was_blocked(run, make_context):
    composer_model = FakeModel([draft(INVENTED), draft(HONEST)])
    context = make_context(run, composer=composer_model, semantic_guard=FakeModel([RELEASE]))

    first = composer.compose(context, STATE, {})
    second = composer.compose(context, {**STATE, "composer_retry_count": 1}, {})

    assert first["composer_status"] == ComposerStatus.INVALID_OUTPUT
    assert second["composer_status"] == ComposerStatus.COMPLETED
    sent = [json.loads(call[1]["content"])["release_findings"] for call in composer_model.calls]
    assert sent[0] == [] and sent[1][0]["rule"] == "ungrounded_token" and "caught fire" in sent[1][0]["sentence"]
    assert [item["decision"] for item in release_summary(context)["decisions"]] == ["blocked", "released"]


def test_a_draft_that_breaks_the_contract_is_not_reviewed(run, make_context):
    _, update = compose(run, make_context, ["no json at all"])

    assert update == {"composer_status": ComposerStatus.INVALID_OUTPUT}
    assert not timeline(run, "RELEASE") and not AgentStep.objects.filter(role="semantic_guard").exists()
