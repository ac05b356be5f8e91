"""The one model interface every agent node calls, whatever answers behind it.

A node builds OpenAI-format chat messages, calls ``complete`` and gets a ``ModelReply`` or a typed
``ProviderError``; it never sees the SDK, HTTP or a script. The error's ``kind`` uses the same words as the
node statuses of seed 000 (``RETRYABLE_FAILED`` / ``NON_RETRYABLE_FAILED``) so a node can copy it into its
status and the graph's retry matrix decides what happens next.

Models are built per run and per role (``RoleModels``) rather than taking a ``role`` argument on every call:
the scripted and rule-based providers must know which node is asking, per-run state (a script's cursor, the
``{{inv:N}}`` resolver) must not outlive the run, and the ``openai`` provider gives each role its own output cap.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from diagnosis.graph.status import StageStatus
from diagnosis.providers.deadline import Deadline

if TYPE_CHECKING:
    from diagnosis.providers.token_budget import TokenBudget

Message = Mapping[str, Any]
"""One chat message in the OpenAI format: ``role``, ``content``, and ``tool_calls`` / ``tool_call_id``."""

ToolSpec = Mapping[str, Any]
"""One tool in the OpenAI format: ``{"type": "function", "function": {"name", "description", "parameters"}}``."""

InvocationResolver = Callable[[int], str]
"""Maps N (1-based) to the id of the run's N-th tool invocation; raises ``LookupError`` when there is none."""


class Role(StrEnum):
    PLANNER = "planner"
    EXECUTOR = "executor"
    VERIFIER = "verifier"
    COMPOSER = "composer"
    SEMANTIC_GUARD = "semantic_guard"


class FailureKind(StrEnum):
    """The stage status a failed call leads to: the same values as ``StageStatus``, copied by the node."""

    RETRYABLE_FAILED = StageStatus.RETRYABLE_FAILED.value
    NON_RETRYABLE_FAILED = StageStatus.NON_RETRYABLE_FAILED.value


class ErrorCode(StrEnum):
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    RATE_LIMIT = "rate_limit"
    SERVER_ERROR = "server_error"
    BAD_REQUEST = "bad_request"
    AUTH = "auth"
    MALFORMED_RESPONSE = "malformed_response"
    SCRIPT_EXHAUSTED = "script_exhausted"
    SCRIPT_REFERENCE = "script_reference"
    TOKEN_BUDGET = "token_budget"
    """The call cannot fit in what is left of the run's token budget (``token_budget.py``): never sent."""


# The single error table for every provider, so a scripted "rate_limit" fails exactly like a real 429.
RETRYABLE_CODES = frozenset({ErrorCode.TIMEOUT, ErrorCode.CONNECTION, ErrorCode.RATE_LIMIT, ErrorCode.SERVER_ERROR})


class ProviderError(Exception):
    """A model call that produced no reply.

    ``attempts`` and ``latency_ms`` (retries and backoff included) let the node record the failed step as
    faithfully as a successful one; ``unreported_calls`` counts the attempts the server may have computed
    (and billed) without reporting their usage, as ``ModelReply.unreported_calls`` does. ``retry_after`` is
    the wait in seconds the server asked for, if any: the provider's retry policy (``retry.py``) obeys a
    short one and does not retry after a long one.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        attempts: int = 1,
        latency_ms: int = 0,
        retry_after: float | None = None,
        unreported_calls: int = 0,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.attempts = attempts
        self.latency_ms = latency_ms
        self.retry_after = retry_after
        self.unreported_calls = unreported_calls

    @property
    def kind(self) -> FailureKind:
        if self.code in RETRYABLE_CODES:
            return FailureKind.RETRYABLE_FAILED
        return FailureKind.NON_RETRYABLE_FAILED


def budget_spent() -> ProviderError:
    """The failure of a model call that cannot start because the run's model budget (``deadline.py``) is spent.

    A timeout, the code the graph already routes: a stage retries once (and fails at once again), then the
    run ends in its fallback answer.
    """
    return ProviderError(ErrorCode.TIMEOUT, "the run's model budget is spent", attempts=0)


def token_budget_spent(needed: int, left: int) -> ProviderError:
    """The failure of a model call that would not fit in the run's token budget (``token_budget.py``).

    Non-retryable: the same call would not fit a second time, so its stage goes straight to the fallback,
    whose ``termination_reason`` then names the budget (``fallback_<node>_model_token_budget``). ``attempts``
    is 0: a provider refusing a retry sets the requests it already sent.
    """
    return ProviderError(
        ErrorCode.TOKEN_BUDGET,
        f"the call needs up to {needed} tokens; the run's token budget has {left} left",
        attempts=0,
    )


class ProviderConfigError(Exception):
    """The provider cannot be built (unknown name, missing setting, bad script): found before any model call.

    ``manage.py diagnose`` turns it into exit code 2, so the message must name the problem on its own.
    """


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str
    """The JSON text the model produced, unparsed: validating it is the tool harness's job."""


@dataclass(frozen=True)
class Usage:
    """What the provider reported for one reply; zeros where it reported nothing (the offline provider)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    """The part of ``completion_tokens`` spent on hidden reasoning, where the endpoint reports it."""
    reported: bool = True
    """False when a served model's reply carried no counts: its tokens were spent but are unknown, and no
    cost computed from these zeros may be shown as the run's (``pricing``). The offline provider spends none."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class ModelReply:
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    reasoning_content: str | None = None
    """Only what the provider really returned as its reasoning; None otherwise, never synthesised."""
    model: str = ""
    latency_ms: int = 0
    """Wall time of the whole ``complete`` call, retries and backoff included: what the run waited."""
    attempts: int = 1
    unreported_calls: int = 0
    """Attempts before this reply that the server may have computed without reporting their usage (a 5xx, a
    timeout, a connection lost after sending): their cost is unknown, so the run's is (``pricing``)."""
    truncated: bool = False
    """The reply was cut by its output cap (``finish_reason == "length"``): the node treats it as INVALID_OUTPUT."""

    def as_message(self) -> dict[str, Any]:
        """The assistant turn to append to the conversation before the tool results (executor loop).

        ``reasoning_content`` is deliberately left out: reasoning is restricted audit material, and
        feeding it back would let it shape later turns as if it were context.
        """
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
                for call in self.tool_calls
            ]
        return message


class ChatModel(Protocol):
    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> ModelReply:
        """Return the model's next reply or raise ``ProviderError``; never any other exception for a bad call."""


@dataclass(frozen=True)
class RoleModels:
    """The models of one run, one per agent role (the semantic guard reviews the composer's drafts)."""

    planner: ChatModel
    executor: ChatModel
    verifier: ChatModel
    composer: ChatModel
    semantic_guard: ChatModel

    def for_role(self, role: Role) -> ChatModel:
        return getattr(self, role.value)


@dataclass(frozen=True)
class ProviderConfig:
    """Everything a provider builder may need; read from settings or given by the CLI."""

    name: str
    base_url: str | None = None
    api_key: str = ""
    model: str = ""
    timeout_seconds: float = 60.0
    max_retries: int = 2
    script_path: str = ""
    guard_provider: str = ""
    """Provider of the semantic guard when it differs from ``name`` (``offline``: the deterministic guard)."""
    deadline: Deadline | None = None
    """The run's model budget (``deadline.py``), set when the run starts; None outside a run (validation, tests)."""
    output_tokens: Mapping[str, int] = field(default_factory=dict)
    """Each role's output cap per request (``LLM_MAX_OUTPUT_TOKENS_<ROLE>``); a role missing here has none."""
    max_tokens_param: str = "max_tokens"
    """The request field that carries the cap: ``max_tokens`` or ``max_completion_tokens`` (``LLM_MAX_TOKENS_PARAM``)."""
    max_prompt_tokens: int | None = None
    """The largest prompt one request may send (``LLM_MAX_PROMPT_TOKENS``); None: unbounded."""
    token_budget: TokenBudget | None = None
    """The run's token budget (``token_budget.py``), set when the run starts; None: unmetered."""


class ProviderBuilder(Protocol):
    def __call__(self, config: ProviderConfig, *, resolve_invocation: InvocationResolver) -> RoleModels:
        """Build one run's models; raise ``ProviderConfigError`` when ``config`` cannot work."""


def elapsed_ms(started: float) -> int:
    """Milliseconds since ``started`` (a ``time.monotonic()`` reading), so every provider times alike."""
    return round((time.monotonic() - started) * 1000)


def no_invocations(n: int) -> str:
    """Resolver for callers without a run (config validation, unit tests): nothing can be cited."""
    raise LookupError(f"no tool invocations are available, so {{{{inv:{n}}}}} cannot be resolved")
