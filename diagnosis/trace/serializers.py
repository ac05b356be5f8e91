"""Output shapes of the Trace API, in the camelCase of the seeds (``runId``, ``orchestrationTrace``).

Every field is listed by name: a model field added later (or the reasoning audit reachable through a
step) never appears in a response because a serializer picked it up by itself.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from diagnosis.feedback.serializers import TraceFeedbackSerializer
from diagnosis.models import Intent, RunStatus, Verdict
from tools.models import InvocationStatus
from tracing.models import ReasoningSource, StepOutcome, TraceEventKind


@extend_schema_field(OpenApiTypes.OBJECT)
class JsonObjectField(serializers.JSONField):
    """A stored JSON document passed through as it is (its own keys keep the stored snake_case)."""


#: The frozen ``orchestration_trace`` shape (seed 004 §6), for the schema; the stored JSON is returned as is.
ORCHESTRATION_TRACE_SCHEMA = {
    "type": "object",
    "nullable": True,
    "description": (
        "Null for runs that never entered the graph (system chat, knowledge query), and while a run is RUNNING:"
        " it is written when the run ends (the timeline shows the nodes so far)."
    ),
    "properties": {
        "version": {"type": "string", "example": "stategraph-v1"},
        "transitions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "from": {"type": "string"},
                    "to": {"type": "string"},
                    "reason_code": {"type": "string"},
                    "attempt": {"type": "integer", "minimum": 1},
                },
                "required": ["from", "to", "reason_code", "attempt"],
            },
        },
        "final_node": {"type": "string", "nullable": True},
        "termination_reason": {"type": "string"},
        "degraded": {"type": "boolean"},
        "evidence_retry_count": {"type": "integer", "minimum": 0},
    },
    "required": ["version", "transitions", "final_node", "termination_reason", "degraded", "evidence_retry_count"],
}


@extend_schema_field(ORCHESTRATION_TRACE_SCHEMA)
class OrchestrationTraceField(serializers.JSONField):
    """The stored route summary, verbatim: it is the contract, so the API does not re-shape it."""


@extend_schema_field(
    {
        "oneOf": [{"type": "object", "additionalProperties": {"type": "string"}}, {"type": "string"}],
        "nullable": True,
        "description": (
            'Each argument with its type and length ({"sql": "str(84)", "limit": "int"}); a string such as '
            '"str(7)" for arguments that were not a JSON object; null for calls recorded before shapes.'
        ),
        "example": {"service": "str(15)", "level": "str(5)", "limit": "int"},
    }
)
class ArgumentsShapeField(serializers.JSONField):
    """``tool_invocation.args_shape``: the arguments' keys, types and lengths, never their values."""


class BlankAsNullChoiceField(serializers.ChoiceField):
    """A choice stored as "" when absent (a run without a verdict) and answered as null."""

    def to_representation(self, value: str) -> str | None:
        return value or None


class RunSummarySerializer(serializers.Serializer):
    """One line of a session's run list."""

    runId = serializers.UUIDField(source="id")
    query = serializers.CharField()
    intent = serializers.ChoiceField(choices=Intent.choices)
    status = serializers.ChoiceField(choices=RunStatus.choices)
    degraded = serializers.BooleanField()
    effectiveVerdict = BlankAsNullChoiceField(choices=Verdict.choices, source="effective_verdict", allow_null=True)
    stepCount = serializers.IntegerField(
        source="step_count", help_text="Model steps, counted when the run ends: 0 while it is RUNNING."
    )
    toolCount = serializers.IntegerField(
        source="tool_count", help_text="Tool invocations, counted when the run ends: 0 while it is RUNNING."
    )
    startedAt = serializers.DateTimeField(source="started_at")
    finishedAt = serializers.DateTimeField(source="finished_at", allow_null=True)
    durationMs = serializers.IntegerField(source="duration_ms", allow_null=True)


class RunSerializer(RunSummarySerializer):
    """The exact run: what was asked, what was released, and how the graph got there."""

    sessionId = serializers.UUIDField(source="session_id")
    conclusion = serializers.CharField()
    finalAnswer = serializers.CharField(source="final_answer")
    failureReason = serializers.CharField(source="failure_reason")
    provider = serializers.CharField()
    model = serializers.CharField()
    promptTokens = serializers.IntegerField(source="prompt_tokens")
    completionTokens = serializers.IntegerField(source="completion_tokens")
    reasoningTokens = serializers.IntegerField(source="reasoning_tokens")
    totalTokens = serializers.IntegerField(source="total_tokens")
    cost = serializers.DecimalField(
        max_digits=14,
        decimal_places=6,
        allow_null=True,
        help_text=(
            "At LLM_PRICE_INPUT_PER_MTOK / LLM_PRICE_OUTPUT_PER_MTOK, as a decimal string; null when no price is "
            "set, or when a model call's usage is unknown (unreportedCalls of its steps)."
        ),
    )
    orchestrationTrace = OrchestrationTraceField(source="orchestration_trace", allow_null=True)
    selfEvaluation = JsonObjectField(source="self_evaluation")


class StepSerializer(serializers.Serializer):
    """Bounded step metadata; the step's reasoning lives in the restricted audit and is not reachable here."""

    seq = serializers.IntegerField()
    node = serializers.CharField()
    attempt = serializers.IntegerField()
    role = serializers.CharField()
    model = serializers.CharField()
    promptVersion = serializers.CharField(source="prompt_version")
    promptTokens = serializers.IntegerField(source="prompt_tokens")
    completionTokens = serializers.IntegerField(source="completion_tokens")
    reasoningTokens = serializers.IntegerField(source="reasoning_tokens")
    modelCalls = serializers.IntegerField(source="model_calls")
    unreportedCalls = serializers.IntegerField(
        source="unreported_calls",
        help_text="Of modelCalls, those whose usage is unknown: replies without usage counts, and requests the "
        "server may have computed without answering (a 5xx, a timeout, a connection lost after sending, a "
        "malformed reply). The run's cost is then null.",
    )
    latencyMs = serializers.IntegerField(source="latency_ms")
    outcome = serializers.ChoiceField(choices=StepOutcome.choices)
    summary = serializers.CharField()
    createdAt = serializers.DateTimeField(source="created_at")


class ToolInvocationSerializer(serializers.Serializer):
    """Invocation metadata only: the canonical payload stays in the invocation store."""

    invocationId = serializers.UUIDField(source="id")
    seq = serializers.IntegerField()
    toolName = serializers.CharField(source="tool_name")
    # Bounded metadata only (seed 003 §4): what was asked, never its text. ``argsSummary`` (up to 500
    # characters of the arguments) was replaced by these two; see docs/audit.md.
    argsSha256 = serializers.CharField(source="args_sha256")
    argsShape = ArgumentsShapeField(source="args_shape")
    status = serializers.ChoiceField(choices=InvocationStatus.choices)
    errorCode = serializers.CharField(source="error_code")
    rowCount = serializers.IntegerField(source="row_count")
    payloadSha256 = serializers.CharField(source="payload_sha256")
    payloadBytes = serializers.IntegerField(source="payload_bytes")
    latencyMs = serializers.IntegerField(source="latency_ms")
    createdAt = serializers.DateTimeField(source="created_at")


class TimelineEventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=TraceEventKind.choices)
    name = serializers.CharField()
    details = JsonObjectField()
    createdAt = serializers.DateTimeField(source="created_at")


class RunTraceSerializer(serializers.Serializer):
    """``GET …/trace?runId=``: the exact run and its audit rows."""

    sessionId = serializers.UUIDField(source="session_id")
    run = RunSerializer(source="*")
    steps = StepSerializer(many=True)
    toolInvocations = ToolInvocationSerializer(many=True, source="tool_invocations")
    timeline = TimelineEventSerializer(many=True, source="trace_events")
    feedback = TraceFeedbackSerializer(many=True, help_text="Users' ratings of the answer (its owner's, at most one).")


class SessionTraceSerializer(serializers.Serializer):
    """``GET …/trace`` without ``runId``: the session and a page of its runs, newest first."""

    sessionId = serializers.UUIDField(source="session.id")
    title = serializers.CharField(source="session.title")
    createdAt = serializers.DateTimeField(source="session.created_at")
    updatedAt = serializers.DateTimeField(source="session.updated_at")
    runs = RunSummarySerializer(many=True)
    runsTruncated = serializers.BooleanField(
        source="truncated", help_text="True when older runs were left out; olderRunsBefore pages to them."
    )
    olderRunsBefore = serializers.UUIDField(
        source="older_before",
        allow_null=True,
        help_text="When runs were left out: the value of before that reads the next page of them; else null.",
    )


class ReasoningEntrySerializer(serializers.Serializer):
    stepSeq = serializers.IntegerField(source="step.seq")
    node = serializers.CharField()
    attempt = serializers.IntegerField()
    reasoningSource = serializers.ChoiceField(choices=ReasoningSource.choices, source="reasoning_source")
    reasoningContent = serializers.CharField(source="reasoning_content")
    assistantText = serializers.CharField(source="assistant_text")
    role = serializers.CharField(source="step.role")
    findings = serializers.ListField(
        child=serializers.DictField(child=serializers.CharField()),
        help_text="Why the release guard blocked this step's draft (rule, sentence, detail); they quote the draft.",
    )
    createdAt = serializers.DateTimeField(source="created_at")


class ReasoningSerializer(serializers.Serializer):
    """``GET …/trace/reasoning?runId=``: restricted; never merged into the normal trace."""

    sessionId = serializers.UUIDField()
    runId = serializers.UUIDField()
    steps = ReasoningEntrySerializer(many=True)
