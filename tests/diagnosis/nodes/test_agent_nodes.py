"""Contract tests of the model-backed nodes: what each reads, what it writes, how statuses map."""

from __future__ import annotations

import dataclasses
import json

import pytest

from diagnosis.graph.status import ComposerStatus, ExecutorStatus, PlannerStatus, Verdict, VerifierStatus
from diagnosis.nodes import composer, executor, planner, verifier
from diagnosis.nodes.allowed import allowed_claims, grounded_fact
from diagnosis.providers.base import ErrorCode, ProviderError
from diagnosis.providers.deadline import Deadline
from tests.diagnosis.nodes.conftest import FakeModel, tool_call_reply
from tools.harness import MAX_ARGUMENTS_BYTES
from tracing.models import AgentReasoningAudit, AgentStep

pytestmark = pytest.mark.django_db

PLAN = {"mode": "NORMAL", "hypotheses": ["pool"], "steps": [{"tool": "query_logs", "purpose": "errors", "args": {}}]}
NO_EVIDENCE = {"schema": "executor_evidence_v2", "claims": [], "no_evidence_reason": "none", "completed_queries": []}
VERIFIED = {
    "claims": [
        {
            "claim_id": "c1",
            "evidence": [
                {
                    "source_invocation_id": "i",
                    "tool_name": "query_logs",
                    "raw_path": "$.records[1].message",
                    "matched_text": "pool exhausted",
                }
            ],
        }
    ]
}
VERDICT = {
    "verdict": "PASS",
    "facts_checked": [{"claim_id": "c1", "fact": "the pool is exhausted", "verification": "supported"}],
    "missing_info": [],
    "evidence_gaps": [],
    "recommended_actions": ["raise the pool size"],
}


def test_it_plans_and_records_one_step(run, make_context):
    model = FakeModel([json.dumps(PLAN)])

    update = planner.plan(make_context(run, planner=model), {"planner_mode": "NORMAL"}, {})

    assert update == {"planner_status": PlannerStatus.COMPLETED, "planner_plan": PLAN}
    step = AgentStep.objects.get(run=run)
    assert (step.node, step.attempt, step.outcome, step.prompt_tokens, step.prompt_version) == (
        "planner",
        1,
        "COMPLETED",
        10,
        "planner-v4",
    )
    user = json.loads(model.calls[0][1]["content"])
    assert user["task"] == "planner" and user["question"] == run.query and user["mode"] == "NORMAL"


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("not json", PlannerStatus.INVALID_OUTPUT),
        (json.dumps({**PLAN, "steps": []}), PlannerStatus.INVALID_OUTPUT),
        (json.dumps({**PLAN, "mode": "EVIDENCE_GAP_ONLY"}), PlannerStatus.INVALID_OUTPUT),
        (ProviderError(ErrorCode.RATE_LIMIT, "slow down"), PlannerStatus.RETRYABLE_FAILED),
        (ProviderError(ErrorCode.TIMEOUT, "late"), PlannerStatus.RETRYABLE_FAILED),
        (ProviderError(ErrorCode.BAD_REQUEST, "no"), PlannerStatus.NON_RETRYABLE_FAILED),
    ],
)
def test_it_maps_planner_failures_to_statuses(run, make_context, reply, status):
    update = planner.plan(make_context(run, planner=FakeModel([reply])), {"planner_mode": "NORMAL"}, {})

    assert update["planner_status"] == status
    assert "planner_plan" not in update
    assert AgentStep.objects.get(run=run).outcome == status


def test_it_keeps_reasoning_only_in_the_restricted_audit(run, make_context):
    from diagnosis.providers.base import ModelReply

    reply = ModelReply(content=json.dumps(PLAN), reasoning_content="secret chain of thought", model="m")
    planner.plan(make_context(run, planner=FakeModel([reply])), {"planner_mode": "NORMAL"}, {})

    audit = AgentReasoningAudit.objects.get(run=run)
    assert audit.reasoning_source == "PROVIDER" and audit.reasoning_content == "secret chain of thought"
    assert "secret" not in AgentStep.objects.get(run=run).summary


def test_it_runs_tools_through_the_harness_and_returns_the_report(run, make_context):
    model = FakeModel(
        [tool_call_reply(("query_logs", {"service": "x"}), ("no_such_tool", {})), json.dumps(NO_EVIDENCE)]
    )

    update = executor.execute(make_context(run, executor=model), {"planner_plan": PLAN}, {})

    assert update == {"executor_status": ExecutorStatus.COMPLETED, "executor_output": NO_EVIDENCE}
    # A name no tool has is the model's text: the trace records that it named none.
    assert list(run.tool_invocations.order_by("seq").values_list("tool_name", "status")) == [
        ("query_logs", "BLOCKED"),
        ("unknown_tool", "BLOCKED"),
    ]
    assert AgentStep.objects.get(run=run).summary == "no evidence (the model's reason is in the reasoning audit)"
    tool_messages = [m for m in model.calls[1] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["call_0", "call_1"]
    assert all("invocation_id" in json.loads(m["content"]) for m in tool_messages)


def test_refused_arguments_too_large_to_keep_are_not_sent_back_in_the_conversation(run, make_context):
    """Echoed whole, a call's megabyte of arguments would fill every later prompt of the attempt (and end
    the run blamed on its token budget)."""
    huge = {"service": "payment-service", "contains": "x" * MAX_ARGUMENTS_BYTES}
    model = FakeModel(
        [tool_call_reply(("query_logs", huge), ("query_logs", {"service": "x"})), json.dumps(NO_EVIDENCE)]
    )

    executor.execute(make_context(run, executor=model), {"planner_plan": PLAN}, {})

    (assistant,) = [m for m in model.calls[1] if m["role"] == "assistant"]
    assert [call["function"]["arguments"] for call in assistant["tool_calls"]] == ["{}", '{"service": "x"}']
    assert '"error_code": "arguments_too_large"' in next(m["content"] for m in model.calls[1] if m["role"] == "tool")


def test_a_call_past_the_turns_limit_is_not_echoed_whole_either(run, make_context):
    """Never run, it is never refused by the harness: its arguments are still not sent back whole."""
    calls = [("query_logs", {"service": "x"})] * executor.MAX_CALLS_PER_TURN
    huge = ("query_logs", {"service": "payment-service", "contains": "x" * MAX_ARGUMENTS_BYTES})
    model = FakeModel([tool_call_reply(*calls, huge), json.dumps(NO_EVIDENCE)])

    executor.execute(make_context(run, executor=model), {"planner_plan": PLAN}, {})

    (assistant,) = [m for m in model.calls[1] if m["role"] == "assistant"]
    assert assistant["tool_calls"][-1]["function"]["arguments"] == "{}"
    assert sum(len(json.dumps(m)) for m in model.calls[1]) < MAX_ARGUMENTS_BYTES


def test_it_reports_tool_blocked_when_refused_tools_end_without_a_report(run, make_context):
    model = FakeModel([tool_call_reply(("query_logs", {})), "I could not query anything"])

    update = executor.execute(make_context(run, executor=model), {"planner_plan": PLAN}, {})

    assert update == {"executor_status": ExecutorStatus.TOOL_BLOCKED}


def test_it_runs_no_tool_once_the_run_model_budget_is_spent(run, make_context):
    """No model call could read the results: the attempt fails as a model timeout, and the graph falls back."""
    model = FakeModel([tool_call_reply(("query_logs", {"service": "payment-service"}))])
    context = dataclasses.replace(make_context(run, executor=model), model_deadline=Deadline.after(0))

    update = executor.execute(context, {"planner_plan": PLAN}, {})

    assert update == {"executor_status": ExecutorStatus.FAILED, "failure_reason": "model_timeout"}
    assert not run.tool_invocations.exists()
    assert AgentStep.objects.get(run=run).summary == "the run's model budget is spent"


@pytest.mark.parametrize(
    ("replies", "status"),
    [
        (["{}"], ExecutorStatus.INVALID_OUTPUT),
        ([ProviderError(ErrorCode.SERVER_ERROR, "boom")], ExecutorStatus.FAILED),
        # Every call refused by the harness (no service), then no report: the tool layer blocked the attempt.
        ([tool_call_reply(("query_logs", {}))] * executor.MAX_TURNS, ExecutorStatus.TOOL_BLOCKED),
        (
            [
                tool_call_reply(
                    (
                        "query_logs",
                        {"service": "x", "start": "2026-10-14T09:30:00Z", "end": "2026-10-14T10:00:00Z", "limit": 10},
                    )
                )
            ]
            * executor.MAX_TURNS,
            ExecutorStatus.INVALID_OUTPUT,
        ),
    ],
    ids=["invalid", "model-error", "turns-exhausted-blocked", "turns-exhausted"],
)
def test_it_maps_executor_failures(run, make_context, replies, status):
    update = executor.execute(make_context(run, executor=FakeModel(list(replies))), {"planner_plan": PLAN}, {})

    assert update["executor_status"] == status


def test_the_last_turns_calls_are_not_run_since_no_model_call_would_read_them(run, make_context):
    """They would spend the run's tool calls, which the evidence round's executor needs, and its time."""
    call = ("query_logs", {"service": "x", "start": "2026-10-14T09:30:00Z", "end": "2026-10-14T10:00:00Z", "limit": 10})
    model = FakeModel([tool_call_reply(call, call)] * executor.MAX_TURNS)

    executor.execute(make_context(run, executor=model), {"planner_plan": PLAN}, {})

    assert len(model.calls) == executor.MAX_TURNS
    assert run.tool_invocations.count() == 2 * (executor.MAX_TURNS - 1)


def test_it_verifies_only_verified_input_and_caps_the_verdict(run, make_context):
    model = FakeModel([json.dumps(VERDICT)])
    state = {
        "verified_executor_output": VERIFIED,
        "verifier_verdict_ceiling": "LOW_CONFID",
        "executor_output": {"claims": [{"claim_id": "c1", "statement": "EXECUTOR FREE TEXT"}]},
    }

    update = verifier.verify(make_context(run, verifier=model), state, {})

    assert update["verifier_status"] == VerifierStatus.COMPLETED
    assert (update["verifier_model_verdict"], update["effective_verdict"]) == (Verdict.PASS, Verdict.LOW_CONFID)
    sent = model.calls[0][1]["content"]
    assert "pool exhausted" in sent and "EXECUTOR FREE TEXT" not in sent


def test_it_refuses_facts_about_unverified_claims_without_repeating_their_ids(run, make_context):
    """The unknown ids are the model's text, and the step's summary is public."""
    fact = {"fact": "made up", "verification": "supported"}
    ids = ["c9", "I think the DBA leaked pw hunter2"]
    lying = {**VERDICT, "facts_checked": [{"claim_id": claim_id, **fact} for claim_id in ids]}

    update = verifier.verify(
        make_context(run, verifier=FakeModel([json.dumps(lying)])),
        {"verified_executor_output": VERIFIED, "verifier_verdict_ceiling": "PASS"},
        {},
    )

    assert update == {"verifier_status": VerifierStatus.INVALID_OUTPUT}
    assert AgentStep.objects.get(run=run).summary == "facts about 2 claim(s) that were not verified"


COMPOSER_STATE = {"effective_verdict": "PASS", "verified_executor_output": VERIFIED, "verifier_output": VERDICT}


def test_it_releases_an_answer_citing_allowed_claims(run, make_context):
    model = FakeModel([json.dumps({"answer_markdown": "The pool is exhausted [c1].", "cited_claim_ids": ["c1"]})])
    guard = FakeModel([json.dumps({"verdict": "RELEASE", "unsupported": []})])

    update = composer.compose(make_context(run, composer=model, semantic_guard=guard), COMPOSER_STATE, {})

    assert update["composer_status"] == ComposerStatus.COMPLETED
    assert update["final_answer"] == "The pool is exhausted [c1]."
    sent = json.loads(model.calls[0][1]["content"])
    assert [claim["claim_id"] for claim in sent["allowed_claims"]] == ["c1"]


def test_a_fact_stating_a_number_its_excerpts_lack_cannot_carry_it_into_the_answer(run, make_context):
    """The verifier's fact is model text: "at 09:58" and "500 connections" are in no verified excerpt."""
    slip = {"claim_id": "c1", "fact": "the pool of 500 connections was exhausted at 09:58", "verification": "supported"}
    state = {**COMPOSER_STATE, "verifier_output": {**VERDICT, "facts_checked": [slip]}}
    draft = "The pool of 500 connections was exhausted at 09:58 [c1]."
    model = FakeModel([json.dumps({"answer_markdown": draft, "cited_claim_ids": ["c1"]})])

    update = composer.compose(make_context(run, composer=model), state, {})

    assert allowed_claims(state)[0]["fact"] == "pool exhausted"  # the claim speaks through its excerpt
    assert update == {"composer_status": ComposerStatus.INVALID_OUTPUT, "failure_reason": "release_policy_blocked"}
    assert "500" not in json.dumps(json.loads(model.calls[0][1]["content"])["allowed_claims"])


def test_a_fact_whose_numbers_its_excerpts_hold_is_kept_as_written():
    excerpts = ["db_pool_pending 44.0 at 2026-10-14T10:04:00Z", "active=10/10, waiting=36"]

    assert grounded_fact("pending rose to 44 at 10:04 with 36 waiting", excerpts) == (
        "pending rose to 44 at 10:04 with 36 waiting"
    )
    assert grounded_fact("pending rose to 45", excerpts) == excerpts[0]
    assert grounded_fact("waiting reached 36 s", excerpts) == excerpts[0]  # a unit is part of the claim
    # Quoted, or inside an identifier, a number is still a number the fact states.
    assert grounded_fact("max_connections is `500`", excerpts) == excerpts[0]
    assert grounded_fact('the disk filled at "09:58"', excerpts) == excerpts[0]
    assert grounded_fact("max_connections:500 was reached", excerpts) == excerpts[0]
    assert grounded_fact('"db_pool_pending 44.0" was logged', excerpts) == '"db_pool_pending 44.0" was logged'
    # A name the excerpt was cut from is the policy's to check, in the sentences that use it.
    assert grounded_fact("HikariPool-1 had 36 waiting", excerpts) == "HikariPool-1 had 36 waiting"


def test_a_fact_stating_a_date_or_ratio_its_excerpts_lack_speaks_through_its_excerpt():
    excerpts = ["active=10/10, waiting=36"]

    assert grounded_fact("10/10 connections busy", excerpts) == "10/10 connections busy"
    assert grounded_fact("50/50 connections busy", excerpts) == excerpts[0]
    assert grounded_fact("busy since 13.10.2026", excerpts) == excerpts[0]


def test_a_fact_stating_a_cause_its_excerpts_do_not_state_speaks_through_its_excerpt():
    excerpts = ["connection pool exhausted (HikariPool-1 active=10/10, waiting=36)"]

    assert (
        grounded_fact("The root cause is a DNS outage that made payment-service lose its database", excerpts)
        == (excerpts[0])
    )
    assert grounded_fact("the pool was exhausted because of a DNS outage", excerpts) == excerpts[0]
    assert grounded_fact("the connection pool was exhausted", excerpts) == "the connection pool was exhausted"
    runbook = ["Requests queue waiting for a connection because all ten are taken."]
    quoted = 'The runbook says: "Requests queue waiting for a connection because all ten are taken."'
    assert grounded_fact(quoted, runbook) == quoted  # the cause is the evidence's, quoted
    caused = ["Timeouts were caused by the exhausted pool."]
    assert grounded_fact("Timeouts were caused by the exhausted pool.", caused) == caused[0]  # a copy: its own words


def test_it_refuses_to_release_a_citation_of_a_claim_that_is_not_allowed(run, make_context):
    model = FakeModel([json.dumps({"answer_markdown": "DNS is broken [c2].", "cited_claim_ids": ["c1", "c2"]})])

    update = composer.compose(make_context(run, composer=model), COMPOSER_STATE, {})

    assert update == {"composer_status": ComposerStatus.INVALID_OUTPUT, "failure_reason": "release_policy_blocked"}


def test_it_allows_nothing_after_a_reject_verdict(run, make_context):
    model = FakeModel([json.dumps({"answer_markdown": "Pool [c1].", "cited_claim_ids": ["c1"]})])

    update = composer.compose(make_context(run, composer=model), {**COMPOSER_STATE, "effective_verdict": "REJECT"}, {})

    assert update == {"composer_status": ComposerStatus.INVALID_OUTPUT, "failure_reason": "release_policy_blocked"}
