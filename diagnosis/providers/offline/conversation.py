"""Reading what a node sent: the task JSON and, in the executor loop, the tool calls and their results.

The offline roles read the same messages a hosted model would: the last user message is the node's JSON
task (``diagnosis/nodes/messages.py``), and everything after it is the executor loop's assistant turns and
tool results. A message the node could not have built is a bad request, reported as ``ProviderError``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from diagnosis.providers.base import ErrorCode, Message, ProviderError
from diagnosis.providers.offline.memo import NO_MEMO, Memo


@dataclass(frozen=True)
class ToolExchange:
    """One tool call the executor made and the projection the harness answered with."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    result: dict[str, Any]
    text: str | None = field(default=None, compare=False, repr=False)
    """The tool message's content as it was sent, when it was text: the result's exact identity."""

    def memo_key(self, reading: str) -> tuple[str, str, str] | None:
        """The key of ``reading`` of this result in a run's memo: the tool and the result's text are all that
        an analysis of one result depends on (None without the text: then it is not remembered)."""
        return None if self.text is None else (reading, self.name, self.text)

    @property
    def ready(self) -> bool:
        return self.result.get("status") == "READY" and bool(self.result.get("invocation_id"))

    @property
    def invocation_id(self) -> str:
        return str(self.result.get("invocation_id", ""))


@dataclass(frozen=True)
class Conversation:
    task: dict[str, Any]
    exchanges: list[ToolExchange]


def read(messages: Sequence[Message], memo: Memo = NO_MEMO) -> Conversation:
    """The task of the last user message and the tool exchanges that follow it; ``memo`` keeps the JSON of
    tool results already read on an earlier turn of the run."""
    task_index, task = _last_task(messages)
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    exchanges: list[ToolExchange] = []
    for message in messages[task_index + 1 :]:
        if message.get("role") == "assistant" and message.get("tool_calls"):
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                calls[str(call.get("id"))] = (str(function.get("name", "")), _object(function.get("arguments")))
        elif message.get("role") == "tool":
            call_id = str(message.get("tool_call_id"))
            name, arguments = calls.get(call_id, ("", {}))
            content = message.get("content")
            text = content if isinstance(content, str) else None
            result = memo.get(None if text is None else ("json", text), _object, content)
            exchanges.append(ToolExchange(call_id, name, arguments, result, text))
    return Conversation(task=task, exchanges=exchanges)


def result_items(
    exchanges: Iterable[ToolExchange], tool: str, key: str
) -> Iterator[tuple[ToolExchange, dict[str, Any]]]:
    """``(exchange, item)`` for each object of list ``key`` in every READY result of ``tool``, in order."""
    for exchange in exchanges:
        if exchange.name == tool and exchange.ready:
            for item in exchange.result.get(key) or []:
                if isinstance(item, dict):
                    yield exchange, item


def _last_task(messages: Sequence[Message]) -> tuple[int, dict[str, Any]]:
    """The last user message holding a task: its index and its JSON, read once."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") == "user" and isinstance((task := _object(message.get("content"))).get("task"), str):
            return index, task
    raise ProviderError(ErrorCode.BAD_REQUEST, "the offline provider needs a user message holding the node's JSON task")


def _object(content: Any) -> dict[str, Any]:
    """``content`` as a JSON object; anything else (text, broken JSON, a list) reads as empty."""
    if isinstance(content, Mapping):
        return dict(content)
    if not isinstance(content, str):
        return {}
    try:
        value = json.loads(content)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
