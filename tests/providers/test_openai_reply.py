"""Response-body shapes the parser must accept or refuse, without HTTP (the server tests cover transport)."""

from __future__ import annotations

import json

import pytest

from diagnosis.providers.base import Usage
from diagnosis.providers.openai_reply import MalformedResponseError, parse_completion
from tests.support.fake_openai import chat_completion


def parse(data: object) -> object:
    return parse_completion(json.dumps(data).encode(), configured_model="configured")


def with_message(message: object) -> dict:
    return {"choices": [{"index": 0, "message": message}]}


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ([chat_completion(content="x")], "not a JSON object"),
        ({"choices": []}, "no choices"),
        ({"choices": {"0": {}}}, "no choices"),
        ({"choices": ["text"]}, "message is not an object"),
        ({"choices": [{"text": "legacy completion"}]}, "message is not an object"),
        (with_message({"content": 42}), "content"),
        (with_message({"content": None, "tool_calls": {"id": "c"}}), "tool_calls is not a list"),
        (with_message({"tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]}), "[0]"),
        (with_message({"tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"a": 1}}}]}), "[0]"),
        (with_message({"tool_calls": [{"id": "c", "function": "f"}]}), "[0]"),
        # Valid JSON, no character: no prompt, log line or database row can hold it.
        (with_message({"content": '{"mode": "\ud800"}'}), "unpaired surrogate"),
        (
            with_message({"tool_calls": [{"id": "c", "function": {"name": "f", "arguments": '{"q": "\udfff"}'}}]}),
            "surrogate",
        ),
        (with_message({"content": "ok", "reasoning_content": "\ud800"}), "surrogate"),
    ],
)
def test_it_refuses_shapes_a_node_cannot_use(data, problem):
    with pytest.raises(MalformedResponseError) as caught:
        parse(data)

    assert problem in str(caught.value)


def test_it_accepts_a_minimal_body_from_a_terse_server():
    reply = parse(with_message({"content": "ok"}))

    assert reply.content == "ok"
    assert reply.model == "configured"
    assert reply.usage == Usage(0, 0, reported=False)  # no counts: spent, but unknown
    assert reply.tool_calls == []


@pytest.mark.parametrize(
    "usage",
    [
        None,
        "12",
        {"prompt_tokens": "12", "completion_tokens": -1},
        {"prompt_tokens": True},
        {"prompt_tokens": 2**64, "completion_tokens": 2**63},  # no server's counts; no column holds them
    ],
)
def test_it_reads_unusable_usage_as_zero_tokens_it_does_not_know(usage):
    assert parse({**with_message({"content": "ok"}), "usage": usage}).usage == Usage(0, 0, reported=False)


def test_reported_counts_are_known_even_when_zero():
    usage = {"prompt_tokens": 0, "completion_tokens": 0}
    assert parse({**with_message({"content": "ok"}), "usage": usage}).usage == Usage(0, 0)


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"reasoning_content": "deepseek thinking"}, "deepseek thinking"),
        ({"reasoning": "vllm thinking"}, "vllm thinking"),
        ({"reasoning_content": "first", "reasoning": "second"}, "first"),
        ({"reasoning_content": ""}, None),
        ({"reasoning_content": {"text": "not a string"}}, None),
        ({}, None),
    ],
)
def test_it_takes_reasoning_only_from_the_provider_fields(extra, expected):
    assert parse(with_message({"content": "answer", **extra})).reasoning_content == expected


def test_it_reads_reasoning_tokens_and_a_cut_at_the_cap():
    body = chat_completion(content="{", completion_tokens=64, reasoning_tokens=50)
    body["choices"][0]["finish_reason"] = "length"

    reply = parse_completion(json.dumps(body).encode(), configured_model="m")

    assert reply.usage == Usage(prompt_tokens=11, completion_tokens=64, reasoning_tokens=50)
    assert reply.truncated is True


def test_a_reply_without_usage_details_has_no_reasoning_tokens_and_is_not_cut():
    reply = parse_completion(json.dumps(chat_completion(content="ok")).encode(), configured_model="m")

    assert reply.usage.reasoning_tokens == 0 and reply.truncated is False


def test_a_body_nested_deeper_than_the_decoder_goes_is_malformed_not_a_crash():
    with pytest.raises(MalformedResponseError, match="nested too deeply"):
        parse_completion(b"[" * 100_000, configured_model="m")


def test_a_number_longer_than_python_converts_is_malformed_not_a_crash():
    with pytest.raises(MalformedResponseError, match="body is not JSON"):
        parse_completion(b'{"created": ' + b"9" * 5000 + b"}", configured_model="m")
