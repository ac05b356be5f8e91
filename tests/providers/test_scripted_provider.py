"""Playing a script: replies in order per role, {{inv:N}}, error replies, delays and exhaustion."""

from __future__ import annotations

import json

import pytest

from diagnosis.providers.base import ErrorCode, FailureKind, ProviderError, Role, ToolCall, Usage, no_invocations
from diagnosis.providers.script import ScriptedReply, parse_script
from diagnosis.providers.scripted import ScriptedChatModel, models_from_script
from tests.providers.conftest import RecordingSleep

MESSAGES = [{"role": "user", "content": "why?"}]
INVOCATION_IDS = ["0d1f6c1e-0000-4000-8000-000000000001", "0d1f6c1e-0000-4000-8000-000000000002"]


def resolve(number: int) -> str:
    if number > len(INVOCATION_IDS):
        raise LookupError(f"only {len(INVOCATION_IDS)} invocations so far")
    return INVOCATION_IDS[number - 1]


def models(data: dict, resolver=resolve):
    return models_from_script(parse_script(data), resolve_invocation=resolver)


def test_each_role_plays_its_own_replies_in_order():
    run = models({"planner": ["plan one", {"content": "plan two"}], "composer": ["answer"]})

    assert run.composer.complete(MESSAGES).content == "answer"
    assert run.planner.complete(MESSAGES).content == "plan one"
    assert run.for_role(Role.PLANNER).complete(MESSAGES).content == "plan two"


def test_the_semantic_guard_plays_its_own_list_and_fails_closed_when_it_runs_out():
    run = models({"semantic_guard": ['{"verdict": "BLOCK", "unsupported": []}'], "composer": ["draft"]})

    assert run.semantic_guard.complete(MESSAGES).content == '{"verdict": "BLOCK", "unsupported": []}'
    with pytest.raises(ProviderError) as error:
        run.semantic_guard.complete(MESSAGES)
    assert error.value.code is ErrorCode.SCRIPT_EXHAUSTED and "semantic_guard" in error.value.message


def test_a_reply_is_a_full_model_reply():
    run = models({"verifier": [{"content": "{}", "reasoning_content": "weighing claim c1"}]})

    reply = run.verifier.complete(MESSAGES, response_format={"type": "json_object"})

    assert reply.content == "{}"
    assert reply.tool_calls == []
    assert reply.reasoning_content == "weighing claim c1"
    assert reply.usage == Usage(0, 0)
    assert (reply.model, reply.attempts) == ("scripted", 1)


def test_reasoning_is_none_unless_the_script_gives_it():
    assert models({"planner": ["plan"]}).planner.complete(MESSAGES).reasoning_content is None


def test_tool_calls_get_stable_ids_and_json_arguments():
    run = models(
        {
            "executor": [
                {"tool_calls": [{"name": "query_logs", "arguments": {"service": "payment"}}]},
                {"tool_calls": [{"name": "a", "arguments": "{}"}, {"name": "b", "arguments": "not json"}]},
            ]
        }
    )

    first = run.executor.complete(MESSAGES)
    second = run.executor.complete(MESSAGES)

    assert first.tool_calls == [ToolCall(id="call_executor_1_1", name="query_logs", arguments='{"service": "payment"}')]
    assert [(call.id, call.arguments) for call in second.tool_calls] == [
        ("call_executor_2_1", "{}"),
        ("call_executor_2_2", "not json"),
    ]
    assert first.content is None


def test_inv_placeholders_become_this_runs_invocation_ids_everywhere():
    binding = {"source_invocation_id": "{{inv:2}}", "raw_path": "$.records[0].message"}
    run = models(
        {
            "executor": [
                {"tool_calls": [{"name": "query_logs", "arguments": {"after": "{{inv:1}}"}}]},
                {"content": json.dumps({"claims": [{"bindings": [binding]}]}), "reasoning_content": "{{inv:1}}"},
            ]
        }
    )

    call = run.executor.complete(MESSAGES).tool_calls[0]
    final = run.executor.complete(MESSAGES)

    assert json.loads(call.arguments) == {"after": INVOCATION_IDS[0]}
    assert json.loads(final.content)["claims"][0]["bindings"][0]["source_invocation_id"] == INVOCATION_IDS[1]
    assert final.reasoning_content == INVOCATION_IDS[0]


def test_placeholders_are_resolved_when_played_not_when_loaded():
    recorded: list[str] = []

    def growing(number: int) -> str:
        if number > len(recorded):
            raise LookupError("not yet")
        return recorded[number - 1]

    run = models({"composer": ["cites {{inv:1}}"]}, resolver=growing)
    recorded.append("late-invocation-id")

    assert run.composer.complete(MESSAGES).content == "cites late-invocation-id"


@pytest.mark.parametrize("resolver", [resolve, no_invocations])
def test_an_unresolvable_placeholder_fails_the_call_non_retryably(resolver):
    run = models({"composer": ["cites {{inv:3}}", "next"]}, resolver=resolver)

    with pytest.raises(ProviderError) as caught:
        run.composer.complete(MESSAGES)

    assert caught.value.code is ErrorCode.SCRIPT_REFERENCE
    assert caught.value.kind is FailureKind.NON_RETRYABLE_FAILED
    assert "{{inv:3}}" in caught.value.message


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ("timeout", FailureKind.RETRYABLE_FAILED),
        ("rate_limit", FailureKind.RETRYABLE_FAILED),
        ("server_error", FailureKind.RETRYABLE_FAILED),
        ("bad_request", FailureKind.NON_RETRYABLE_FAILED),
    ],
)
def test_error_replies_fail_one_call_like_the_real_provider(error, kind):
    run = models({"planner": [{"error": error}, "recovered"]})

    with pytest.raises(ProviderError) as caught:
        run.planner.complete(MESSAGES)

    assert (caught.value.code, caught.value.kind) == (ErrorCode(error), kind)
    assert run.planner.complete(MESSAGES).content == "recovered", "the next call plays the next reply"


def test_running_out_of_replies_is_non_retryable():
    run = models({"verifier": ["only one"]})
    run.verifier.complete(MESSAGES)

    with pytest.raises(ProviderError) as caught:
        run.verifier.complete(MESSAGES)

    assert caught.value.code is ErrorCode.SCRIPT_EXHAUSTED
    assert caught.value.kind is FailureKind.NON_RETRYABLE_FAILED
    assert "only 1 verifier replies" in caught.value.message


def test_a_role_missing_from_the_script_is_exhausted_at_once():
    with pytest.raises(ProviderError) as caught:
        models({"planner": ["plan"]}).executor.complete(MESSAGES)

    assert caught.value.code is ErrorCode.SCRIPT_EXHAUSTED


def test_each_run_starts_the_script_from_the_beginning():
    script = parse_script({"planner": ["first"]})

    for _ in range(2):
        run = models_from_script(script, resolve_invocation=resolve)
        assert run.planner.complete(MESSAGES).content == "first"


def test_delay_is_slept_before_the_reply_or_the_error():
    sleep = RecordingSleep()
    replies = [
        ScriptedReply(content="slow", delay_seconds=2.5),
        ScriptedReply(error=ErrorCode.TIMEOUT, delay_seconds=1),
    ]
    model = ScriptedChatModel(Role.EXECUTOR, replies, resolve_invocation=resolve, sleep=sleep)

    assert model.complete(MESSAGES).content == "slow"
    with pytest.raises(ProviderError):
        model.complete(MESSAGES)
    assert sleep.calls == [2.5, 1.0]


def test_delay_really_waits_by_default():
    replies = [ScriptedReply(content="late", delay_seconds=0.05)]
    model = ScriptedChatModel(Role.COMPOSER, replies, resolve_invocation=resolve)

    assert model.complete(MESSAGES).latency_ms >= 50
