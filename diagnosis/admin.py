"""Admin for auditors: chat sessions, runs and the restricted reasoning audit, read-only, each run with its
route drawn and tabulated.

The run page answers, without reading JSON: which nodes ran, where it retried or degraded and why (the
transitions with their reason codes), which tools were called (inline) and what the timeline recorded.
Auditors need ``is_staff`` and the ``auditors`` group (docs/audit.md).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypedDict

from django.contrib import admin
from django.db.models import F, Func, IntegerField, Model, OuterRef, QuerySet, Subquery
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext, ngettext, pgettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from config.readonly_admin import AuditRowsAdmin, NodeFilter, ReadOnlyModelAdmin
from diagnosis.feedback.admin import FeedbackInline, RunFeedbackFilter
from diagnosis.figures.render import render_figures
from diagnosis.graph.drawing import render_run_path, render_transitions
from diagnosis.models import ChatSession, DiagnosisRun, RunStatus
from diagnosis.selectors import is_auditor
from diagnosis.usage_filters import CostFilter, TokensFilter
from tools.admin import ToolInvocationInline
from tracing.admin import AgentStepInline, TimelineInline
from tracing.models import AgentReasoningAudit
from tracing.selectors import can_view_reasoning

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

QUERY_EXCERPT_CHARS = 60
SHORT_ID_CHARS = 8


# A release decision in the reader's language, as the chat page's progress line says it (static/js/chat.js).
_DECISIONS = {
    "released": pgettext_lazy("release decision", "released"),
    "blocked": pgettext_lazy("release decision", "blocked"),
}


class RunTotal(TypedDict):
    """The annotation ``ChatSessionAdmin.get_queryset`` adds to each session."""

    run_total: int


def _pretty_json(value: Any) -> SafeString:
    return format_html("<pre>{}</pre>", json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True))


@admin.register(ChatSession)
class ChatSessionAdmin(AuditRowsAdmin):
    list_display = ("id", "title", "owner", "run_count", "created_at", "updated_at")
    list_select_related = ("owner",)
    list_filter = ("created_at",)
    search_fields = ("=id", "title", "owner__username")
    ordering = ("-updated_at",)
    fields = ("id", "owner", "title", "created_at", "updated_at", "runs_link")

    def get_queryset(self, request: HttpRequest) -> QuerySet[ChatSession]:
        # A count per listed session (a subquery the page's rows run, and the list's own COUNT leaves out),
        # not a GROUP BY of every session with every run; not sortable, which would count them all.
        runs = DiagnosisRun.objects.filter(session=OuterRef("pk")).order_by()
        count = runs.annotate(n=Func(F("pk"), function="COUNT", output_field=IntegerField())).values("n")
        return super().get_queryset(request).annotate(run_total=Subquery(count))

    @admin.display(description=_("runs"))
    def run_count(self, session: WithAnnotations[ChatSession, RunTotal]) -> int:
        return session.run_total

    @admin.display(description=_("runs"))
    def runs_link(self, session: WithAnnotations[ChatSession, RunTotal]) -> SafeString:
        url = reverse("admin:diagnosis_diagnosisrun_changelist")
        label = ngettext("%(count)d run", "%(count)d runs", session.run_total) % {"count": session.run_total}
        return format_html('<a href="{}?session__id__exact={}">{}</a>', url, session.pk, label)


@admin.register(DiagnosisRun)
class DiagnosisRunAdmin(ReadOnlyModelAdmin):
    list_display = (
        "short_id",
        "started_at",
        "status",
        "intent",
        "degraded",
        "effective_verdict",
        "final_node",
        "owner",
        "query_excerpt",
        "total_tokens",
        "cost",
    )
    list_filter = (
        "status",
        "degraded",
        "effective_verdict",
        "intent",
        RunFeedbackFilter,
        "started_at",
        TokensFilter,
        CostFilter,
    )
    list_select_related = ("session__owner",)
    search_fields = ("=id", "=session__id", "query")
    ordering = ("-started_at",)
    inlines = (AgentStepInline, ToolInvocationInline, TimelineInline, FeedbackInline)
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "id",
                    "session",
                    "owner",
                    "query",
                    "intent",
                    "status",
                    "degraded",
                    "effective_verdict",
                    "failure_reason",
                    "provider",
                    "model",
                )
            },
        ),
        (_("Route"), {"fields": ("route_drawing", "transitions")}),
        (_("Answer"), {"fields": ("evidence_figures", "conclusion", "final_answer", "release_decisions")}),
        (
            _("Budget and timing"),
            {
                "fields": (
                    "step_count",
                    "tool_count",
                    "prompt_tokens",
                    "completion_tokens",
                    "reasoning_tokens",
                    "total_tokens",
                    "cost",
                    "started_at",
                    "claimed_by",
                    "cancel_requested_at",
                    "finished_at",
                    "duration_ms",
                )
            },
        ),
        (_("Stored JSON"), {"classes": ("collapse",), "fields": ("self_evaluation_json", "orchestration_trace_json")}),
    )

    @admin.display(description=_("run"), ordering="id")
    def short_id(self, run: DiagnosisRun) -> str:
        """Enough of the id to tell runs apart in a list; search and the run page take the whole id."""
        return str(run.pk)[:SHORT_ID_CHARS]

    # Not sortable: no index orders runs by their owner's name, and the list would sort the whole table.
    @admin.display(description=_("owner"))
    def owner(self, run: DiagnosisRun) -> str:
        return run.session.owner.get_username()

    @admin.display(description=_("query"))
    def query_excerpt(self, run: DiagnosisRun) -> str:
        return run.query if len(run.query) <= QUERY_EXCERPT_CHARS else run.query[: QUERY_EXCERPT_CHARS - 1] + "…"

    @admin.display(description=_("final node"))
    def final_node(self, run: DiagnosisRun) -> str:
        return (run.orchestration_trace or {}).get("final_node") or "-"

    @admin.display(description=_("path through the graph"))
    def route_drawing(self, run: DiagnosisRun) -> SafeString:
        return render_run_path(
            run.orchestration_trace, reached_end=run.status == RunStatus.SUCCESS, failed=run.status == RunStatus.FAILED
        )

    @admin.display(description=_("transitions"))
    def transitions(self, run: DiagnosisRun) -> SafeString:
        return render_transitions(run.orchestration_trace)

    @admin.display(description=_("evidence figures"))
    def evidence_figures(self, run: DiagnosisRun) -> SafeString:
        """The chat page's timeline strip and sparklines of this run (diagnosis/figures)."""
        return render_figures(run.figures, run_id=run.pk) or SafeString("-")

    @admin.display(description=_("release guard"))
    def release_decisions(self, run: DiagnosisRun) -> str:
        """Why each draft was released or blocked: rule names only (the findings are in the reasoning audit)."""
        release = (run.self_evaluation or {}).get("release") or {}
        decisions = [
            gettext("attempt %(attempt)s: %(decision)s (%(rule)s)")
            % {
                "attempt": item.get("attempt"),
                "decision": _DECISIONS.get(item.get("decision") or "", item.get("decision")) or gettext("checked"),
                # A rule is an identifier, named in docs/node-contracts.md; "passed" is no rule but a word.
                "rule": pgettext("release rule", "passed") if item.get("rule") == "passed" else item.get("rule"),
            }
            for item in release.get("decisions") or []
        ]
        return "; ".join(decisions) or "-"

    @admin.display(description=_("self evaluation"))
    def self_evaluation_json(self, run: DiagnosisRun) -> SafeString:
        return _pretty_json(run.self_evaluation)

    @admin.display(description=_("orchestration trace"))
    def orchestration_trace_json(self, run: DiagnosisRun) -> SafeString:
        return _pretty_json(run.orchestration_trace)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """Adds the Trace API link for everyone who sees the page, the reasoning link only for its holders."""
        run = self.get_object(request, object_id)
        links: dict[str, str] = {}
        if run is not None:
            links["trace_api_url"] = (
                reverse("tracing:trace", kwargs={"session_id": run.session_id}) + f"?runId={run.pk}"
            )
            if can_view_reasoning(request.user):
                links["reasoning_url"] = (
                    reverse("admin:tracing_agentreasoningaudit_changelist") + f"?run__id__exact={run.pk}"
                )
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), **links})


@admin.register(AgentReasoningAudit)
class AgentReasoningAuditAdmin(ReadOnlyModelAdmin):
    """The restricted reasoning audit: its pages exist only for holders of ``tracing.view_reasoning``, the same
    rule as its API; the plain model ``view`` permission is not enough."""

    list_display = ("run", "step_seq", "node", "attempt", "reasoning_source", "created_at")
    list_filter = ("reasoning_source", NodeFilter)
    list_select_related = ("run", "step")
    search_fields = ("=run__id",)
    ordering = ("-id",)
    fields = (
        "run",
        "step",
        "node",
        "attempt",
        "reasoning_source",
        "reasoning_content",
        "assistant_text",
        "findings",
        "created_at",
    )

    @admin.display(description=_("step"), ordering="step__seq")
    def step_seq(self, audit: AgentReasoningAudit) -> int:
        return audit.step.seq

    def has_module_permission(self, request: HttpRequest) -> bool:
        return can_view_reasoning(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return can_view_reasoning(request.user)

    def get_queryset(self, request: HttpRequest) -> QuerySet[AgentReasoningAudit]:
        # The permission opens this table, not other users' runs: like the reasoning API, a holder who is
        # not an auditor sees the reasoning of their own sessions only. An auditor's list is not filtered at
        # all: `session IN (every session)` made the database read and sort the whole table for each page.
        audits = super().get_queryset(request)
        return audits if is_auditor(request.user) else audits.filter(run__session__owner=request.user)
