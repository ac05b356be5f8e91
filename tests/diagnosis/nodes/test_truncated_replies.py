"""A reply cut at its output cap is INVALID_OUTPUT, whatever it says; its tokens are still on the step."""

from __future__ import annotations

import json

import pytest

from diagnosis.graph.status import ExecutorStatus, PlannerStatus
from diagnosis.nodes import executor, planner
from diagnosis.providers.base import ModelReply, ToolCall, Usage
from tests.diagnosis.nodes.conftest import FakeModel
from tracing.models import AgentStep

pytestmark = pytest.mark.django_db

# Valid JSON by chance: the cut must not depend on the parser noticing.
PLAN = {"mode": "NORMAL", "hypotheses": ["pool"], "steps": [{"tool": "query_logs", "purpose": "p", "args": {}}]}


def cut(content: str | None = None, **kwargs) -> ModelReply:
    usage = Usage(prompt_tokens=100, completion_tokens=64, reasoning_tokens=20)
    return ModelReply(content=content, usage=usage, model="fake", truncated=True, **kwargs)


def test_a_cut_plan_is_invalid_output_with_its_tokens_recorded(run, make_context):
    context = make_context(run, planner=FakeModel([cut(json.dumps(PLAN))]))

    update = planner.plan(context, {"planner_mode": "NORMAL"}, {})

    assert update == {"planner_status": PlannerStatus.INVALID_OUTPUT}
    step = AgentStep.objects.get(run=run)
    assert step.outcome == "INVALID_OUTPUT" and "output cap" in step.summary
    assert (step.prompt_tokens, step.completion_tokens, step.reasoning_tokens) == (100, 64, 20)


def test_a_cut_tool_call_is_not_run_and_the_executor_attempt_is_invalid_output(run, make_context):
    call = ToolCall(id="call_1", name="query_logs", arguments='{"service": "payment-')
    context = make_context(run, executor=FakeModel([cut(tool_calls=[call])]))

    update = executor.execute(context, {"planner_plan": PLAN, "planner_mode": "NORMAL"}, {})

    assert update == {"executor_status": ExecutorStatus.INVALID_OUTPUT}
    assert run.tool_invocations.count() == 0
    assert AgentStep.objects.get(run=run).completion_tokens == 64
