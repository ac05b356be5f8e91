"""Admin for a run's audit rows: steps and timeline (also inlines of the run page).

The restricted reasoning audit's admin is in ``diagnosis/admin.py``: it narrows rows to the sessions the
user may see, which the diagnosis app decides.
"""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from config.readonly_admin import AuditRowsAdmin, NodeFilter, ReadOnlyTabularInline
from tracing.models import AgentStep, DiagnosisTraceEvent

STEP_FIELDS = (
    "seq",
    "node",
    "role",
    "attempt",
    "outcome",
    "model",
    "prompt_version",
    "model_calls",
    "prompt_tokens",
    "completion_tokens",
    "reasoning_tokens",
    "unreported_calls",
    "latency_ms",
    "summary",
)
EVENT_FIELDS = ("seq", "kind", "name", "details", "created_at")


class AgentStepInline(ReadOnlyTabularInline):
    model = AgentStep
    fields = STEP_FIELDS
    verbose_name_plural = _("model steps")


class TimelineInline(ReadOnlyTabularInline):
    model = DiagnosisTraceEvent
    fields = EVENT_FIELDS
    verbose_name_plural = _("timeline")


@admin.register(AgentStep)
class AgentStepAdmin(AuditRowsAdmin):
    list_display = ("run", "seq", "node", "attempt", "outcome", "model", "latency_ms", "created_at")
    list_filter = (NodeFilter, "outcome", "created_at")
    list_select_related = ("run",)
    search_fields = ("=run__id",)
    # Newest first by the primary key: the same order as created_at, and served by an index.
    ordering = ("-id",)


@admin.register(DiagnosisTraceEvent)
class DiagnosisTraceEventAdmin(AuditRowsAdmin):
    list_display = ("run", "seq", "kind", "name", "created_at")
    list_filter = ("kind", "created_at")
    list_select_related = ("run",)
    search_fields = ("=run__id", "name")
    # Newest first by the primary key: the same order as created_at, and served by an index.
    ordering = ("-id",)
