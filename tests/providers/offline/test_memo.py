"""The executor's per-run memo: it changes how often results are read and analysed, never what a turn says."""

from __future__ import annotations

import json

from diagnosis.nodes.executor import MAX_TURNS
from diagnosis.nodes.messages import executor_messages
from diagnosis.providers.offline import executor
from diagnosis.providers.offline.conversation import read
from diagnosis.providers.offline.memo import NO_MEMO, RunMemo
from tests.providers.offline.loop import plan_for
from tools.registry import tool_specs
from tools.scenarios.pack import PACKS_DIR, read_pack

PACK = PACKS_DIR / "payment-db-pool"


def test_it_computes_a_value_once_per_key():
    memo, asked = RunMemo(), []

    def compute(value: int) -> list[int]:
        asked.append(value)
        return [value]

    first = memo.get(("reading", "tool", "text"), compute, 1)
    again = memo.get(("reading", "tool", "text"), compute, 2)

    assert again is first and asked == [1]
    assert memo.get(("reading", "tool", "other text"), compute, 3) == [3]


def test_an_input_without_a_key_is_never_remembered():
    memo, asked = RunMemo(), []
    for value in (1, 2):
        memo.get(None, asked.append, value)
    NO_MEMO.get(("key",), asked.append, 3)
    NO_MEMO.get(("key",), asked.append, 4)

    assert asked == [1, 2, 3, 4]


def test_every_turn_of_a_run_is_the_turn_without_a_memo(models, load_pack, new_harness, monkeypatch):
    environment = load_pack(PACK)
    question = read_pack(PACK).manifest["questions"][0]["text"]
    harness = new_harness(question)
    plan = plan_for(models, question, environment)
    messages = executor_messages(
        question=question, plan=plan, mode="NORMAL", retry_context=None, environment=environment
    )
    remembered: list[bool] = []
    analyse = executor.analyse_results

    def counted(*args, **kwargs):
        remembered.append(kwargs["memo"] is not NO_MEMO)
        return analyse(*args, **kwargs)

    monkeypatch.setattr(executor, "analyse_results", counted)
    for _ in range(MAX_TURNS):
        reply = models.executor.complete(messages, tools=tool_specs())
        fresh = executor.respond(read(messages), tools_offered=True)
        assert (reply.tool_calls, reply.content) == (fresh.tool_calls, fresh.content)
        if not reply.tool_calls:
            break
        messages.append(reply.as_message())
        for call in reply.tool_calls:
            result = harness.call(call.name, call.arguments)
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result.projection, ensure_ascii=False)}
            )
    assert reply.content and not reply.tool_calls, "the executor reported"
    # Each set of results (the plan's; with the closer look's; all of them) is analysed once in the run,
    # where reading the whole conversation afresh analyses them again at every turn.
    assert 0 < remembered.count(True) <= 3 < remembered.count(False)
