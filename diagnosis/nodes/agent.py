"""Model calls of an agent node, metered into the one ``agent_step`` row each node attempt writes.

A node attempt may call its model several times (the executor's tool loop); the meter sums tokens, time
and calls across them and keeps only the provider's reasoning and the assistant's visible text for the
restricted audit, never the prompts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from diagnosis.contracts import InvalidOutput
from diagnosis.graph.status import StageStatus
from diagnosis.nodes.context import NodeContext
from diagnosis.nodes.messages import prompt
from diagnosis.providers.base import ChatModel, Message, ModelReply, ProviderError, ToolSpec, Usage
from tracing.steps import StepRecord

JSON_OUTPUT = {"type": "json_object"}
AUDIT_TEXT_MAX_CHARS = 20_000


class StepMeter:
    def __init__(self, context: NodeContext, node: str, attempt: int, *, role: str = "") -> None:
        """``role``: the model role when it is not the node's own (the semantic guard inside the composer)."""
        self.context, self.node, self.attempt = context, node, attempt
        self.role = role or node
        self.model = ""
        self.prompt_tokens = self.completion_tokens = self.reasoning_tokens = self.model_calls = self.latency_ms = 0
        self.unreported_calls = 0
        self._reasoning: list[str] = []
        self._assistant: list[str] = []

    def complete(
        self,
        model: ChatModel,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        response_format: Mapping[str, Any] | None = JSON_OUTPUT,
    ) -> ModelReply:
        """One model call, metered whether it succeeds or raises ``ProviderError``.

        A reply cut by its output cap is metered (its tokens were spent) and then refused as
        ``InvalidOutput``: a half-written JSON object or tool call must not reach the node's parser as if
        it were whole, even where it happens to parse.
        """
        try:
            reply = model.complete(messages, tools=tools, response_format=response_format)
        except ProviderError as error:
            self.model_calls += error.attempts
            self.unreported_calls += error.unreported_calls
            self.latency_ms += error.latency_ms
            raise
        self.model = reply.model or self.model
        self._add_usage(reply.usage)
        self.model_calls += reply.attempts
        self.unreported_calls += reply.unreported_calls
        self.latency_ms += reply.latency_ms
        if reply.reasoning_content:
            self._reasoning.append(reply.reasoning_content)
        visible = reply.content or ""
        if reply.tool_calls:
            visible += "\n".join(f"[tool call] {call.name} {call.arguments}" for call in reply.tool_calls)
        if visible:
            self._assistant.append(visible)
        if reply.truncated:
            raise InvalidOutput("the reply was cut at the role's output cap (finish_reason length)")
        return reply

    def _add_usage(self, usage: Usage) -> None:
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        self.reasoning_tokens += usage.reasoning_tokens
        self.unreported_calls += not usage.reported

    def record(self, outcome: str, summary: str = "", *, findings: Sequence[Mapping[str, str]] = ()) -> None:
        """Write the attempt's step; ``findings`` (release findings, they quote the draft) go to the restricted audit."""
        self.context.steps.record(
            StepRecord(
                node=self.node,
                role=self.role,
                attempt=self.attempt,
                outcome=outcome,
                summary=summary,
                model=self.model,
                prompt_version=prompt(self.role)[1],
                prompt_tokens=self.prompt_tokens,
                completion_tokens=self.completion_tokens,
                reasoning_tokens=self.reasoning_tokens,
                model_calls=self.model_calls,
                unreported_calls=self.unreported_calls,
                latency_ms=self.latency_ms,
                reasoning_content="\n\n".join(self._reasoning)[:AUDIT_TEXT_MAX_CHARS] or None,
                assistant_text="\n\n".join(self._assistant)[:AUDIT_TEXT_MAX_CHARS],
                findings=[dict(finding) for finding in findings],
            )
        )


def failed_attempt(meter: StepMeter, status_key: str, error: ProviderError | InvalidOutput) -> dict[str, Any]:
    """The update of a stage attempt (planner, verifier, composer) that produced no usable output.

    A provider error keeps its retryable/non-retryable kind and names its code as the attempt's reason;
    output that breaks the contract is INVALID_OUTPUT. Either way the attempt is recorded as its step.
    """
    if isinstance(error, ProviderError):
        meter.record(error.kind.value, error.message)
        return {status_key: StageStatus(error.kind.value), "failure_reason": f"model_{error.code}"}
    meter.record(StageStatus.INVALID_OUTPUT, str(error))
    return {status_key: StageStatus.INVALID_OUTPUT}
