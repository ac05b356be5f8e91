"""Every request carries its role's output cap, and a reply the server cut there comes back ``truncated``.

Through the real SDK against the loopback server's ``runaway`` model, which streams tokens until the
request's cap stops it: without a cap it would stream until the request's deadline.
"""

from __future__ import annotations

import pytest

from diagnosis.providers.base import ErrorCode, ProviderConfig, ProviderError, Role, no_invocations
from diagnosis.providers.openai_provider import build_models
from tests.providers.conftest import TEST_MODEL
from tests.support.fake_openai import FakeResponse, chat_completion, runaway

MESSAGES = [{"role": "system", "content": "You plan."}, {"role": "user", "content": "why is payment slow?"}]


def test_a_runaway_reply_is_cut_at_the_cap_the_request_carries(fake_openai, make_model):
    fake_openai.enqueue(runaway(prompt_tokens=30))

    reply = make_model(timeout=5.0, max_output_tokens=64).complete(MESSAGES)

    assert fake_openai.requests[0].json["max_tokens"] == 64
    assert reply.truncated is True
    assert reply.content == "again " * 64
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (30, 64)


def test_the_cap_goes_in_max_completion_tokens_when_the_endpoint_wants_that(fake_openai, make_model):
    fake_openai.enqueue(runaway())

    reply = make_model(timeout=5.0, max_output_tokens=16, max_tokens_param="max_completion_tokens").complete(MESSAGES)

    request = fake_openai.requests[0].json
    assert request["max_completion_tokens"] == 16 and "max_tokens" not in request
    assert reply.truncated and reply.usage.completion_tokens == 16


def test_a_reply_that_stopped_by_itself_is_not_truncated(fake_openai, make_model):
    fake_openai.enqueue(FakeResponse(body=chat_completion(content="done")))

    reply = make_model(max_output_tokens=64).complete(MESSAGES)

    assert reply.truncated is False


@pytest.mark.parametrize("role", list(Role))
def test_each_role_sends_its_own_cap(fake_openai, role):
    caps = {"planner": 300, "executor": 900, "verifier": 400, "composer": 500, "semantic_guard": 60}
    config = ProviderConfig(name="openai", base_url=fake_openai.base_url, model=TEST_MODEL, output_tokens=caps)
    fake_openai.enqueue(FakeResponse(body=chat_completion(content="{}")))

    build_models(config, resolve_invocation=no_invocations).for_role(role).complete(MESSAGES)

    assert fake_openai.requests[0].json["max_tokens"] == caps[role.value]


def test_without_a_cap_the_runaway_model_holds_the_request_until_its_deadline(fake_openai, make_model):
    """What the cap prevents: the same server, asked without one, is cut only by the wall clock."""
    fake_openai.enqueue(runaway())

    with pytest.raises(ProviderError) as caught:
        make_model(timeout=0.3, max_retries=0).complete(MESSAGES)

    assert "max_tokens" not in fake_openai.requests[0].json
    assert caught.value.code is ErrorCode.TIMEOUT
