"""The offline provider behind the ``ChatModel`` interface: wiring, reply fields, determinism, bad input."""

from __future__ import annotations

import json

import pytest

from diagnosis.nodes.messages import composer_messages, planner_messages, verifier_messages
from diagnosis.providers.base import ErrorCode, FailureKind, ProviderConfig, ProviderError, Role, Usage
from diagnosis.providers.factory import build_models
from diagnosis.providers.offline.provider import OFFLINE_MODEL_NAME, OfflineChatModel
from tests.providers.offline import incident
from tests.providers.offline.conversations import ENVIRONMENT, executor_conversation

SPECS = [{"type": "function", "function": {"name": "query_logs", "parameters": {}}}]


def _planner_messages() -> list[dict]:
    return planner_messages(
        question=incident.QUESTION, history=[], mode="NORMAL", retry_context=None, environment=ENVIRONMENT
    )


def test_the_factory_builds_one_offline_model_per_role():
    models = build_models(ProviderConfig(name="offline"))
    for role in Role:
        model = models.for_role(role)
        assert isinstance(model, OfflineChatModel) and model.role is role


def test_a_reply_names_the_rules_and_never_invents_reasoning(models):
    reply = models.planner.complete(_planner_messages())
    assert reply.model == OFFLINE_MODEL_NAME == "offline-rules-v1"
    assert reply.reasoning_content is None
    assert reply.tool_calls == []
    assert reply.attempts == 1


def test_usage_is_zero_since_rules_spend_no_tokens(models):
    reply = models.planner.complete(_planner_messages())
    assert reply.usage == Usage(prompt_tokens=0, completion_tokens=0, reasoning_tokens=0)


def test_tool_call_turns_report_zero_usage_too(models):
    reply = models.executor.complete(
        executor_conversation(
            incident.QUESTION,
            [],
            plan_steps=[{"tool": "lookup_knowledge", "purpose": "p", "args": {"query": "x", "top_k": 5}}],
        ),
        tools=SPECS,
    )
    assert reply.content is None
    assert reply.usage == Usage()
    assert reply.as_message()["tool_calls"][0]["function"] == {
        "name": "lookup_knowledge",
        "arguments": '{"query": "x", "top_k": 5}',
    }


def test_every_role_gives_the_same_reply_to_the_same_messages(models):
    conversations = {
        Role.PLANNER: _planner_messages(),
        Role.EXECUTOR: executor_conversation(incident.QUESTION, incident.results()),
        Role.VERIFIER: verifier_messages(question=incident.QUESTION, verdict_ceiling="PASS", verified_claims=[]),
        Role.COMPOSER: composer_messages(
            question=incident.QUESTION,
            effective_verdict="REJECT",
            allowed_claims=[],
            missing_info=[],
            evidence_gaps=[],
            recommended_actions=[],
        ),
    }
    for role, messages in conversations.items():
        first, second = (models.for_role(role).complete(messages, tools=SPECS) for _ in range(2))
        assert (first.content, first.tool_calls, first.usage) == (second.content, second.tool_calls, second.usage), role
        json.loads(first.content or "{}")


@pytest.mark.parametrize(
    "messages",
    [
        [],
        [{"role": "system", "content": "hi"}, {"role": "user", "content": "why is it slow?"}],
        [{"role": "user", "content": json.dumps({"question": "no task key"})}],
    ],
    ids=["empty", "plain text", "no task"],
)
def test_messages_without_a_json_task_are_a_bad_request(models, messages):
    with pytest.raises(ProviderError) as raised:
        models.planner.complete(messages)
    assert raised.value.code == ErrorCode.BAD_REQUEST
    assert raised.value.kind == FailureKind.NON_RETRYABLE_FAILED
