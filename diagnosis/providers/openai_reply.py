"""Turn a chat-completions response body into a ``ModelReply``, or refuse it as malformed.

The body is checked by hand instead of through the SDK's models because "OpenAI-compatible" servers
(vLLM, Ollama, gateways) differ in the fields they omit, and the SDK's lenient parsing would hand back a
half-built object (``choices=None``, a string where a message belongs) that fails later, far from the
cause. Only the fields a node relies on are required; everything else is optional.
"""

from __future__ import annotations

import json
from typing import Any

from config.text import is_unicode_text
from diagnosis.providers.base import ModelReply, ToolCall, Usage

# DeepSeek (and vLLM before 0.10) name it ``reasoning_content``; vLLM since and OpenRouter say ``reasoning``.
REASONING_KEYS = ("reasoning_content", "reasoning")
# The finish reason of a reply the server stopped at the request's output cap (``max_tokens``).
CUT_BY_CAP = "length"
# A token count past this is no server's (a 32-bit count of one request): it is read as not reported, as the
# database's columns could not hold it and the budget must not be charged a garbage number.
MAX_TOKEN_COUNT = 2**31 - 1


class MalformedResponseError(ValueError):
    """The body is not a usable chat completion; the message names the first problem."""


def parse_completion(body: bytes, *, configured_model: str) -> ModelReply:
    """Parse one response body; timing and attempt counts are the caller's to add."""
    try:
        data = json.loads(body)
    except ValueError as exc:  # not UTF-8, not JSON, or an integer longer than Python converts
        raise MalformedResponseError(f"body is not JSON ({exc})") from exc
    except RecursionError:
        raise MalformedResponseError("body is JSON nested too deeply to read") from None
    message, finish_reason = _first_message(data)
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise MalformedResponseError("message.content is neither a string nor null")
    model = data.get("model")
    reply = ModelReply(
        content=content,
        tool_calls=_tool_calls(message.get("tool_calls")),
        usage=_usage(data.get("usage")),
        reasoning_content=_reasoning(message),
        model=model if isinstance(model, str) and model else configured_model,
        truncated=finish_reason == CUT_BY_CAP,
    )
    texts = [reply.content, reply.reasoning_content, reply.model]
    texts += [text for call in reply.tool_calls for text in (call.id, call.name, call.arguments)]
    if not all(is_unicode_text(text) for text in texts if text):
        # A ``\ud800`` escape is valid JSON but no character: no prompt, log or database row can hold it.
        raise MalformedResponseError("the reply holds an unpaired surrogate code point")
    return reply


def _first_message(data: Any) -> tuple[dict[str, Any], Any]:
    """The first choice's message and its ``finish_reason`` (None or anything else when not reported)."""
    if not isinstance(data, dict):
        raise MalformedResponseError("body is not a JSON object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise MalformedResponseError("no choices")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise MalformedResponseError("choices[0].message is not an object")
    return message, choice.get("finish_reason")


def _tool_calls(raw: Any) -> list[ToolCall]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise MalformedResponseError("message.tool_calls is not a list")
    calls = []
    for index, item in enumerate(raw):
        function = item.get("function") if isinstance(item, dict) else None
        call_id, name, arguments = (
            (item.get("id"), function.get("name"), function.get("arguments"))
            if isinstance(function, dict)
            else (None, None, None)
        )
        if not (isinstance(call_id, str) and isinstance(name, str) and isinstance(arguments, str)):
            raise MalformedResponseError(f"tool_calls[{index}] lacks a string id, function.name or function.arguments")
        calls.append(ToolCall(id=call_id, name=name, arguments=arguments))
    return calls


def _usage(raw: Any) -> Usage:
    """Token counts when reported; zeros otherwise, marked unreported, since a missing count must not fail a
    good answer (the token budget charges its bound) nor be priced as nothing."""
    if not isinstance(raw, dict):
        return Usage(reported=False)
    details = raw.get("completion_tokens_details")
    prompt, completion = raw.get("prompt_tokens"), raw.get("completion_tokens")
    return Usage(
        prompt_tokens=_count(prompt),
        completion_tokens=_count(completion),
        # OpenAI, DeepSeek and vLLM report it here; servers that do not (llama.cpp, Ollama) leave it 0.
        reasoning_tokens=_count(details.get("reasoning_tokens")) if isinstance(details, dict) else 0,
        reported=_count(prompt) == prompt and _count(completion) == completion,
    )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKEN_COUNT else 0


def _reasoning(message: dict[str, Any]) -> str | None:
    """The provider's own reasoning text if it sent a non-empty one; never derived from the content."""
    for key in REASONING_KEYS:
        value = message.get(key)
        if isinstance(value, str) and value:
            return value
    return None
