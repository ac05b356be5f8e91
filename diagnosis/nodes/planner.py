"""Planner: asks the model for a plan of tool steps; the plan must match the stage's mode."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis.contracts import InvalidOutput, PlannerOutput, parse_output
from diagnosis.graph.state import DiagnosisState, read_count, read_mapping, read_planner_mode
from diagnosis.graph.status import PlannerStatus
from diagnosis.nodes.agent import StepMeter, failed_attempt
from diagnosis.nodes.context import NodeContext
from diagnosis.nodes.messages import planner_messages
from diagnosis.providers.base import ProviderError

NODE = "planner"


def plan(context: NodeContext, state: DiagnosisState, config: RunnableConfig) -> dict[str, Any]:
    attempt = read_count(state, "planner_retry_count") + 1
    mode = read_planner_mode(state)
    context.progress.status(NODE, "started", attempt=attempt, mode=mode.value.lower())
    meter = StepMeter(context, NODE, attempt)
    messages = planner_messages(
        question=context.question,
        history=context.history,
        mode=mode.value,
        retry_context=dict(read_mapping(state, "retry_context")) or None,
        environment=context.environment,
    )
    try:
        reply = meter.complete(context.models.planner, messages)
        output = parse_output(reply.content, PlannerOutput)
        if output["mode"] != mode.value:
            raise InvalidOutput(f"mode {output['mode']} does not match the stage's mode {mode.value}")
    except (ProviderError, InvalidOutput) as error:
        return failed_attempt(meter, "planner_status", error)
    tools = ", ".join(step["tool"] for step in output["steps"])
    meter.record(
        PlannerStatus.COMPLETED, f"{len(output['steps'])} steps ({tools}); {len(output['hypotheses'])} hypotheses"
    )
    return {"planner_status": PlannerStatus.COMPLETED, "planner_plan": output}
