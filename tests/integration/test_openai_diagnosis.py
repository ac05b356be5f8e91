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
from tests.support.fake_openai import FakeOpenAIServer, FakeResponse
from tests.support.openai_diagnosis import ANSWER, LOGS_ARGS, PLAN, QUESTION, RELEASE, VERDICT, executor_report, reply
from tracing.models import AgentReasoningAudit, AgentStep

pytestmark = pytest.mark.django_db

SECRET_REASONING = "private chain of thought 7f3a"


def test_it_diagnoses_through_the_openai_provider(settings):
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    plan, verdict, answer = PLAN, VERDICT, ANSWER
    with FakeOpenAIServer() as server:
        server.enqueue(
            reply(content=json.dumps(plan), reasoning_content=SECRET_REASONING),
            reply(tool_calls=[{"id": "call_1", "name": "query_logs", "arguments": json.dumps(LOGS_ARGS)}]),
            executor_report,
            FakeResponse(status=429, body={"error": {"message": "slow down"}}, headers={"Retry-After": "0"}),
            reply(content=json.dumps(verdict)),
            reply(content=json.dumps(answer)),
            reply(content=json.dumps(RELEASE)),
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
