"""A whole diagnosis through the real ``openai`` SDK against a loopback OpenAI-compatible server.

The server plays the four agents and the semantic guard; the executor's final answer is built from the
tool result the server received, so the citation is real and passes the gatekeeper, and the honest draft
passes the release policy. Reasoning the server returns lands in the restricted audit only.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from diagnosis.models import DiagnosisRun
from tests.support.fake_openai import FakeOpenAIServer, FakeResponse, RecordedRequest, chat_completion
from tracing.models import AgentReasoningAudit, AgentStep

pytestmark = pytest.mark.django_db

QUESTION = "payment-service p99 latency tripled since 10:05, why?"
LOGS_ARGS = {
    "service": "payment-service",
    "level": "ERROR",
    "contains": "HikariPool-1",
    "start": "2026-10-14T09:30:00Z",
    "end": "2026-10-14T10:45:00Z",
    "limit": 5,
}
SECRET_REASONING = "private chain of thought 7f3a"


def reply(**kwargs) -> FakeResponse:
    return FakeResponse(body=chat_completion(**kwargs))


def executor_report(request: RecordedRequest) -> FakeResponse:
    """Cite the first record of the tool result the client just sent back, as a real model would."""
    tool_message = next(m for m in reversed(request.json["messages"]) if m["role"] == "tool")
    projection = json.loads(tool_message["content"])
    record = projection["records"][0]
    report = {
        "schema": "executor_evidence_v2",
        "claims": [
            {
                "claim_id": "c1",
                "statement": "payment-service runs out of connections",
                "bindings": [
                    {
                        "source_invocation_id": projection["invocation_id"],
                        "tool_name": "query_logs",
                        "raw_path": record["raw_path"],
                        "evidence_excerpt": "Connection is not available",
                    }
                ],
            }
        ],
        "no_evidence_reason": None,
        "completed_queries": ["query_logs payment-service ERROR"],
    }
    return reply(content=json.dumps(report))


def test_it_diagnoses_through_the_openai_provider(settings):
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    plan = {
        "mode": "NORMAL",
        "hypotheses": ["pool exhausted"],
        "steps": [{"tool": "query_logs", "purpose": "errors", "args": LOGS_ARGS}],
    }
    verdict = {
        "verdict": "PASS",
        "facts_checked": [
            {"claim_id": "c1", "fact": "HikariPool-1 has no free connection", "verification": "supported"}
        ],
        "missing_info": [],
        "evidence_gaps": [],
        "recommended_actions": [],
    }
    answer = {"answer_markdown": "HikariPool-1 has no free connection [c1].", "cited_claim_ids": ["c1"]}
    with FakeOpenAIServer() as server:
        server.enqueue(
            reply(content=json.dumps(plan), reasoning_content=SECRET_REASONING),
            reply(tool_calls=[{"id": "call_1", "name": "query_logs", "arguments": json.dumps(LOGS_ARGS)}]),
            executor_report,
            FakeResponse(status=429, body={"error": {"message": "slow down"}}, headers={"Retry-After": "0"}),
            reply(content=json.dumps(verdict)),
            reply(content=json.dumps(answer)),
            reply(content=json.dumps({"verdict": "RELEASE", "unsupported": []})),
        )
        settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_API_KEY = server.base_url, "fake-model", "sk-test"
        out = StringIO()
        call_command("diagnose", QUESTION, "--provider", "openai", "--json", stdout=out)
        requests = server.requests

    result = json.loads(out.getvalue())
    assert (result["status"], result["degraded"], result["effective_verdict"]) == ("SUCCESS", False, "PASS")
    assert result["final_answer"] == answer["answer_markdown"]
    assert result["released_claim_ids"] == ["c1"]
    assert len(requests) == 7
    # The guard sees only the draft and the allowed claims: no tools, no question, no history.
    guard_task = json.loads(requests[6].json["messages"][-1]["content"])
    assert set(guard_task) == {"task", "draft", "allowed_claims"} and "tools" not in requests[6].json
    assert len(requests[6].json["messages"]) == 2
    assert requests[0].headers["authorization"] == "Bearer sk-test"
    assert requests[0].json["response_format"] == {"type": "json_object"}
    assert {tool["function"]["name"] for tool in requests[1].json["tools"]} == {
        "lookup_knowledge",
        "query_logs",
        "query_metrics",
        "query_mysql",
    }
    run = DiagnosisRun.objects.get(pk=result["run_id"])
    assert (run.provider, run.model) == ("openai", "fake-model")
    steps = {step.node: step for step in AgentStep.objects.filter(run=run)}
    assert steps["verifier"].model_calls == 2  # the 429 was retried
    assert steps["executor"].model_calls == 2 and steps["planner"].prompt_tokens == 11
    assert AgentReasoningAudit.objects.get(run=run, node="planner").reasoning_content == SECRET_REASONING
    assert AgentReasoningAudit.objects.get(run=run, step__role="composer").reasoning_source == "UNAVAILABLE"
    assert SECRET_REASONING not in out.getvalue()
    assert [step.role for step in AgentStep.objects.filter(run=run, node="composer")] == ["semantic_guard", "composer"]
    assert run.self_evaluation["release"]["decisions"][0]["decision"] == "released"
