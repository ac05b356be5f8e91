"""The ``openai`` provider: any OpenAI-compatible chat-completions endpoint through the ``openai`` SDK.

Works against OpenAI, DeepSeek, Qwen, vLLM or Ollama alike because it only needs ``LLM_BASE_URL``,
``LLM_MODEL`` and, where the server wants one, ``LLM_API_KEY``. Transport failures are classified once
here into the shared error table of ``base.py``; ``retry.py``'s tenacity policy decides the retries.

A malformed body is NON_RETRYABLE and not retried: it means the endpoint does not speak the protocol (a
wrong ``LLM_BASE_URL``, an HTML page from a proxy), which sending the same request again will not fix.

A failure is described by the SDK error's class and HTTP status only (``config.redaction.error_summary``),
never by the server's text: an endpoint may echo the request, key and prompt included, in its error body.
"""

from __future__ import annotations

import dataclasses
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
    elapsed_ms,
)
from diagnosis.providers.openai_reply import MalformedResponseError, parse_completion
from diagnosis.providers.retry import RetryPolicy, retry_after_seconds


class OpenAIChatModel:
    def __init__(
        self,
        client: openai.OpenAI,
        *,
        model: str,
        retry: RetryPolicy,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self._client = client
        self._model = model
        self._retry = retry
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
        for attempt in self._retry.retrying(sleep=self._sleep, rng=self._rng):
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
        """One HTTP request; the raw body, or a ``ProviderError`` the retry policy can judge."""
        try:
            return self._client.chat.completions.with_raw_response.create(**request).content
        except (openai.APIConnectionError, openai.APIStatusError) as exc:
            code, retry_after = _classify(exc)
            raise ProviderError(
                code, error_summary(exc), attempts=attempts, latency_ms=elapsed_ms(started), retry_after=retry_after
            ) from exc


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
    client = openai.OpenAI(
        base_url=config.base_url,
        # Local servers (vLLM, Ollama) need no key, but the SDK refuses to start without one.
        api_key=config.api_key or "not-needed",
        timeout=config.timeout_seconds,
        # Retries are retry.py's policy alone; the SDK's would multiply LLM_MAX_RETRIES (see retry.py).
        max_retries=0,
    )
    return RoleModels.shared(OpenAIChatModel(client, model=config.model, retry=RetryPolicy(config.max_retries)))
