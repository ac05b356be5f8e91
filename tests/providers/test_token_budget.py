"""The run's token budget and the prompt fitting, on their own and through the ``openai`` provider."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from diagnosis.providers.base import ErrorCode, FailureKind, ProviderError, Usage
from diagnosis.providers.prompt_fit import fit_prompt
from diagnosis.providers.token_budget import TokenBudget
from diagnosis.providers.token_estimate import MESSAGE_OVERHEAD_TOKENS, MOST_BYTES_PER_TOKEN, prompt_tokens, text_tokens
from tests.support.fake_openai import FakeResponse, chat_completion

PLAN = {"role": "user", "content": json.dumps({"task": "executor", "plan": {"steps": ["query_logs"]}})}
SYSTEM = {"role": "system", "content": "You execute the plan."}


def tool_turn(index: int, size: int) -> list[dict]:
    call = {"id": f"call_{index}", "type": "function", "function": {"name": "query_logs", "arguments": "{}"}}
    result = {"invocation_id": f"inv-{index}", "records": ["x" * size]}
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"call_{index}", "content": json.dumps(result)},
    ]


def conversation(*sizes: int) -> list[dict]:
    messages = [SYSTEM, PLAN]
    for index, size in enumerate(sizes, 1):
        messages += tool_turn(index, size)
    return messages


def test_the_estimate_counts_three_bytes_a_token_and_each_message_framing():
    assert text_tokens("abcdef") == 2 and text_tokens("abcdefg") == 3
    assert text_tokens("支付服务") == 4  # three UTF-8 bytes, one token each
    assert prompt_tokens([{"role": "user", "content": "abc"}]) == MESSAGE_OVERHEAD_TOKENS + 1
    tools = [{"type": "function", "function": {"name": "q"}}]
    assert prompt_tokens([], tools) == text_tokens(json.dumps(tools))


def test_a_call_is_admitted_only_if_its_prompt_and_whole_cap_fit():
    budget = TokenBudget(1000)
    budget.admit(900, 100)
    budget.spend(Usage(prompt_tokens=300, completion_tokens=50), estimated_prompt=999, max_output=100)
    assert (budget.spent, budget.remaining(), budget.prompt_room(100)) == (350, 650, 550)

    with pytest.raises(ProviderError) as caught:
        budget.admit(551, 100)

    assert caught.value.code is ErrorCode.TOKEN_BUDGET
    assert caught.value.kind is FailureKind.NON_RETRYABLE_FAILED and caught.value.attempts == 0


def test_a_prompt_reported_above_its_estimate_scales_every_later_estimate():
    budget = TokenBudget(1000)
    budget.spend(Usage(prompt_tokens=300, completion_tokens=50), estimated_prompt=100, max_output=100)
    assert (budget.spent, budget.prompt_scale) == (350, 3)

    assert budget.prompt_room(100) == 183  # 183 x 3 + 100 fits in the 650 left, 184 x 3 + 100 does not
    budget.admit(183, 100)
    with pytest.raises(ProviderError) as caught:
        budget.admit(184, 100)
    assert "needs up to 652 tokens" in caught.value.message

    budget.spend(Usage(prompt_tokens=10, completion_tokens=1), estimated_prompt=100, max_output=100)
    assert budget.prompt_scale == 3, "the worst ratio stays: a text may tokenise either way"
    budget.spend_unanswered(estimated_prompt=10, max_output=100)
    budget.spend(Usage(completion_tokens=1), estimated_prompt=10, max_output=100)
    assert budget.spent == 361 + 130 + 31  # an unreported prompt is charged at its scaled estimate


def test_an_output_reported_above_its_cap_scales_every_later_reservation():
    """A server may count hidden reasoning in ``completion_tokens`` that ``max_tokens`` does not stop."""
    budget = TokenBudget(4000)
    budget.admit(100, 200)
    budget.spend(Usage(prompt_tokens=100, completion_tokens=3500), estimated_prompt=100, max_output=200)
    assert (budget.spent, budget.output_scale) == (3600, Fraction(35, 2))

    # A second call with the same cap now reserves 3500 for its output: 400 are left, so it is refused.
    with pytest.raises(ProviderError) as caught:
        budget.admit(10, 200)
    assert caught.value.code is ErrorCode.TOKEN_BUDGET
    assert budget.prompt_room(200) == 0
    budget.spend_unanswered(estimated_prompt=0, max_output=20)
    assert budget.spent == 3600 + 350  # an unanswered request is charged its scaled cap


DIGITS = [{"role": "user", "content": " ".join(str(1_000_000 + i) for i in range(100))}]
"""Three bytes a token by the estimate; a llama tokenizer gives every digit a token: three times as many."""


def reporting(prompt: int) -> FakeResponse:
    return FakeResponse(body=chat_completion(content="{}", prompt_tokens=prompt, completion_tokens=100))


def test_after_a_reply_reports_a_larger_prompt_a_call_that_would_overspend_is_refused(fake_openai, make_model):
    estimate = prompt_tokens(DIGITS)
    fake_openai.enqueue(reporting(3 * estimate), reporting(3 * estimate))
    budget = TokenBudget(5 * estimate + 200)  # by the bare estimate, room for a second call
    model = make_model(max_retries=0, max_output_tokens=100, token_budget=budget)

    model.complete(DIGITS)
    with pytest.raises(ProviderError) as caught:
        model.complete(DIGITS)  # it would have spent 6 x estimate + 200

    assert caught.value.code is ErrorCode.TOKEN_BUDGET and len(fake_openai.requests) == 1
    assert budget.spent == 3 * estimate + 100 <= budget.limit


def test_the_first_call_overshoots_by_no_more_than_its_misestimate(fake_openai, make_model):
    estimate = prompt_tokens(DIGITS)
    fake_openai.enqueue(reporting(3 * estimate))
    budget = TokenBudget(estimate + 100)

    make_model(max_output_tokens=100, token_budget=budget).complete(DIGITS)

    assert budget.spent - budget.limit == 3 * estimate - estimate


def test_what_a_reply_does_not_report_is_spent_at_its_bound():
    budget = TokenBudget(1000)
    budget.spend(Usage(), estimated_prompt=120, max_output=100)
    assert budget.spent == 220  # no usage: the estimated prompt and the whole cap
    budget.spend(Usage(prompt_tokens=90), estimated_prompt=120, max_output=100)
    assert budget.spent == 410  # a reported prompt, no completion: the cap


def test_a_reply_reporting_fewer_tokens_than_its_text_can_be_is_charged_its_text(fake_openai, make_model):
    """A server (or a proxy) under-reporting usage must not let a run spend past its budget unseen."""
    messages = conversation(10)
    written = "x" * 32_000  # at least 2 000 tokens, whatever the tokenizer
    fake_openai.enqueue(FakeResponse(body=chat_completion(content=written, completion_tokens=5, prompt_tokens=50)))
    budget = TokenBudget(100_000)

    make_model(max_retries=0, max_output_tokens=1_000, token_budget=budget).complete(messages)

    assert budget.spent == 50 + 32_000 // MOST_BYTES_PER_TOKEN


def test_an_honest_reply_is_charged_what_it_reports():
    budget = TokenBudget(1000)
    budget.spend(Usage(prompt_tokens=90, completion_tokens=40), estimated_prompt=120, max_output=100, least_output=30)
    assert budget.spent == 130


def test_every_request_sent_is_admitted_and_a_timed_out_one_is_charged_whole(fake_openai, make_model):
    messages = conversation(10)
    estimate = prompt_tokens(messages)
    for _ in range(3):
        fake_openai.enqueue(FakeResponse(body=chat_completion(content="{}"), delay_seconds=1))
    budget = TokenBudget(2 * (estimate + 100))  # room for two whole requests, not three

    with pytest.raises(ProviderError) as caught:
        make_model(max_retries=2, timeout=0.2, max_output_tokens=100, token_budget=budget).complete(messages)

    assert caught.value.code is ErrorCode.TOKEN_BUDGET  # the third request did not fit: it was not sent
    assert len(fake_openai.requests) == 2
    assert budget.spent == 2 * (estimate + 100)
    assert caught.value.attempts == 2, "the refusal counts the requests sent before it"


def test_a_retry_refused_by_the_budget_reports_the_requests_and_time_before_it(fake_openai, make_model):
    messages = conversation(10)
    estimate = prompt_tokens(messages)
    fake_openai.enqueue(FakeResponse(body=chat_completion(content="{}"), delay_seconds=1))
    budget = TokenBudget(2 * (estimate + 100) - 1)  # the timed-out request is charged whole: no room for a retry

    with pytest.raises(ProviderError) as caught:
        make_model(max_retries=2, timeout=0.2, max_output_tokens=100, token_budget=budget).complete(messages)

    assert caught.value.code is ErrorCode.TOKEN_BUDGET
    assert len(fake_openai.requests) == caught.value.attempts == 1  # what the node's StepMeter adds up
    assert caught.value.latency_ms >= 200


def test_an_unreadable_reply_is_charged_whole(fake_openai, make_model):
    messages = conversation(10)
    fake_openai.enqueue(FakeResponse(body=b"not json"))
    budget = TokenBudget(100_000)

    with pytest.raises(ProviderError) as caught:
        make_model(max_retries=0, max_output_tokens=100, token_budget=budget).complete(messages)

    assert caught.value.code is ErrorCode.MALFORMED_RESPONSE
    assert budget.spent == prompt_tokens(messages) + 100


def test_fitting_trims_the_oldest_tool_results_first_and_keeps_the_conversation_whole():
    messages = conversation(3000, 3000, 3000)
    full = prompt_tokens(messages)

    fitted, trimmed = fit_prompt(messages, full - 500)

    assert trimmed == 1
    assert prompt_tokens(fitted) <= full - 500
    assert fitted[:2] == [SYSTEM, PLAN]  # the task and its plan are never touched
    assert json.loads(fitted[3]["content"])["invocation_id"] == "inv-1"
    assert "trimmed" in json.loads(fitted[3]["content"])
    assert fitted[5:] == messages[5:]  # the newer results are whole
    # Every tool call still has its answer, so any OpenAI-compatible server accepts the conversation.
    assert [m["tool_call_id"] for m in fitted if m["role"] == "tool"] == ["call_1", "call_2", "call_3"]
    assert messages[3]["content"] != fitted[3]["content"], "the caller's messages are left as they were"


def test_fitting_leaves_a_prompt_that_fits_alone_and_stops_at_the_task():
    messages = conversation(10, 10)
    assert fit_prompt(messages, prompt_tokens(messages)) == (messages, 0)

    fitted, trimmed = fit_prompt(messages, 1)

    assert trimmed == 2 and fitted[:2] == [SYSTEM, PLAN]


def test_the_provider_refuses_a_call_that_cannot_fit_without_sending_it(fake_openai, make_model):
    budget = TokenBudget(500)

    with pytest.raises(ProviderError) as caught:
        make_model(max_output_tokens=600, token_budget=budget).complete(conversation(10))

    assert caught.value.code is ErrorCode.TOKEN_BUDGET
    assert fake_openai.requests == [] and budget.spent == 0


def test_the_provider_sends_a_trimmed_prompt_and_spends_the_reported_usage(fake_openai, make_model):
    messages = conversation(3000, 3000)
    budget = TokenBudget(prompt_tokens(messages) - 200 + 100)
    fake_openai.enqueue(FakeResponse(body=chat_completion(content="{}", prompt_tokens=1500, completion_tokens=20)))

    make_model(max_output_tokens=100, token_budget=budget).complete(messages)

    sent = fake_openai.requests[0].json["messages"]
    assert "trimmed" in json.loads(sent[3]["content"]) and sent[5] == messages[5]
    assert budget.spent == 1520


def test_the_provider_refuses_a_prompt_over_its_bound_even_when_trimmed(fake_openai, make_model):
    with pytest.raises(ProviderError) as caught:
        make_model(max_prompt_tokens=5).complete(conversation(10))

    assert caught.value.code is ErrorCode.TOKEN_BUDGET and "LLM_MAX_PROMPT_TOKENS" in caught.value.message
    assert fake_openai.requests == []
