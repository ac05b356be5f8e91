"""The ``openai`` provider: any OpenAI-compatible chat-completions endpoint through the ``openai`` SDK.

Works against OpenAI, DeepSeek, Qwen, vLLM or Ollama alike because it only needs ``LLM_BASE_URL``,
``LLM_MODEL`` and, where the server wants one, ``LLM_API_KEY``. Transport failures are classified once
here into the shared error table of ``base.py``; ``retry.py``'s tenacity policy decides the retries.

A malformed body is NON_RETRYABLE and not retried: it means the endpoint does not speak the protocol (a
wrong ``LLM_BASE_URL``, an HTML page from a proxy), which sending the same request again will not fix.

Every request has a wall-clock deadline: ``LLM_TIMEOUT_SECONDS`` or what is left of the run's model budget,
whichever ends first. The HTTP client's own timeouts cannot give one, because its read timeout restarts
with every chunk, so an endpoint that sends its headers and then a byte a second is never timed out. The
request therefore runs on the SDK's async client inside ``asyncio.timeout``, which cancels it wherever it
is (connecting, waiting for headers, reading the body), as httpx's maintainers advise for a total timeout
(encode/httpx#1450). The node calling ``complete`` stays synchronous: each request gets its own event
loop, and its own client, since an async client's connections belong to the loop that opened them.

A failure is described by the SDK error's class and HTTP status only (``config.redaction.error_summary``),
never by the server's text: an endpoint may echo the request, key and prompt included, in its error body.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import openai

from config.redaction import error_summary
from diagnosis.providers.base import (
    ErrorCode,
    InvocationResolver,
    Message,
    ModelReply,
    ProviderConfig,
    ProviderConfigError,
    ProviderError,
    RoleModels,
    ToolSpec,
    budget_spent,
    elapsed_ms,
)
from diagnosis.providers.deadline import Deadline
from diagnosis.providers.openai_reply import MalformedResponseError, parse_completion
from diagnosis.providers.retry import RetryPolicy, retry_after_seconds

ClientFactory = Callable[[], openai.AsyncOpenAI]
"""Opens a new SDK client for one request (``build_models`` binds the endpoint, the key and ``max_retries=0``)."""


class OpenAIChatModel:
    def __init__(
        self,
        new_client: ClientFactory,
        *,
        model: str,
        retry: RetryPolicy,
        timeout_seconds: float,
        deadline: Deadline | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        """``timeout_seconds``: the wall-clock limit of one request; ``deadline``: the run's model budget."""
        self._new_client = new_client
        self._model = model
        self._retry = retry
        self._timeout_seconds = timeout_seconds
        self._deadline = deadline
        self._sleep = sleep
        self._rng = rng or random.Random()

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> ModelReply:
        request: dict[str, Any] = {"model": self._model, "messages": [dict(message) for message in messages]}
        if tools:
            request["tools"] = [dict(tool) for tool in tools]
        if response_format is not None:
            request["response_format"] = dict(response_format)
        started = time.monotonic()
        budget = self._deadline.remaining() if self._deadline is not None else None
        if budget == 0.0:
            raise budget_spent()
        for attempt in self._retry.retrying(sleep=self._sleep, rng=self._rng, within=budget):
            with attempt:
                attempts = attempt.retry_state.attempt_number
                content = self._send(request, attempts=attempts, started=started)
        try:
            reply = parse_completion(content, configured_model=self._model)
        except MalformedResponseError as exc:
            raise ProviderError(
                ErrorCode.MALFORMED_RESPONSE, str(exc), attempts=attempts, latency_ms=elapsed_ms(started)
            ) from exc
        return dataclasses.replace(reply, attempts=attempts, latency_ms=elapsed_ms(started))

    def _send(self, request: dict[str, Any], *, attempts: int, started: float) -> bytes:
        """One HTTP request within its deadline; the raw body, or a ``ProviderError`` the retry policy can judge."""
        seconds = self._timeout_seconds
        if self._deadline is not None:
            seconds = min(seconds, self._deadline.remaining())
        try:
            return asyncio.run(self._post(request, seconds))
        except TimeoutError as exc:
            raise ProviderError(
                ErrorCode.TIMEOUT,
                f"no whole response within {seconds:.3g} s",
                attempts=attempts,
                latency_ms=elapsed_ms(started),
            ) from exc
        except (openai.APIConnectionError, openai.APIStatusError) as exc:
            code, retry_after = _classify(exc)
            raise ProviderError(
                code, error_summary(exc), attempts=attempts, latency_ms=elapsed_ms(started), retry_after=retry_after
            ) from exc

    async def _post(self, request: dict[str, Any], seconds: float) -> bytes:
        """The request, from connecting to the body's last byte, cancelled when ``seconds`` have passed."""
        async with self._new_client() as client, asyncio.timeout(seconds):
            response = await client.chat.completions.with_raw_response.create(**request)
            return response.content


def _classify(exc: openai.APIConnectionError | openai.APIStatusError) -> tuple[ErrorCode, float | None]:
    """Map an SDK failure to (code, the server's requested wait)."""
    if isinstance(exc, openai.APITimeoutError):
        return ErrorCode.TIMEOUT, None
    if isinstance(exc, openai.APIConnectionError):
        return ErrorCode.CONNECTION, None
    status = exc.status_code
    retry_after = retry_after_seconds(exc.response.headers)
    if status == 429:
        return ErrorCode.RATE_LIMIT, retry_after
    if status == 408:
        return ErrorCode.TIMEOUT, retry_after
    if status >= 500:
        return ErrorCode.SERVER_ERROR, retry_after
    if status in (401, 403):
        return ErrorCode.AUTH, None
    return ErrorCode.BAD_REQUEST, None


def build_models(config: ProviderConfig, *, resolve_invocation: InvocationResolver) -> RoleModels:
    """One client and one model for every role: a real model is told its role by the node's prompt."""
    missing = [name for name, value in (("LLM_BASE_URL", config.base_url), ("LLM_MODEL", config.model)) if not value]
    if missing:
        raise ProviderConfigError(f"provider 'openai' needs {' and '.join(missing)}")
    new_client = functools.partial(
        openai.AsyncOpenAI,
        base_url=config.base_url,
        # Local servers (vLLM, Ollama) need no key, but the SDK refuses to start without one.
        api_key=config.api_key or "not-needed",
        # Retries are retry.py's policy alone; the SDK's would multiply LLM_MAX_RETRIES (see retry.py).
        max_retries=0,
    )
    model = OpenAIChatModel(
        new_client,
        model=config.model,
        retry=RetryPolicy(config.max_retries),
        timeout_seconds=config.timeout_seconds,
        deadline=config.deadline,
    )
    return RoleModels.shared(model)
