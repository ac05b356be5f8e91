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
loop (``config.bounded_http.run_on_own_loop``, which does not wait for a host name still resolving), and
its own client, since an async client's connections belong to the loop that opened them. The reply is asked
for uncompressed and read up to what its output cap can fill (``config.bounded_http.bounded_sdk_client``, which bounds the error bodies the SDK reads itself too): a
bigger or a compressed one is MALFORMED_RESPONSE, charged whole, before it can fill the worker's memory.

Every request carries its role's output cap (``max_tokens``, or ``max_completion_tokens`` where the endpoint
wants that, ``LLM_MAX_TOKENS_PARAM``), so a degenerate reply cannot run until the server's context is full;
a reply the server cut there comes back ``truncated`` and its node treats it as INVALID_OUTPUT. Before a
request is sent its prompt is fitted into the room it has (``prompt_fit.py``: the largest prompt
``LLM_MAX_PROMPT_TOKENS`` allows and the run's token budget can still pay for with the full cap) and the
run's ``TokenBudget`` admits it or fails it as ``token_budget``; the reply's usage is then spent, and a
request the server may have computed without answering (``_maybe_computed``) is charged whole.

A failure is described by the SDK error's class and HTTP status only (``config.redaction.error_summary``),
never by the server's text: an endpoint may echo the request, key and prompt included, in its error body.
A base URL or key no request can be built from (start-up refuses them, ``config.env``; an in-process caller
may not have) is ``bad_request`` too, so ``complete`` raises nothing but ``ProviderError``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx2
import openai

from config.bounded_http import ResponseRefused, bounded_sdk_client, run_on_own_loop
from config.redaction import error_summary
from config.run_scope import waiting
from diagnosis.providers.base import (
    ErrorCode,
    InvocationResolver,
    Message,
    ModelReply,
    ProviderConfig,
    ProviderConfigError,
    ProviderError,
    Role,
    RoleModels,
    ToolSpec,
    budget_spent,
    elapsed_ms,
)
from diagnosis.providers.deadline import Deadline
from diagnosis.providers.openai_reply import MalformedResponseError, parse_completion
from diagnosis.providers.prompt_fit import fit_prompt
from diagnosis.providers.retry import RetryPolicy, retry_after_seconds
from diagnosis.providers.token_budget import TokenBudget
from diagnosis.providers.token_estimate import fewest_tokens, prompt_tokens

logger = logging.getLogger(__name__)

ClientFactory = Callable[..., openai.AsyncOpenAI]
"""Opens a new SDK client for one request (``build_models`` binds the endpoint, the key and ``max_retries=0``;
the model gives it its ``http_client``)."""

NOT_SENT = (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.UnsupportedProtocol, httpx2.LocalProtocolError)
"""Transport failures before the request left (no connection; a scheme or a header no request can carry), so
no server saw it. ``httpx2`` is the SDK's HTTP client: its error is the ``__cause__`` of ``APIConnectionError``."""

UNBUILDABLE = (httpx2.InvalidURL, UnicodeEncodeError)
"""What building the client or the request raises for a base URL that does not parse or a key no header can carry."""

# A reply is read up to what its output cap can fill (a token is at most a few characters, each JSON-escaped
# as up to six bytes), plus the envelope; uncapped, up to a bound no answer reaches. Past it the endpoint is
# not answering the request (a proxy's dump, a server ignoring the cap), which must not fill the worker.
BYTES_PER_OUTPUT_TOKEN = 32
ENVELOPE_BYTES = 64 * 1024
UNCAPPED_RESPONSE_BYTES = 8 * 1024 * 1024


class OpenAIChatModel:
    def __init__(
        self,
        new_client: ClientFactory,
        *,
        model: str,
        retry: RetryPolicy,
        timeout_seconds: float,
        deadline: Deadline | None = None,
        max_output_tokens: int | None = None,
        max_tokens_param: str = "max_tokens",
        max_prompt_tokens: int | None = None,
        token_budget: TokenBudget | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        """``timeout_seconds``: the wall-clock limit of one request; ``deadline``: the run's model budget;
        ``max_output_tokens``: this role's cap, sent as ``max_tokens_param``; ``max_prompt_tokens`` and
        ``token_budget``: what a prompt is fitted into and the run's token budget (None: unbounded)."""
        self._new_client = new_client
        self._max_output_tokens = max_output_tokens
        self._max_response_bytes = (
            max_output_tokens * BYTES_PER_OUTPUT_TOKEN + ENVELOPE_BYTES
            if max_output_tokens
            else UNCAPPED_RESPONSE_BYTES
        )
        self._max_tokens_param = max_tokens_param
        self._max_prompt_tokens = max_prompt_tokens
        self._token_budget = token_budget
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
        sent, estimate = self._fitted(messages, tools)
        request: dict[str, Any] = {"model": self._model, "messages": sent}
        if self._max_output_tokens is not None:
            request[self._max_tokens_param] = self._max_output_tokens
        if tools:
            request["tools"] = [dict(tool) for tool in tools]
        if response_format is not None:
            request["response_format"] = dict(response_format)
        started = time.monotonic()
        budget = self._deadline.remaining() if self._deadline is not None else None
        if budget == 0.0:
            raise budget_spent()
        cap = self._max_output_tokens or 0
        unanswered = 0  # requests sent that the server may have computed, their usage unknown
        for attempt in self._retry.retrying(sleep=self._sleep, rng=self._rng, within=budget):
            with attempt:
                attempts = attempt.retry_state.attempt_number
                self._admit(estimate, cap, sent=attempts - 1, unanswered=unanswered, started=started)
                try:
                    content = self._send(request, attempts=attempts, started=started)
                except ProviderError as error:
                    if _maybe_computed(error):
                        unanswered += 1
                        self._charge_unanswered(estimate, cap)
                    error.unreported_calls = unanswered
                    raise
        try:
            reply = parse_completion(content, configured_model=self._model)
        except MalformedResponseError as exc:
            self._charge_unanswered(estimate, cap)
            raise ProviderError(
                ErrorCode.MALFORMED_RESPONSE,
                str(exc),
                attempts=attempts,
                latency_ms=elapsed_ms(started),
                unreported_calls=unanswered + 1,
            ) from exc
        if self._token_budget is not None:
            self._token_budget.spend(
                reply.usage, estimated_prompt=estimate, max_output=cap, least_output=fewest_tokens(_written(reply))
            )
        return dataclasses.replace(
            reply, attempts=attempts, latency_ms=elapsed_ms(started), unreported_calls=unanswered
        )

    def _admit(self, estimate: int, cap: int, *, sent: int, unanswered: int, started: float) -> None:
        """Let the token budget refuse the next request (every one, retries included, must fit whole).

        A refusal after ``sent`` requests carries them, those of them with no usage, and the time they took,
        as any failure does, so the node's meter counts the calls a retry ran out of budget after.
        """
        if self._token_budget is None:
            return
        try:
            self._token_budget.admit(estimate, cap)
        except ProviderError as refusal:
            refusal.attempts, refusal.latency_ms = sent, elapsed_ms(started)
            refusal.unreported_calls = unanswered
            raise

    def _charge_unanswered(self, estimate: int, cap: int) -> None:
        """A request the server may have computed but not answered is charged whole."""
        if self._token_budget is not None:
            self._token_budget.spend_unanswered(estimated_prompt=estimate, max_output=cap)

    def _fitted(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None
    ) -> tuple[list[dict[str, Any]], int]:
        """The messages to send, trimmed to the prompt's room, and their estimated prompt tokens.

        A prompt larger than ``LLM_MAX_PROMPT_TOKENS`` even when trimmed is refused as ``token_budget``:
        the server's context could not hold it with the reply anyway.
        """
        rooms = [self._max_prompt_tokens]
        if self._token_budget is not None:
            rooms.append(self._token_budget.prompt_room(self._max_output_tokens or 0))
        bounds = [room for room in rooms if room is not None]
        if not bounds:
            return [dict(message) for message in messages], prompt_tokens(messages, tools)
        sent, trimmed = fit_prompt(messages, min(bounds), tools)
        estimate = prompt_tokens(sent, tools)
        if trimmed:
            logger.info("prompt trimmed to about %d tokens: %d oldest tool results left out", estimate, trimmed)
        if self._max_prompt_tokens is not None and estimate > self._max_prompt_tokens:
            raise ProviderError(
                ErrorCode.TOKEN_BUDGET,
                f"the prompt needs about {estimate} tokens, more than LLM_MAX_PROMPT_TOKENS={self._max_prompt_tokens}",
                attempts=0,
            )
        return sent, estimate

    def _send(self, request: dict[str, Any], *, attempts: int, started: float) -> bytes:
        """One HTTP request within its deadline; the raw body, or a ``ProviderError`` the retry policy can judge."""
        seconds = self._timeout_seconds
        if self._deadline is not None:
            seconds = min(seconds, self._deadline.remaining())
        waiting()
        try:
            return run_on_own_loop(self._post(request, seconds))
        except TimeoutError as exc:
            raise ProviderError(
                ErrorCode.TIMEOUT,
                f"no whole response within {seconds:.3g} s",
                attempts=attempts,
                latency_ms=elapsed_ms(started),
            ) from exc
        except ResponseRefused as exc:  # compressed, or past the bound (the SDK lets it through)
            raise ProviderError(
                ErrorCode.MALFORMED_RESPONSE, str(exc), attempts=attempts, latency_ms=elapsed_ms(started)
            ) from exc
        except (openai.APIConnectionError, openai.APIStatusError) as exc:
            code, retry_after = _classify(exc)
            raise ProviderError(
                code, error_summary(exc), attempts=attempts, latency_ms=elapsed_ms(started), retry_after=retry_after
            ) from exc
        except UNBUILDABLE as exc:
            raise ProviderError(
                ErrorCode.BAD_REQUEST,
                f"the request cannot be built from LLM_BASE_URL and LLM_API_KEY: {error_summary(exc)}",
                attempts=attempts - 1,  # this one never left
                latency_ms=elapsed_ms(started),
            ) from exc

    async def _post(self, request: dict[str, Any], seconds: float) -> bytes:
        """The request, from connecting to the body's last byte, cancelled when ``seconds`` have passed, its
        body read uncompressed up to ``_max_response_bytes``."""
        async with (
            bounded_sdk_client(self._max_response_bytes) as http,
            self._new_client(http_client=http) as client,
            asyncio.timeout(seconds),
        ):
            response = await client.chat.completions.with_raw_response.create(**request)
            return response.content


def _written(reply: ModelReply) -> str:
    """Everything the model wrote in ``reply``: its answer, its hidden reasoning, its calls."""
    calls = "".join(call.name + call.arguments for call in reply.tool_calls)
    return (reply.content or "") + (reply.reasoning_content or "") + calls


def _maybe_computed(error: ProviderError) -> bool:
    """Whether the server may have computed a request that brought no usage back, so it must be charged.

    It may have when the request was given up at its deadline, answered with a 5xx (a gateway's 502 or 504
    in front of a model that went on), or lost after it was sent (a body cut half-way). A request that never
    connected, or that a 4xx or 429 refused, cost the server nothing.
    """
    cause = error.__cause__
    if isinstance(cause, openai.APIStatusError):
        return cause.status_code >= 500
    if isinstance(cause, openai.APIConnectionError):
        return not isinstance(cause.__cause__, NOT_SENT)
    return isinstance(cause, (TimeoutError, ResponseRefused))


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
    """One client factory, one model per role: a real model is told its role by the node's prompt, and each
    role's requests carry that role's output cap."""
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
    models = {
        role.value: OpenAIChatModel(
            new_client,
            model=config.model,
            retry=RetryPolicy(config.max_retries),
            timeout_seconds=config.timeout_seconds,
            deadline=config.deadline,
            max_output_tokens=config.output_tokens.get(role.value),
            max_tokens_param=config.max_tokens_param,
            max_prompt_tokens=config.max_prompt_tokens,
            token_budget=config.token_budget,
        )
        for role in Role
    }
    return RoleModels(**models)
