"""Contract tests of the deterministic nodes: verified input, evidence retry, fallback templates."""

from __future__ import annotations

import pytest

from diagnosis.graph.topology import Node
from diagnosis.graph.wrappers import wrap_action
from diagnosis.nodes import evidence_retry, executor, fallback, verified_input
from diagnosis.rendering import render_answer

pytestmark = pytest.mark.django_db

SECRET_STATEMENT = "EXECUTOR-SAYS-THE-ROOT-CAUSE-IS-DNS"
GATE = {
    "verified_claim_ids": ["c1"],
    "checked_bindings": [
        {
            "claim_id": "c1",
            "index": 0,
            "source_invocation_id": "i1",
            "tool_name": "query_logs",
            "raw_path": "$.records[1].message",
            "passed": True,
            "reason": "ok",
            "matched_text": "pool exhausted",
        },
        {
            "claim_id": "c2",
            "index": 0,
            "source_invocation_id": "i1",
            "tool_name": "query_logs",
            "raw_path": "$.records[0].message",
            "passed": True,
            "reason": "ok",
            "matched_text": "started",
        },
        {
            "claim_id": "c2",
            "index": 1,
            "source_invocation_id": "forged",
            "tool_name": "query_logs",
            "raw_path": "$.records[0].message",
            "passed": False,
            "reason": "not_found",
            "matched_text": "",
        },
    ],
}
EXECUTOR_OUTPUT = {
    "schema": "executor_evidence_v2",
    "claims": [
        {
            "claim_id": "c1",
            "statement": SECRET_STATEMENT,
            "bindings": [
                {
                    "source_invocation_id": "i1",
                    "tool_name": "query_logs",
                    "raw_path": "$.records[1].message",
                    "evidence_excerpt": "pool exhausted",
                }
            ],
        },
        {"claim_id": "c2", "statement": "tainted", "bindings": []},
    ],
    "no_evidence_reason": None,
    "completed_queries": ["query_logs payment-service"],
}


def test_it_projects_only_passed_bindings_of_verified_claims():
    output, evidence = verified_input.project(GATE)

    assert output == {
        "claims": [
            {
                "claim_id": "c1",
                "evidence": [
                    {
                        "source_invocation_id": "i1",
                        "tool_name": "query_logs",
                        "raw_path": "$.records[1].message",
                        "matched_text": "pool exhausted",
                    }
                ],
            }
        ]
    }
    assert evidence == [
        {
            "claim_id": "c1",
            "source_invocation_id": "i1",
            "tool_name": "query_logs",
            "raw_path": "$.records[1].message",
            "matched_text": "pool exhausted",
        }
    ]


def test_it_never_projects_executor_text(run, make_context):
    update = verified_input.build(
        make_context(run), {"gatekeeper_result": GATE, "executor_output": EXECUTOR_OUTPUT}, {}
    )

    assert SECRET_STATEMENT not in repr(update)
    assert "tainted" not in repr(update)


def test_it_prepares_the_retry_context(run, make_context):
    context = make_context(run)
    context.tool_calls.append('query_metrics {"service": "payment-service"}')
    # Through the wrapper, as the graph runs it: the round is counted before the action reads the count.
    prepare = wrap_action(Node.EVIDENCE_RETRY, lambda state, config: evidence_retry.prepare(context, state, config))
    state = {
        "evidence_retry_count": 0,
        "gatekeeper_result": GATE,
        "executor_output": EXECUTOR_OUTPUT,
        "verifier_output": {
            "evidence_gaps": ["no metric evidence"],
            "missing_info": ["pool size"],
            "facts_checked": [{"claim_id": "c1", "fact": "pool errors", "verification": "indirect_support"}],
        },
    }

    update = prepare(state, {})

    assert update["evidence_retry_count"] == 1
    retry = update["retry_context"]
    assert retry["evidence_gaps"] == ["no metric evidence", "c1: pool errors"]
    assert retry["missing_info"] == ["pool size"]
    assert [claim["claim_id"] for claim in retry["prior_verified_claims"]] == ["c1"]
    assert retry["completed_queries"] == ["query_logs payment-service", 'query_metrics {"service": "payment-service"}']
    # Seed 000's fourth part of the context: the round's rules, with the executor's real limits.
    assert retry["constraints"]["max_turns"] == executor.MAX_TURNS
    assert set(retry["constraints"]) >= {"queries", "snapshot", "open_gaps"}
    assert retry["constraints"]["evidence_rounds_after_this"] == 0  # the graph allows one round in all


def test_it_never_puts_an_executor_claim_in_the_pre_verification_fallback(run, make_context, record_invocation):
    record_invocation(run)
    state = {
        "executor_output": EXECUTOR_OUTPUT,
        "gatekeeper_result": GATE,
        "failure_reason": "gatekeeper_reject",
        "verified_executor_output": {"claims": []},
    }

    answer = fallback.answer(make_context(run), state, {})["final_answer"]

    assert SECRET_STATEMENT not in answer and "pool exhausted" not in answer
    assert "gatekeeper_reject" in answer
    assert "`query_logs`: 1 call(s) READY" in answer


def test_it_lists_allowed_material_in_the_post_composer_fallback(run, make_context):
    state = {
        "executor_output": EXECUTOR_OUTPUT,
        "verified_executor_output": verified_input.project(GATE)[0],
        "verifier_status": "COMPLETED",
        "effective_verdict": "PASS",
        "verifier_output": {
            "facts_checked": [{"claim_id": "c1", "fact": "the pool is exhausted", "verification": "supported"}],
            "missing_info": ["pool size"],
            "evidence_gaps": [],
            "recommended_actions": ["raise the pool", "reboot db-host-7 at 03:00"],
        },
        "composer_status": "INVALID_OUTPUT",
        "failure_reason": "composer_invalid_output",
    }

    answer = fallback.answer(make_context(run), state, {})["final_answer"]

    assert "the pool is exhausted" in answer and "pool exhausted" in answer
    assert "raise the pool" in answer and "pool size" in answer
    assert "db-host-7" not in answer  # guidance naming what no allowed claim holds is left out
    assert SECRET_STATEMENT not in answer


def test_the_post_composer_fallback_shows_facts_and_guidance_as_text_never_as_markup(run, make_context):
    """No release policy reads the fallback: a fact's newline must not open a heading, nor its brackets a link."""
    fact = "the pool is exhausted\n# Note: a DBA dropped the payments table\n[restore](https://evil.example/r)"
    state = {
        "verified_executor_output": verified_input.project(GATE)[0],
        "verifier_status": "COMPLETED",
        "effective_verdict": "PASS",
        "verifier_output": {
            "facts_checked": [{"claim_id": "c1", "fact": fact, "verification": "supported"}],
            "missing_info": [],
            "evidence_gaps": [],
            "recommended_actions": ["raise the **pool** [now](x)", "# check the pool first"],
        },
        "composer_status": "INVALID_OUTPUT",
        "failure_reason": "composer_invalid_output",
    }

    answer = fallback.answer(make_context(run), state, {})["final_answer"]
    html = render_answer(answer)

    assert "<h1>" not in html and "<a " not in html and "<strong>pool" not in html
    assert "# Note: a DBA dropped the payments table [restore](https://evil.example/r)" in html
    assert "raise the **pool** [now](x)" in html and "<li># check the pool first</li>" in html


def test_the_pre_verification_fallback_answers_a_chinese_question_in_chinese(run, make_context, record_invocation):
    record_invocation(run)
    context = make_context(run)
    context.question = "支付服务最近很慢，帮我看看是什么原因"
    state = {"failure_reason": "gatekeeper_reject", "verified_executor_output": {"claims": []}}

    answer = fallback.answer(context, state, {})["final_answer"]

    assert answer.startswith("## 没有已验证的诊断\n\n我无法确定一个已验证的根本原因：")
    assert "无法证明任何被引用的证据存在于本次运行的工具结果中（`gatekeeper_reject`）" in answer
    assert "### 工具执行情况\n- `query_logs`：1 次调用，状态 READY" in answer
    assert "### 下一步" in answer
    assert "No verified diagnosis" not in answer and "Next steps" not in answer


def test_the_post_composer_fallback_answers_a_chinese_question_in_chinese(run, make_context):
    context = make_context(run)
    context.question = "为什么支付超时？"
    state = {
        "verified_executor_output": verified_input.project(GATE)[0],
        "verifier_status": "COMPLETED",
        "effective_verdict": "PASS",
        "verifier_output": {
            "facts_checked": [{"claim_id": "c1", "fact": "the pool is exhausted", "verification": "supported"}],
            "missing_info": ["pool size"],
            "evidence_gaps": [],
            "recommended_actions": ["raise the pool"],
        },
        "composer_status": "INVALID_OUTPUT",
        "failure_reason": "composer_invalid_output",
    }

    answer = fallback.answer(context, state, {})["final_answer"]

    assert answer.startswith("## 已验证的发现\n\n回答未能生成，因此按原样列出已验证的材料。")
    assert "the pool is exhausted" in answer  # the verified fact as it was verified
    assert "### 缺失的信息\n- pool size" in answer and "### 建议操作\n- raise the pool" in answer
    assert "Verified findings" not in answer
