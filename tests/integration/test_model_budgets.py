"""Model budgets through the real ``openai`` SDK against the loopback OpenAI-compatible server.

Output caps: a model that streams tokens until the request's cap stops it has its cut replies handled by
the routing matrix like any invalid output. The run's token budget: a call that cannot fit ends the run in
its fallback, the budget named. Usage: the run's totals are the sum of its steps, in every audit surface.
Prompt fitting: a prompt over the budget is sent with its oldest tool results trimmed, and still works.
"""

from __future__ import annotations

import functools
import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Sum
from rest_framework.test import APIClient

from diagnosis.models import DiagnosisRun, RunStatus
from diagnosis.providers.token_estimate import prompt_tokens
from tests.support.fake_openai import FakeOpenAIServer, FakeResponse, runaway
from tests.support.openai_diagnosis import (
    ANSWER,
    LOGS_ARGS,
    PLAN,
    QUESTION,
    RELEASE,
    VERDICT,
    executor_report,
    reply,
    tool_calls,
)
from tests.support.stored_events import payload, stored_events
from tracing.models import AgentStep

pytestmark = pytest.mark.django_db

CAPS = {"planner": 40, "executor": 300, "verifier": 200, "composer": 200, "semantic_guard": 50}


@pytest.fixture
def fake_model(settings):
    """The loopback server as the run's model, with small output caps and the pack the replies fit."""
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    with FakeOpenAIServer() as server:
        settings.LLM_PROVIDER, settings.SEMANTIC_GUARD_PROVIDER = "openai", ""
        settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_API_KEY = server.base_url, "fake-model", "sk-test"
        settings.LLM_OUTPUT_TOKENS = CAPS
        yield server


def diagnose() -> dict:
    out = StringIO()
    call_command("diagnose", QUESTION, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_a_model_streaming_until_its_cap_is_cut_and_handled_as_invalid_output(fake_model):
    fake_model.enqueue(runaway(prompt_tokens=900), runaway(prompt_tokens=900))

    result = diagnose()

    assert [request.json["max_tokens"] for request in fake_model.requests] == [40, 40]
    run = DiagnosisRun.objects.get(pk=result["run_id"])
    assert (run.status, run.degraded) == (RunStatus.SUCCESS, True)
    # The frozen matrix: INVALID_OUTPUT earns one retry, the second one goes to the fallback.
    assert [t["reason_code"] for t in run.orchestration_trace["transitions"]] == ["invalid_output"] * 2
    assert run.orchestration_trace["termination_reason"] == "fallback_planner_invalid_output"
    steps = AgentStep.objects.filter(run=run).order_by("seq")
    assert [(step.outcome, step.completion_tokens) for step in steps] == [("INVALID_OUTPUT", 40)] * 2
    assert (run.prompt_tokens, run.completion_tokens, run.total_tokens) == (1800, 80, 1880)


@pytest.mark.django_db(transaction=True)  # the stream's events are stored on commit
def test_a_budget_too_small_for_the_executor_ends_in_the_fallback_naming_it(fake_model, settings):
    settings.LLM_OUTPUT_TOKENS = {**CAPS, "executor": 50_000}
    settings.LLM_MAX_TOKENS_PER_RUN = 40_000
    fake_model.enqueue(reply(content=json.dumps(PLAN)))

    result = diagnose()

    assert len(fake_model.requests) == 1, "the executor's call was never sent"
    run = DiagnosisRun.objects.get(pk=result["run_id"])
    assert (result["status"], result["degraded"]) == ("SUCCESS", True)
    assert run.orchestration_trace["termination_reason"] == "fallback_executor_model_token_budget"
    assert run.final_answer
    executor_step = AgentStep.objects.get(run=run, node="executor")
    assert executor_step.outcome == "FAILED" and "token budget" in executor_step.summary
    assert executor_step.model_calls == 0
    events = stored_events(run.pk)
    assert [event.type for event in events][-2:] == ["content", "done"]
    assert payload(events[-1])["outcome"] == "FALLBACK"


def test_usage_totals_equal_the_sum_of_the_steps_everywhere(fake_model, settings, owner):
    settings.LLM_PRICE_INPUT_PER_MTOK, settings.LLM_PRICE_OUTPUT_PER_MTOK = Decimal("0.27"), Decimal("1.10")
    fake_model.enqueue(
        reply(content=json.dumps(PLAN), prompt_tokens=1200, completion_tokens=150),
        tool_calls(LOGS_ARGS, prompt_tokens=2100, completion_tokens=40),
        functools.partial(executor_report, prompt_tokens=3300, completion_tokens=260),
        reply(content=json.dumps(VERDICT), prompt_tokens=900, completion_tokens=310, reasoning_tokens=240),
        reply(content=json.dumps(ANSWER), prompt_tokens=800, completion_tokens=90),
        reply(content=json.dumps(RELEASE), prompt_tokens=400, completion_tokens=12),
    )
    result = diagnose()

    run = DiagnosisRun.objects.get(pk=result["run_id"])
    assert (run.status, run.degraded) == (RunStatus.SUCCESS, False)
    sums = AgentStep.objects.filter(run=run).aggregate(p=Sum("prompt_tokens"), c=Sum("completion_tokens"))
    assert (run.prompt_tokens, run.completion_tokens) == (sums["p"], sums["c"]) == (8700, 862)
    assert run.total_tokens == 9562
    assert run.reasoning_tokens == AgentStep.objects.get(run=run, node="verifier").reasoning_tokens == 240
    # 8 700 x 0.27 + 862 x 1.10 per million.
    assert run.cost == Decimal("0.003297")

    usage = result["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"]) == (8700, 862, 9562)
    assert usage["cost"] == "0.003297" and usage["reasoning_tokens"] == 240
    assert sum(step["prompt_tokens"] for step in usage["steps"]) == 8700
    assert sum(step["completion_tokens"] for step in usage["steps"]) == 862
    assert [step["role"] for step in usage["steps"]] == [
        "planner",
        "executor",
        "verifier",
        "semantic_guard",
        "composer",
    ]

    run.session.owner = owner
    run.session.save()
    client = APIClient()
    client.force_login(owner)
    body = client.get(f"/api/diagnosis/{run.session_id}/trace?runId={run.pk}").json()
    assert (body["run"]["totalTokens"], body["run"]["cost"]) == (9562, "0.003297")
    assert sum(step["promptTokens"] + step["completionTokens"] for step in body["steps"]) == 9562
    assert body["run"]["reasoningTokens"] == sum(step["reasoningTokens"] for step in body["steps"]) == 240


def test_a_reply_without_usage_leaves_the_runs_cost_unknown_not_understated(fake_model, settings, owner):
    """The verifier's endpoint answered without ``usage``: its tokens were spent, no one knows how many, so a
    cost of the others' would read as the bill. The run's cost is null; its step says why."""
    settings.LLM_PRICE_INPUT_PER_MTOK, settings.LLM_PRICE_OUTPUT_PER_MTOK = Decimal("0.27"), Decimal("1.10")
    verdict = reply(content=json.dumps(VERDICT))
    del verdict.body["usage"]
    fake_model.enqueue(
        reply(content=json.dumps(PLAN), prompt_tokens=1200, completion_tokens=150),
        tool_calls(LOGS_ARGS, prompt_tokens=2100, completion_tokens=40),
        functools.partial(executor_report, prompt_tokens=3300, completion_tokens=260),
        verdict,
        reply(content=json.dumps(ANSWER), prompt_tokens=800, completion_tokens=90),
        reply(content=json.dumps(RELEASE), prompt_tokens=400, completion_tokens=12),
    )
    result = diagnose()

    run = DiagnosisRun.objects.get(pk=result["run_id"])
    assert run.status == RunStatus.SUCCESS
    assert (run.prompt_tokens, run.cost) == (7800, None)
    assert AgentStep.objects.get(run=run, node="verifier").unreported_calls == 1
    assert result["usage"]["cost"] is None
    run.session.owner = owner
    run.session.save()
    client = APIClient()
    client.force_login(owner)
    body = client.get(f"/api/diagnosis/{run.session_id}/trace?runId={run.pk}").json()
    assert body["run"]["cost"] is None
    assert [step["unreportedCalls"] for step in body["steps"] if step["node"] == "verifier"] == [1]


def test_a_gateway_error_before_a_reply_leaves_the_runs_cost_unknown(fake_model, settings):
    """The verifier's first request came back a 502 from a gateway whose model may have gone on and billed
    it; the retry answered with its own usage only. The step's tokens are what was reported, and the run's
    cost is null, not the price of the reported tokens alone."""
    settings.LLM_PRICE_INPUT_PER_MTOK, settings.LLM_PRICE_OUTPUT_PER_MTOK = Decimal("0.27"), Decimal("1.10")
    settings.LLM_MAX_RETRIES = 1
    fake_model.enqueue(
        reply(content=json.dumps(PLAN), prompt_tokens=1200, completion_tokens=150),
        tool_calls(LOGS_ARGS, prompt_tokens=2100, completion_tokens=40),
        functools.partial(executor_report, prompt_tokens=3300, completion_tokens=260),
        FakeResponse(status=502, headers={"retry-after-ms": "1"}),
        reply(content=json.dumps(VERDICT), prompt_tokens=900, completion_tokens=70),
        reply(content=json.dumps(ANSWER), prompt_tokens=800, completion_tokens=90),
        reply(content=json.dumps(RELEASE), prompt_tokens=400, completion_tokens=12),
    )
    result = diagnose()

    run = DiagnosisRun.objects.get(pk=result["run_id"])
    assert run.status == RunStatus.SUCCESS
    verifier = AgentStep.objects.get(run=run, node="verifier")
    assert (verifier.model_calls, verifier.unreported_calls, verifier.prompt_tokens) == (2, 1, 900)
    assert (run.prompt_tokens, run.cost) == (8700, None)
    assert result["usage"]["cost"] is None


def test_a_prompt_over_the_budget_is_trimmed_and_the_run_still_succeeds(fake_model, settings):
    """Calibrated on a first run without a budget: the second's budget leaves the executor's second turn
    one token too little for its whole prompt, so the oldest tool result must give way."""
    three_queries = [{**LOGS_ARGS, "limit": limit} for limit in (5, 4, 3)]

    def play(server: FakeOpenAIServer) -> dict:
        server.enqueue(
            reply(content=json.dumps(PLAN)),
            tool_calls(*three_queries),
            executor_report,
            reply(content=json.dumps(VERDICT)),
            reply(content=json.dumps(ANSWER)),
            reply(content=json.dumps(RELEASE)),
        )
        return diagnose()

    settings.LLM_MAX_TOKENS_PER_RUN = 0
    play(fake_model)
    untrimmed = fake_model.requests[2].json
    full_prompt = prompt_tokens(untrimmed["messages"], untrimmed["tools"])
    spent_before = 2 * (11 + 7)  # the fake server's usage for the planner and the executor's first turn
    settings.LLM_MAX_TOKENS_PER_RUN = spent_before + CAPS["executor"] + full_prompt - 1
    fake_model.requests.clear()

    result = play(fake_model)

    sent = fake_model.requests[2].json["messages"]
    tool_results = [message for message in sent if message["role"] == "tool"]
    assert "trimmed" in json.loads(tool_results[0]["content"])
    assert all("records" in json.loads(message["content"]) for message in tool_results[1:])
    assert sent[:2] == untrimmed["messages"][:2], "the system prompt and the plan are sent whole"
    assert prompt_tokens(sent, untrimmed["tools"]) < full_prompt
    run = DiagnosisRun.objects.get(pk=result["run_id"])
    assert (run.status, run.degraded, result["released_claim_ids"]) == (RunStatus.SUCCESS, False, ["c1"])


def test_a_retry_the_budget_refuses_still_counts_the_call_sent_before_it(fake_model, settings):
    """The planner's request times out, charged whole (the server may have computed it); its retry no
    longer fits, and the step still records the one call that was made and the time it took."""
    fake_model.enqueue(FakeResponse(status=400))
    diagnose()  # calibration: the planner's prompt, refused at once
    [refused] = fake_model.requests
    whole = prompt_tokens(refused.json["messages"]) + CAPS["planner"]
    settings.LLM_MAX_TOKENS_PER_RUN = whole + whole // 2  # one planner request, not two
    fake_model.requests.clear()
    settings.LLM_TIMEOUT_SECONDS = 0.3
    fake_model.enqueue(FakeResponse(body={}, delay_seconds=2))

    result = diagnose()

    assert len(fake_model.requests) == 1, "the retry was never sent"
    run = DiagnosisRun.objects.get(pk=result["run_id"])
    assert run.orchestration_trace["termination_reason"] == "fallback_planner_model_token_budget"
    planner_step = AgentStep.objects.get(run=run, node="planner")
    assert planner_step.model_calls == 1 and planner_step.latency_ms >= 300
