"""The ``openai`` provider through the real SDK and real HTTP, against the loopback fake server."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest

from config.run_scope import run_scope
from diagnosis.providers.base import (
    ErrorCode,
    FailureKind,
    ProviderConfig,
    ProviderConfigError,
    ProviderError,
    Role,
    ToolCall,
    Usage,
    no_invocations,
)
from diagnosis.providers.deadline import Deadline
from diagnosis.providers.openai_provider import build_models
from tests.providers.conftest import TEST_API_KEY, TEST_MODEL
from tests.support.fake_openai import FakeResponse, chat_completion, echo_request, trickle

MESSAGES = [{"role": "system", "content": "You plan."}, {"role": "user", "content": "why is payment slow?"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "query_logs",
            "description": "Search logs.",
            "parameters": {"type": "object", "properties": {"service": {"type": "string"}}},
        },
    }
]


def ok(**kwargs: Any) -> FakeResponse:
    return FakeResponse(body=chat_completion(**kwargs))


def test_it_returns_content_usage_and_model(fake_openai, make_model):
    fake_openai.enqueue(ok(content="plan ready", prompt_tokens=120, completion_tokens=30, model="served-model"))

    reply = make_model().complete(MESSAGES)

    assert reply.content == "plan ready"
    assert reply.tool_calls == []
    assert reply.usage == Usage(prompt_tokens=120, completion_tokens=30)
    assert reply.model == "served-model"
    assert reply.attempts == 1
    assert reply.latency_ms >= 0


def test_the_run_is_told_before_each_request_so_its_held_reports_go_out_first(fake_openai, make_model):
    fake_openai.enqueue(FakeResponse(status=500, body={"error": {"message": "busy"}}), ok(content="plan ready"))
    requests_seen_when_told: list[int] = []
    with run_scope(before_wait=lambda: requests_seen_when_told.append(len(fake_openai.requests))):
        make_model().complete(MESSAGES)

    assert requests_seen_when_told == [0, 1]  # before the first request, and before the retry


def test_it_sends_model_messages_tools_response_format_and_key(fake_openai, make_model):
    fake_openai.enqueue(ok(content="{}"))

    make_model().complete(MESSAGES, tools=TOOLS, response_format={"type": "json_object"})

    [request] = fake_openai.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {TEST_API_KEY}"
    assert request.json["model"] == TEST_MODEL
    assert request.json["messages"] == MESSAGES
    assert request.json["tools"] == TOOLS
    assert request.json["response_format"] == {"type": "json_object"}


def test_it_omits_tools_and_response_format_when_not_given(fake_openai, make_model):
    fake_openai.enqueue(ok(content="hi"))

    make_model().complete(MESSAGES)

    assert "tools" not in fake_openai.requests[0].json
    assert "response_format" not in fake_openai.requests[0].json


def test_it_returns_tool_calls_and_their_assistant_turn_goes_back_verbatim(fake_openai, make_model):
    calls = [
        {"name": "query_logs", "arguments": '{"service": "payment"}'},
        {"name": "query_metrics", "arguments": '{"service": "payment", "metric": "p99"}'},
    ]
    fake_openai.enqueue(ok(tool_calls=calls), ok(content="done"))
    model = make_model()

    reply = model.complete(MESSAGES, tools=TOOLS)
    model.complete([*MESSAGES, reply.as_message(), {"role": "tool", "tool_call_id": "call_1", "content": "[]"}])

    assert reply.content is None
    assert reply.tool_calls == [
        ToolCall(id="call_1", name="query_logs", arguments='{"service": "payment"}'),
        ToolCall(id="call_2", name="query_metrics", arguments='{"service": "payment", "metric": "p99"}'),
    ]
    echoed = fake_openai.requests[1].json["messages"][2]
    assert echoed["role"] == "assistant"
    assert [call["function"] for call in echoed["tool_calls"]] == calls
    assert [call["id"] for call in echoed["tool_calls"]] == ["call_1", "call_2"]


def test_it_captures_reasoning_content_when_the_provider_returns_it(fake_openai, make_model):
    fake_openai.enqueue(ok(content="answer", reasoning_content="The p99 rose after the deploy, so..."))

    reply = make_model().complete(MESSAGES)

    assert reply.reasoning_content == "The p99 rose after the deploy, so..."
    assert reply.content == "answer"


def test_it_never_invents_reasoning_and_does_not_echo_it(fake_openai, make_model):
    fake_openai.enqueue(ok(content="answer, with my thinking: because X"), ok(content="x", reasoning_content="r"))
    model = make_model()

    plain = model.complete(MESSAGES)
    reasoned = model.complete(MESSAGES)

    assert plain.reasoning_content is None
    assert "reasoning_content" not in reasoned.as_message()


def test_it_retries_a_429_then_succeeds_and_counts_the_attempt(fake_openai, make_model, sleep):
    fake_openai.enqueue(FakeResponse(status=429, body={"error": {"message": "slow down"}}), ok(content="hi"))

    reply = make_model().complete(MESSAGES)

    assert reply.content == "hi"
    assert reply.attempts == 2
    assert len(fake_openai.requests) == 2
    # First retry: base 0.5 s with equal jitter, so within [0.25, 0.5].
    [delay] = sleep.calls
    assert 0.25 <= delay <= 0.5


@pytest.mark.parametrize(
    ("headers", "expected"), [({"Retry-After": "3"}, 3.0), ({"retry-after-ms": "1500", "Retry-After": "9"}, 1.5)]
)
def test_it_waits_what_retry_after_asks_when_small(fake_openai, make_model, sleep, headers, expected):
    fake_openai.enqueue(FakeResponse(status=429, headers=headers), ok(content="hi"))

    make_model().complete(MESSAGES)

    assert sleep.calls == [expected]


def test_it_does_not_retry_when_retry_after_is_too_long(fake_openai, make_model, sleep):
    fake_openai.enqueue(FakeResponse(status=429, headers={"Retry-After": "120"}), ok(content="never fetched"))

    with pytest.raises(ProviderError) as caught:
        make_model(retry_after_cap=20).complete(MESSAGES)

    assert caught.value.code is ErrorCode.RATE_LIMIT
    assert caught.value.kind is FailureKind.RETRYABLE_FAILED
    assert caught.value.attempts == 1
    assert sleep.calls == []


def test_it_survives_500_twice_when_two_retries_are_allowed(fake_openai, make_model, sleep):
    fake_openai.enqueue(FakeResponse(status=500), FakeResponse(status=502), ok(content="third time"))

    reply = make_model(max_retries=2).complete(MESSAGES)

    assert reply.content == "third time"
    assert reply.attempts == 3
    assert len(sleep.calls) == 2
    first, second = sleep.calls
    assert 0.25 <= first <= 0.5
    assert 0.5 <= second <= 1.0


def test_it_fails_retryable_after_500_twice_when_one_retry_is_allowed(fake_openai, make_model):
    fake_openai.enqueue(FakeResponse(status=500), FakeResponse(status=500), ok(content="not reached"))

    with pytest.raises(ProviderError) as caught:
        make_model(max_retries=1).complete(MESSAGES)

    assert caught.value.code is ErrorCode.SERVER_ERROR
    assert caught.value.kind is FailureKind.RETRYABLE_FAILED
    assert caught.value.attempts == 2
    assert len(fake_openai.requests) == 2


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (429, ErrorCode.RATE_LIMIT),
        (408, ErrorCode.TIMEOUT),
        (500, ErrorCode.SERVER_ERROR),
        (503, ErrorCode.SERVER_ERROR),
    ],
)
def test_it_maps_retryable_statuses_once_retries_run_out(fake_openai, make_model, status, code):
    fake_openai.enqueue(FakeResponse(status=status), FakeResponse(status=status))

    with pytest.raises(ProviderError) as caught:
        make_model(max_retries=1).complete(MESSAGES)

    assert (caught.value.code, caught.value.kind, caught.value.attempts) == (code, FailureKind.RETRYABLE_FAILED, 2)


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, ErrorCode.BAD_REQUEST),
        (401, ErrorCode.AUTH),
        (403, ErrorCode.AUTH),
        (404, ErrorCode.BAD_REQUEST),
        (422, ErrorCode.BAD_REQUEST),
    ],
)
def test_it_never_retries_other_4xx(fake_openai, make_model, sleep, status, code):
    fake_openai.enqueue(FakeResponse(status=status, body={"error": {"message": "nope"}}), ok(content="not reached"))

    with pytest.raises(ProviderError) as caught:
        make_model(max_retries=3).complete(MESSAGES)

    assert caught.value.code is code
    assert caught.value.kind is FailureKind.NON_RETRYABLE_FAILED
    assert caught.value.attempts == 1
    assert f"HTTP {status}" in caught.value.message
    assert len(fake_openai.requests) == 1
    assert sleep.calls == []


def test_it_times_out_when_the_server_is_slower_than_the_timeout(fake_openai, make_model):
    fake_openai.enqueue(FakeResponse(body=chat_completion(content="late"), delay_seconds=3))
    started = time.monotonic()

    with pytest.raises(ProviderError) as caught:
        make_model(max_retries=0, timeout=0.2).complete(MESSAGES)

    assert caught.value.code is ErrorCode.TIMEOUT
    assert caught.value.kind is FailureKind.RETRYABLE_FAILED
    assert 200 <= caught.value.latency_ms < 2000
    assert time.monotonic() - started < 2


def test_it_cuts_a_reply_that_trickles_in_at_its_wall_clock_timeout(fake_openai, make_model):
    """Headers at once, then a byte every 0.1 s: the read timeout never fires, the request's deadline does."""
    fake_openai.enqueue(trickle(seconds_per_byte=0.1))
    started = time.monotonic()

    with pytest.raises(ProviderError) as caught:
        make_model(max_retries=0, timeout=1).complete(MESSAGES)

    assert (caught.value.code, caught.value.attempts) == (ErrorCode.TIMEOUT, 1)
    assert time.monotonic() - started < 1 + 2, "the deadline plus slack, not the minute the body would take"


def test_it_cuts_a_request_at_the_run_budget_and_does_not_retry_past_it(fake_openai, make_model, sleep):
    fake_openai.enqueue(trickle(seconds_per_byte=0.1), ok(content="never fetched"))
    started = time.monotonic()

    with pytest.raises(ProviderError) as caught:
        make_model(max_retries=2, timeout=60, deadline=Deadline.after(1)).complete(MESSAGES)

    assert (caught.value.code, caught.value.attempts) == (ErrorCode.TIMEOUT, 1)
    assert time.monotonic() - started < 1 + 2
    assert len(fake_openai.requests) == 1 and sleep.calls == []


def test_it_fails_at_once_without_a_request_when_the_run_budget_is_spent(fake_openai, make_model):
    with pytest.raises(ProviderError) as caught:
        make_model(deadline=Deadline.after(0)).complete(MESSAGES)

    assert (caught.value.code, caught.value.kind) == (ErrorCode.TIMEOUT, FailureKind.RETRYABLE_FAILED)
    assert caught.value.attempts == 0
    assert fake_openai.requests == []


def test_it_does_not_start_a_wait_the_run_budget_cannot_hold(fake_openai, make_model, sleep):
    fake_openai.enqueue(FakeResponse(status=429, headers={"Retry-After": "5"}), ok(content="never fetched"))

    with pytest.raises(ProviderError) as caught:
        make_model(max_retries=2, deadline=Deadline.after(3)).complete(MESSAGES)

    assert (caught.value.code, caught.value.attempts) == (ErrorCode.RATE_LIMIT, 1)
    assert sleep.calls == []


def test_it_summarises_an_error_by_class_and_status_never_by_what_the_server_echoed(fake_openai, make_model):
    fake_openai.enqueue(echo_request(400))

    with pytest.raises(ProviderError) as caught:
        make_model().complete(MESSAGES)

    assert caught.value.message == "BadRequestError (HTTP 400)"
    assert TEST_API_KEY in str(caught.value.__cause__), "the server did echo the key"
    assert TEST_API_KEY not in str(caught.value) and "You plan" not in str(caught.value)


def test_it_retries_after_a_timeout(fake_openai, make_model):
    fake_openai.enqueue(FakeResponse(body=chat_completion(content="late"), delay_seconds=3), ok(content="quick"))

    reply = make_model(max_retries=1, timeout=0.2).complete(MESSAGES)

    assert reply.content == "quick"
    assert reply.attempts == 2


def test_it_maps_a_refused_connection_after_retries(make_model, sleep):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]

    with pytest.raises(ProviderError) as caught:
        make_model(base_url=f"http://127.0.0.1:{closed_port}/v1").complete(MESSAGES)

    assert caught.value.code is ErrorCode.CONNECTION
    assert caught.value.kind is FailureKind.RETRYABLE_FAILED
    assert caught.value.attempts == 3
    assert len(sleep.calls) == 2


@pytest.mark.parametrize(
    "response",
    [
        FakeResponse(body=b'{"choices": [{"message": {"content": "cut'),
        FakeResponse(body=b"<html><body>502 Bad Gateway</body></html>", content_type="text/html"),
        FakeResponse(body={"id": "chatcmpl-1", "object": "chat.completion"}),
        FakeResponse(body=b""),
    ],
    ids=["truncated-json", "html-page", "no-choices", "empty-body"],
)
def test_it_refuses_a_malformed_body_without_retrying(fake_openai, make_model, sleep, response):
    fake_openai.enqueue(response, ok(content="not reached"))

    with pytest.raises(ProviderError) as caught:
        make_model(max_retries=2).complete(MESSAGES)

    assert caught.value.code is ErrorCode.MALFORMED_RESPONSE
    assert caught.value.kind is FailureKind.NON_RETRYABLE_FAILED
    assert len(fake_openai.requests) == 1
    assert sleep.calls == []


def test_built_models_work_without_an_api_key(fake_openai):
    """Local servers (vLLM, Ollama) need no key; the SDK still wants one, so a placeholder is sent."""
    config = ProviderConfig(name="openai", base_url=fake_openai.base_url, model=TEST_MODEL, timeout_seconds=2)
    fake_openai.enqueue(ok(content="hi"))

    models = build_models(config, resolve_invocation=no_invocations)
    reply = models.for_role(Role.EXECUTOR).complete(MESSAGES)

    assert reply.content == "hi"
    assert fake_openai.requests[0].headers["authorization"] == "Bearer not-needed"


def test_built_models_retry_only_through_the_policy_not_the_sdk(fake_openai):
    """``LLM_MAX_RETRIES`` is the whole budget: the SDK's own retries would multiply the requests."""
    config = ProviderConfig(name="openai", base_url=fake_openai.base_url, model=TEST_MODEL, max_retries=1)
    fake_openai.enqueue(*[FakeResponse(status=500, headers={"retry-after-ms": "1"})] * 2, ok(content="not reached"))

    with pytest.raises(ProviderError) as caught:
        build_models(config, resolve_invocation=no_invocations).planner.complete(MESSAGES)

    assert (caught.value.code, caught.value.attempts) == (ErrorCode.SERVER_ERROR, 2)
    assert len(fake_openai.requests) == 2


@pytest.mark.parametrize(
    ("base_url", "model", "missing"), [(None, "m", "LLM_BASE_URL"), ("http://127.0.0.1:9", "", "LLM_MODEL")]
)
def test_build_refuses_a_config_without_url_or_model(base_url, model, missing):
    with pytest.raises(ProviderConfigError, match=missing):
        build_models(ProviderConfig(name="openai", base_url=base_url, model=model), resolve_invocation=no_invocations)


@pytest.mark.parametrize(
    ("base_url", "api_key"),
    [("http://127.0.0.1:80a/v1", TEST_API_KEY), (None, "sk-test\u2013key")],
    ids=["port-not-a-number", "key-not-ascii"],
)
def test_settings_no_request_can_be_built_from_fail_as_a_provider_error(fake_openai, base_url, api_key):
    """Start-up refuses them (config/env.py); an in-process caller still gets the one error ``complete`` raises."""
    config = ProviderConfig(name="openai", base_url=base_url or fake_openai.base_url, model=TEST_MODEL, api_key=api_key)

    with pytest.raises(ProviderError) as caught:
        build_models(config, resolve_invocation=no_invocations).planner.complete(MESSAGES)

    assert (caught.value.code, caught.value.kind) == (ErrorCode.BAD_REQUEST, FailureKind.NON_RETRYABLE_FAILED)
    assert caught.value.attempts == 0 and fake_openai.requests == []
    assert api_key not in caught.value.message
