"""Executor: the ReAct tool loop through the harness, ending in an ``executor_evidence_v2`` report.

Status by output contract (seed 000 §5): any valid report - a no-evidence one included - is COMPLETED;
no valid report after a tool was refused is TOOL_BLOCKED; no valid report otherwise is INVALID_OUTPUT; a
model failure is FAILED. The executor never retries, so every model call error ends the attempt.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis.contracts import ExecutorOutput, InvalidOutput, parse_output
from diagnosis.graph.state import DiagnosisState, read_mapping, read_planner_mode
from diagnosis.graph.status import ExecutorStatus
from diagnosis.nodes.agent import StepMeter
from diagnosis.nodes.context import NodeContext
from diagnosis.nodes.messages import executor_messages
from diagnosis.providers.base import ModelReply, ProviderError, budget_spent
from tools.harness import MAX_ARGUMENTS_BYTES
from tools.models import InvocationStatus
from tools.registry import tool_specs

NODE = "executor"
MAX_TURNS = 6
MAX_CALLS_PER_TURN = 8


def execute(context: NodeContext, state: DiagnosisState, config: RunnableConfig) -> dict[str, Any]:
    # The attempt's invocation rows are written together when it ends (``ToolHarness.attempt``).
    with context.harness.attempt():
        return _execute(context, state)


def _execute(context: NodeContext, state: DiagnosisState) -> dict[str, Any]:
    context.progress.status(NODE, "started")
    meter = StepMeter(context, NODE, attempt=1)
    messages: list[dict[str, Any]] = executor_messages(
        question=context.question,
        plan=dict(read_mapping(state, "planner_plan")),
        mode=read_planner_mode(state).value,
        retry_context=dict(read_mapping(state, "retry_context")) or None,
        environment=context.environment,
    )
    specs = tool_specs()
    blocked = 0
    for turn in range(1, MAX_TURNS + 1):
        if turn > 1 and context.progress.stop_requested_inside():
            # Cancelled (or reaped) during a turn: no more turns are paid for; the boundary after this attempt
            # stops the run.
            meter.record(ExecutorStatus.FAILED, "the run was asked to stop")
            return {"executor_status": ExecutorStatus.FAILED, "failure_reason": "cancelled"}
        try:
            reply = meter.complete(context.models.executor, messages, tools=specs, response_format=None)
        except ProviderError as error:
            return _failed(meter, error)
        except InvalidOutput as error:
            meter.record(ExecutorStatus.INVALID_OUTPUT, str(error))
            return {"executor_status": ExecutorStatus.INVALID_OUTPUT}
        if not reply.tool_calls:
            return _report(meter, reply.content, blocked)
        if turn == MAX_TURNS:
            # No model call would read their results: running them would only spend the run's tool calls
            # (the evidence round's executor needs them) and its time.
            break
        messages.append(_echoed(reply))
        for call in reply.tool_calls[:MAX_CALLS_PER_TURN]:
            if context.model_deadline is not None and context.model_deadline.expired:
                # No model call could read the results any more: the attempt ends as that call would.
                return _failed(meter, budget_spent())
            result = context.harness.call(call.name, call.arguments)
            blocked += result.status == InvocationStatus.BLOCKED
            context.tool_calls.append(f"{call.name} {call.arguments}"[:300])
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result.projection, ensure_ascii=False)}
            )
        for call in reply.tool_calls[MAX_CALLS_PER_TURN:]:
            refusal = {"error": f"at most {MAX_CALLS_PER_TURN} tool calls per turn; this one was not run"}
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(refusal)})
    if blocked:
        # No report, and the tool layer refused calls on the way: the seed's TOOL_BLOCKED (000 §4), as a report
        # that does not parse after a refusal is.
        meter.record(ExecutorStatus.TOOL_BLOCKED, f"no report after {MAX_TURNS} turns; {blocked} call(s) refused")
        return {"executor_status": ExecutorStatus.TOOL_BLOCKED}
    meter.record(ExecutorStatus.INVALID_OUTPUT, f"no report after {MAX_TURNS} turns")
    return {"executor_status": ExecutorStatus.INVALID_OUTPUT, "failure_reason": "turns_exhausted"}


def _echoed(reply: ModelReply) -> dict[str, Any]:
    """The model's turn as the conversation keeps it: a call's arguments past what the harness takes
    (``arguments_too_large``, or a call past the turn's limit, never run) become ``{}``; sent back whole,
    megabytes of them would fill every later prompt of the attempt."""
    message = reply.as_message()
    for call in message.get("tool_calls", []):
        if len(call["function"]["arguments"].encode("utf-8", "surrogatepass")) > MAX_ARGUMENTS_BYTES:
            call["function"]["arguments"] = "{}"
    return message


def _failed(meter: StepMeter, error: ProviderError) -> dict[str, Any]:
    meter.record(ExecutorStatus.FAILED, error.message)
    return {"executor_status": ExecutorStatus.FAILED, "failure_reason": f"model_{error.code}"}


def _report(meter: StepMeter, content: str | None, blocked: int) -> dict[str, Any]:
    try:
        output = parse_output(content, ExecutorOutput)
    except InvalidOutput as error:
        status = ExecutorStatus.TOOL_BLOCKED if blocked else ExecutorStatus.INVALID_OUTPUT
        meter.record(status, str(error))
        return {"executor_status": status}
    bindings = sum(len(claim["bindings"]) for claim in output["claims"])
    summary = f"{len(output['claims'])} claims, {bindings} bindings"
    if not output["claims"]:
        # The model's reason is its own text: the restricted audit keeps it with the rest of its answer.
        summary = (
            "no evidence (the model's reason is in the reasoning audit)"
            if output["no_evidence_reason"]
            else "no evidence"
        )
    meter.record(ExecutorStatus.COMPLETED, summary)
    return {"executor_status": ExecutorStatus.COMPLETED, "executor_output": output}
