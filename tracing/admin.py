"""Admin for a run's audit rows: steps and timeline (also inlines of the run page), and the reasoning audit.

The reasoning audit is restricted: its pages exist only for holders of ``tracing.view_reasoning``, the
same rule as its API; the plain model ``view`` permission is not enough.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from config.readonly_admin import ReadOnlyModelAdmin, ReadOnlyTabularInline
from diagnosis.selectors import sessions_visible_to
from tracing.models import AgentReasoningAudit, AgentStep, DiagnosisTraceEvent
from tracing.selectors import can_view_reasoning

STEP_FIELDS = (
    "seq", "node", "role", "attempt", "outcome", "model", "prompt_version", "model_calls",
    "prompt_tokens", "completion_tokens", "latency_ms", "summary",
)
EVENT_FIELDS = ("seq", "kind", "name", "details", "created_at")


class AgentStepInline(ReadOnlyTabularInline):
    model = AgentStep
    fields = STEP_FIELDS
    verbose_name_plural = "model steps"


class TimelineInline(ReadOnlyTabularInline):
    model = DiagnosisTraceEvent
    fields = EVENT_FIELDS
    verbose_name_plural = "timeline"


@admin.register(AgentStep)
class AgentStepAdmin(ReadOnlyModelAdmin):
    list_display = ("run", "seq", "node", "attempt", "outcome", "model", "latency_ms", "created_at")
    list_filter = ("node", "outcome", "created_at")
    list_select_related = ("run",)
    search_fields = ("=run__id",)
    # Newest first by the primary key: the same order as created_at, and served by an index.
    ordering = ("-id",)


@admin.register(DiagnosisTraceEvent)
class DiagnosisTraceEventAdmin(ReadOnlyModelAdmin):
    list_display = ("run", "seq", "kind", "name", "created_at")
    list_filter = ("kind", "created_at")
    list_select_related = ("run",)
    search_fields = ("=run__id", "name")
    # Newest first by the primary key: the same order as created_at, and served by an index.
    ordering = ("-id",)


@admin.register(AgentReasoningAudit)
class AgentReasoningAuditAdmin(ReadOnlyModelAdmin):
    list_display = ("run", "step_seq", "node", "attempt", "reasoning_source", "created_at")
    list_filter = ("reasoning_source", "node")
    list_select_related = ("run", "step")
    search_fields = ("=run__id",)
    ordering = ("-id",)
    fields = (
        "run", "step", "node", "attempt", "reasoning_source", "reasoning_content", "assistant_text", "findings",
        "created_at",
    )

    @admin.display(description="step", ordering="step__seq")
    def step_seq(self, audit: AgentReasoningAudit) -> int:
        return audit.step.seq

    def has_module_permission(self, request: HttpRequest) -> bool:
        return can_view_reasoning(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return can_view_reasoning(request.user)

    def get_queryset(self, request: HttpRequest) -> QuerySet[AgentReasoningAudit]:
        # The permission opens this table, not other users' runs: like the reasoning API, a holder who is
        # not an auditor sees the reasoning of their own sessions only.
        return super().get_queryset(request).filter(run__session__in=sessions_visible_to(request.user))
