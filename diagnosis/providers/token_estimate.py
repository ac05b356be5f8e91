"""How many tokens a request's prompt may take, before it is sent: a conservative estimate.

The token budget must be checked before a call, when no server has counted anything yet. An exact count
needs the served model's own tokenizer, which this project cannot have: a hosted model's is not published
(DeepSeek, Qwen and a llama.cpp GGUF each differ from OpenAI's), and ``tiktoken`` downloads its encodings
at first use, which an offline machine cannot (docs/decisions.md). So the estimate is deliberately high:
one token per ``BYTES_PER_TOKEN`` bytes of UTF-8. English prose and JSON average about four characters a
token in BPE vocabularies, so they are over-counted by about a quarter; a CJK character is three bytes and
counted as one token, which is what the larger vocabularies (o200k, Qwen's) give it. Each message adds the
few tokens of its chat-template framing, and the tool schemas are counted like text, since the server puts
them into the prompt too. Over-counting only makes the budget end a run a little early. It is no bound,
though: a tokenizer that splits a text finer than three bytes a token (a llama tokenizer gives every digit
a token) is under-counted, so the run's budget scales later estimates by what replies report
(``token_budget.py``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from diagnosis.providers.base import Message, ToolSpec

BYTES_PER_TOKEN = 3
MESSAGE_OVERHEAD_TOKENS = 4
"""Role markers and separators the chat template wraps around every message (OpenAI's cookbook counts 3–4)."""


def text_tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / BYTES_PER_TOKEN)


# Longer than any token of a served model's vocabulary, nearly: a reply's text is at least its bytes over this
# many tokens, whatever the server reports.
MOST_BYTES_PER_TOKEN = 16


def fewest_tokens(text: str) -> int:
    """The fewest tokens ``text`` can have been written in: a server reporting fewer (5 completion tokens for
    a megabyte) is not believed by the run's token budget."""
    return len(text.encode("utf-8", errors="surrogatepass")) // MOST_BYTES_PER_TOKEN


def message_tokens(message: Message) -> int:
    """One message: its content and, for an assistant turn, the tool calls it made."""
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False) if content else ""
    calls = message.get("tool_calls")
    if calls:
        text += json.dumps(calls, ensure_ascii=False)
    return MESSAGE_OVERHEAD_TOKENS + text_tokens(text)


def prompt_tokens(messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None) -> int:
    """The whole prompt of one request: every message and the tool schemas offered with it."""
    schemas = text_tokens(json.dumps(list(tools), ensure_ascii=False)) if tools else 0
    return sum(message_tokens(message) for message in messages) + schemas
