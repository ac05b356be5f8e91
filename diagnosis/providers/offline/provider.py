"""The ``offline`` provider: the five rule-based roles behind the ``ChatModel`` interface.

Each role reads the node's JSON task exactly as a hosted model would and answers in the node's contract,
so the graph, the gatekeeper and the audit trail run unchanged with no model at all (``make run``, CI,
benchmarks). Replies are deterministic: the same messages give the same reply.

Usage is zero: rules read no tokens and cost nothing, and a run's token totals and cost are what a
provider reported, never a guess (the prompt sizes a hosted model would see are measured by
``bench/prompt_tokens.py``). ``reasoning_content`` is always None because rules have no hidden reasoning
to report, and inventing some would corrupt the reasoning audit.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from diagnosis.providers.base import (
    InvocationResolver,
    Message,
    ModelReply,
    ProviderConfig,
    Role,
    RoleModels,
    ToolSpec,
    Usage,
    elapsed_ms,
)
from diagnosis.providers.offline import composer, executor, planner, semantic_guard, verifier
from diagnosis.providers.offline.conversation import read
from diagnosis.providers.offline.memo import RunMemo

OFFLINE_MODEL_NAME = "offline-rules-v1"

# A role that answers in one turn: the task in, the contract's JSON out.
SingleTurnRole = Callable[[dict[str, Any]], dict[str, Any]]
_SINGLE_TURN_ROLES: dict[Role, SingleTurnRole] = {
    Role.PLANNER: planner.plan,
    Role.VERIFIER: verifier.verify,
    Role.COMPOSER: composer.compose,
    Role.SEMANTIC_GUARD: semantic_guard.review,
}


class OfflineChatModel:
    """One role of the offline provider, for one run (``build_models``).

    Its replies depend on the messages alone; the instance only remembers, for the run, the tool results it
    has read and what it concluded from them (``memo.RunMemo``), so each turn of the executor's loop reads
    only what is new. A memo never changes a reply, only how much of it is computed again.
    """

    def __init__(self, role: Role) -> None:
        self.role = role
        self.memo = RunMemo()

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> ModelReply:
        """The role's reply to ``messages``; ``ProviderError(bad_request)`` if they hold no JSON task."""
        started = time.monotonic()
        conversation = read(messages, self.memo)
        if self.role is Role.EXECUTOR:
            turn = executor.respond(conversation, tools_offered=bool(tools), memo=self.memo)
            content, tool_calls = turn.content, turn.tool_calls
        else:
            content = json.dumps(_SINGLE_TURN_ROLES[self.role](conversation.task), ensure_ascii=False)
            tool_calls = []
        return ModelReply(
            content=content,
            tool_calls=tool_calls,
            usage=Usage(),
            reasoning_content=None,
            model=OFFLINE_MODEL_NAME,
            latency_ms=elapsed_ms(started),
        )


def build_models(config: ProviderConfig, *, resolve_invocation: InvocationResolver) -> RoleModels:
    """One run's models. The offline roles cite invocation ids from tool results, so the resolver is unused."""
    return RoleModels(**{role.value: OfflineChatModel(role) for role in Role})
