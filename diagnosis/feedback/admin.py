"""Feedback in the auditors' admin: its own read-only list (filter by rating, search by run, user or comment),
an inline on each run's page, and a filter of the run list by the feedback its runs got.

Imported by ``diagnosis/admin.py``, which Django's admin autodiscovery loads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise as StrOrPromise

from config.readonly_admin import AuditRowsAdmin, ReadOnlyTabularInline
from diagnosis.models import DiagnosisRun, FeedbackRating, RunFeedback

COMMENT_EXCERPT_CHARS = 80
#: The run list's filter value for runs nobody rated.
UNRATED = "NONE"


@admin.register(RunFeedback)
class RunFeedbackAdmin(AuditRowsAdmin):
    list_display = ("updated_at", "rating", "user", "run_link", "comment_excerpt")
    list_filter = ("rating", "updated_at")
    list_select_related = ("user", "run")
    search_fields = ("=run__id", "user__username", "comment")
    ordering = ("-updated_at",)
    fields = ("run_link", "user", "rating", "comment", "created_at", "updated_at")

    @admin.display(description=_("run"), ordering="run__started_at")
    def run_link(self, feedback: RunFeedback) -> SafeString:
        url = reverse("admin:diagnosis_diagnosisrun_change", args=[feedback.run_id])
        return format_html('<a href="{}">{}</a>', url, feedback.run.query[:COMMENT_EXCERPT_CHARS])

    @admin.display(description=_("comment"))
    def comment_excerpt(self, feedback: RunFeedback) -> str:
        comment = feedback.comment
        return comment if len(comment) <= COMMENT_EXCERPT_CHARS else comment[: COMMENT_EXCERPT_CHARS - 1] + "…"


class FeedbackInline(ReadOnlyTabularInline):
    model = RunFeedback
    fields = ("user", "rating", "comment", "updated_at")
    ordering = ("created_at",)
    verbose_name_plural = _("feedback")

    def get_queryset(self, request: HttpRequest) -> QuerySet[RunFeedback]:
        return super().get_queryset(request).select_related("user")


class RunFeedbackFilter(admin.SimpleListFilter):
    """Runs by the feedback they got: any 👍, any 👎, or none at all."""

    title = _("feedback")
    parameter_name = "feedback"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, StrOrPromise]]:
        return [*FeedbackRating.choices, (UNRATED, _("No feedback"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[DiagnosisRun]) -> QuerySet[DiagnosisRun]:
        value = self.value()
        if value == UNRATED:
            return queryset.filter(feedback__isnull=True)
        if value in FeedbackRating.values:
            # A run has at most one row per user, so a join would repeat a run rated by several users.
            return queryset.filter(pk__in=RunFeedback.objects.filter(rating=value).values("run_id"))
        return queryset
