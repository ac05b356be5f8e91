"""Fitting a prompt into the room it has: the oldest tool results give way first, nothing else does.

The executor's conversation grows by a tool result per call; a run with many calls would otherwise send
ever larger prompts until the model's context or the run's token budget is full. Before each request the
provider trims it: the content of the oldest ``tool`` messages is replaced, one by one, by a short stub
naming the invocation it came from, until the estimate fits. The system prompt and the task (the question
and the current plan) are never touched, and every tool call keeps its answering message, so the
conversation stays valid for any OpenAI-compatible server. What the trimmed results said is still in the
run's invocation store, where the gatekeeper verifies citations; the model merely no longer sees it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from diagnosis.providers.base import Message, ToolSpec
from diagnosis.providers.token_estimate import message_tokens, prompt_tokens


def trimmed_stub(content: object) -> str:
    """What replaces a trimmed tool result: the invocation id (if it had one), so the turn stays readable."""
    invocation_id = None
    if isinstance(content, str):
        try:
            parsed = json.loads(content)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            invocation_id = parsed.get("invocation_id")
    return json.dumps({"invocation_id": invocation_id, "trimmed": "result left out to keep the prompt in budget"})


def fit_prompt(
    messages: Sequence[Message], room: int, tools: Sequence[ToolSpec] | None = None
) -> tuple[list[dict[str, Any]], int]:
    """``messages`` with the oldest tool results trimmed until the estimate is at most ``room``.

    Returns the messages to send and how many results were trimmed. When trimming every tool result is
    not enough, the messages are returned as trimmed as they can be: the caller's budget check refuses them.
    """
    fitted = [dict(message) for message in messages]
    estimate = prompt_tokens(fitted, tools)
    trimmed = 0
    for message in fitted:
        if estimate <= room:
            break
        if message.get("role") != "tool":
            continue
        before = message_tokens(message)
        message["content"] = trimmed_stub(message.get("content"))
        trimmed += 1
        estimate += message_tokens(message) - before
    return fitted, trimmed
