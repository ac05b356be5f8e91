"""The ``scripted`` provider: replays a checked script, one reply per ``complete`` call, per role.

Used by tests and by ``manage.py diagnose --script`` to drive the real graph with exact model outputs,
lies included (forged citations, wrong tools), without a model. Error replies raise the same
``ProviderError`` a real endpoint would produce *after* its retries, so each scripted error is one failed
node attempt: the graph's retry matrix is what gets exercised, not the provider's backoff.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

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
    ToolCall,
    ToolSpec,
    elapsed_ms,
)
from diagnosis.providers.script import INVOCATION_PLACEHOLDER, Script, ScriptedReply, load_script

SCRIPTED_MODEL_NAME = "scripted"


class ScriptedChatModel:
    """Plays one role's replies in order. Build one per run: the position in the script is run state."""

    def __init__(
        self,
        role: Role,
        replies: Sequence[ScriptedReply],
        *,
        resolve_invocation: InvocationResolver,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._role = role
        self._replies = tuple(replies)
        self._resolve_invocation = resolve_invocation
        self._sleep = sleep
        self._played = 0

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> ModelReply:
        """The next reply; the request itself is ignored, the script alone decides what the model says."""
        started = time.monotonic()
        if self._played >= len(self._replies):
            raise ProviderError(
                ErrorCode.SCRIPT_EXHAUSTED, f"the script has only {len(self._replies)} {self._role} replies"
            )
        self._played += 1
        reply = self._replies[self._played - 1]
        waiting()  # it stands for a hosted model, which the run waits for (a delayed reply does wait)
        if reply.delay_seconds:
            self._sleep(reply.delay_seconds)
        if reply.error is not None:
            raise ProviderError(
                reply.error,
                f"scripted {reply.error} ({self._role} reply {self._played})",
                latency_ms=elapsed_ms(started),
            )
        return ModelReply(
            content=self._substitute_optional(reply.content),
            tool_calls=[
                ToolCall(
                    id=f"call_{self._role}_{self._played}_{index}",
                    name=call.name,
                    arguments=self._substitute(call.arguments),
                )
                for index, call in enumerate(reply.tool_calls, 1)
            ],
            reasoning_content=self._substitute_optional(reply.reasoning_content),
            model=SCRIPTED_MODEL_NAME,
            latency_ms=elapsed_ms(started),
        )

    def _substitute_optional(self, text: str | None) -> str | None:
        return None if text is None else self._substitute(text)

    def _substitute(self, text: str) -> str:
        """Replace each ``{{inv:N}}`` now, at play time, since invocations are created during the run."""

        def invocation_id(match: re.Match[str]) -> str:
            number = int(match.group(1))
            try:
                return self._resolve_invocation(number)
            except LookupError as exc:
                raise ProviderError(
                    ErrorCode.SCRIPT_REFERENCE, f"{match.group(0)} in {self._role} reply {self._played}: {exc}"
                ) from exc

        return INVOCATION_PLACEHOLDER.sub(invocation_id, text)


def build_models(config: ProviderConfig, *, resolve_invocation: InvocationResolver) -> RoleModels:
    if not config.script_path:
        raise ProviderConfigError("provider 'scripted' needs a script file (LLM_SCRIPT_PATH or --script)")
    return models_from_script(load_script(config.script_path), resolve_invocation=resolve_invocation)


def models_from_script(script: Script, *, resolve_invocation: InvocationResolver) -> RoleModels:
    """A run's models from an already loaded script (tests build scripts in memory)."""
    return RoleModels(
        **{
            role.value: ScriptedChatModel(role, script.for_role(role), resolve_invocation=resolve_invocation)
            for role in Role
        }
    )
