"""Admin for tool invocations (also an inline of the run page) and the knowledge documents, read-only."""

from __future__ import annotations

import logging
from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from redis.exceptions import RedisError

from config.readonly_admin import AuditRowsAdmin, FieldValueFilter, ReadOnlyModelAdmin, ReadOnlyTabularInline
from tools.models import KnowledgeDocument, ToolInvocation
from tools.names import TOOL_NAMES, UNKNOWN_TOOL
from tools.store import load_arguments

logger = logging.getLogger(__name__)

INVOCATION_FIELDS = (
    "seq",
    "id",
    "tool_name",
    "status",
    "error_code",
    "args_shape",
    "row_count",
    "payload_bytes",
    "latency_ms",
)


class ToolInvocationInline(ReadOnlyTabularInline):
    """A run's tool calls, each linked to its own page, which adds the arguments (``ToolInvocationAdmin``), for
    a reader who may open it: an auditor granted the run alone sees the calls, and no link to a 403."""

    model = ToolInvocation
    fields = INVOCATION_FIELDS
    verbose_name_plural = _("tool invocations")

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        # The admin makes its inlines anew for every request: this one's link is this reader's.
        self.show_change_link = self.admin_site.get_model_admin(ToolInvocation).has_view_permission(request)
        return super().get_formset(request, obj, **kwargs)


class ToolNameFilter(FieldValueFilter):
    """The tools by name: the vocabulary, not every call ever made."""

    title = _("tool")
    parameter_name = "tool_name"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(name, name) for name in (*TOOL_NAMES, UNKNOWN_TOOL)]


@admin.register(ToolInvocation)
class ToolInvocationAdmin(AuditRowsAdmin):
    list_display = ("id", "run", "seq", "tool_name", "status", "error_code", "row_count", "latency_ms", "created_at")
    list_filter = (ToolNameFilter, "status", "created_at")
    list_select_related = ("run",)
    search_fields = ("=id", "=run__id")
    ordering = ("-created_at",)
    readonly_fields = ("arguments",)

    @admin.display(description=_("arguments"))
    def arguments(self, invocation: ToolInvocation) -> str:
        """The call's arguments while the invocation store keeps them (and they match ``args_sha256``). A store
        that cannot be reached (Redis down) costs the page this field, not the page: the rest is in the
        database."""
        try:
            text = load_arguments(invocation)
        except (RedisError, OSError):
            logger.warning("the invocation store cannot be read for invocation %s", invocation.pk, exc_info=True)
            return gettext("the invocation store cannot be reached now: try again later")
        if text is None:
            return gettext("not in the invocation store: expired, or recorded before the store kept arguments")
        return text


@admin.register(KnowledgeDocument)
class KnowledgeDocumentAdmin(ReadOnlyModelAdmin):
    """Documents change through the documents API (which re-indexes them), never through the admin."""

    list_display = ("title", "source", "scenario", "chunk_count", "size_bytes", "uploaded_by", "created_at")
    list_filter = ("source", "scenario")
    list_select_related = ("uploaded_by",)
    search_fields = ("title", "filename", "=id")
