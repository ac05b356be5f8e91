"""Chat sessions and diagnosis runs.

A session holds metadata only (no transcript copy); each user message creates one run, and a run's id is
also the graph's ``thread_id`` and the SSE channel name.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from config import choices
from diagnosis.graph import status


class ChatSession(models.Model):
    id = models.UUIDField(verbose_name=_("ID"), primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("owner"), on_delete=models.CASCADE, related_name="chat_sessions"
    )
    title = models.CharField(verbose_name=_("title"), max_length=200, blank=True, default="")
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(verbose_name=_("updated at"), auto_now=True)

    class Meta:
        db_table = "chat_session"
        verbose_name = _("chat session")
        verbose_name_plural = _("chat sessions")
        indexes = [
            # The chat page's sidebar: a user's sessions, most recently used first.
            models.Index(fields=["owner", "-updated_at"], name="chat_session_owner_updated"),
            # The admin's list, most recently used first, over every user's sessions.
            models.Index(fields=["updated_at"], name="chat_session_updated"),
        ]

    def __str__(self) -> str:
        return self.title or str(self.id)


# Value labels are the auditors' words in their language (the admin's lists and filters show them).
class Intent(models.TextChoices):
    SYSTEM_CHAT = "SYSTEM_CHAT", pgettext_lazy("run intent", "System chat")
    KNOWLEDGE_QUERY = "KNOWLEDGE_QUERY", pgettext_lazy("run intent", "Knowledge query")
    DIAGNOSIS = "DIAGNOSIS", pgettext_lazy("run intent", "Diagnosis")


class RunStatus(models.TextChoices):
    RUNNING = "RUNNING", pgettext_lazy("run status", "Running")
    SUCCESS = "SUCCESS", pgettext_lazy("run status", "Success")
    FAILED = "FAILED", pgettext_lazy("run status", "Failed")


class RunOutcome(models.TextChoices):
    """What the SSE ``done`` event and the page call a finished run: a degraded success is a FALLBACK."""

    SUCCESS = "SUCCESS", pgettext_lazy("run outcome", "SUCCESS")
    FALLBACK = "FALLBACK", pgettext_lazy("run outcome", "FALLBACK")
    FAILED = "FAILED", pgettext_lazy("run outcome", "FAILED")


def run_outcome(status: str, *, degraded: bool) -> str:
    """The ``RunOutcome`` of a finished run (FAILED, FALLBACK or SUCCESS); a running run's status as it is."""
    if status == RunStatus.FAILED:
        return RunOutcome.FAILED
    if status == RunStatus.SUCCESS and degraded:
        return RunOutcome.FALLBACK
    return status


#: The effective verdict of a run: ``status.Verdict`` (strongest first) with its labels.
Verdict = choices.text_choices(
    "Verdict",
    status.Verdict,
    {
        status.Verdict.PASS: pgettext_lazy("verdict", "Pass"),
        status.Verdict.LOW_CONFID: pgettext_lazy("verdict", "Low confidence"),
        status.Verdict.REJECT: pgettext_lazy("verdict", "Reject"),
    },
    module=__name__,
)


class DiagnosisRun(models.Model):
    id = models.UUIDField(verbose_name=_("ID"), primary_key=True, default=uuid.uuid4, editable=False)
    session = models.ForeignKey(ChatSession, verbose_name=_("session"), on_delete=models.CASCADE, related_name="runs")
    query = models.TextField(verbose_name=_("query"))
    intent = models.CharField(verbose_name=_("intent"), max_length=20, choices=Intent.choices, default=Intent.DIAGNOSIS)
    status = models.CharField(
        verbose_name=_("status"), max_length=10, choices=RunStatus.choices, default=RunStatus.RUNNING
    )
    # Which provider and model answered; lets auditors tell offline runs from model runs.
    provider = models.CharField(verbose_name=_("provider"), max_length=20, blank=True, default="")
    model = models.CharField(verbose_name=_("model"), max_length=100, blank=True, default="")

    final_answer = models.TextField(verbose_name=_("final answer"), blank=True, default="")
    conclusion = models.TextField(verbose_name=_("conclusion"), blank=True, default="")
    failure_reason = models.CharField(verbose_name=_("failure reason"), max_length=100, blank=True, default="")
    self_evaluation = models.JSONField(verbose_name=_("self evaluation"), default=dict, blank=True)
    # Null only for runs that never entered the graph (system chat, knowledge query).
    orchestration_trace = models.JSONField(verbose_name=_("orchestration trace"), null=True, blank=True)
    degraded = models.BooleanField(verbose_name=_("degraded"), default=False)
    effective_verdict = models.CharField(
        verbose_name=_("effective verdict"), max_length=10, choices=Verdict.choices, blank=True, default=""
    )
    # Pictures of the released evidence (diagnosis/figures): verified metric series and the incident
    # timeline, copied when the run finishes because the invocation store they come from expires.
    figures = models.JSONField(verbose_name=_("figures"), default=dict, blank=True)

    step_count = models.PositiveIntegerField(verbose_name=_("step count"), default=0)
    tool_count = models.PositiveIntegerField(verbose_name=_("tool count"), default=0)
    prompt_tokens = models.PositiveIntegerField(verbose_name=_("prompt tokens"), default=0)
    completion_tokens = models.PositiveIntegerField(verbose_name=_("completion tokens"), default=0)
    # Stored, not computed on read, so that the admin sorts and filters runs by them in the query.
    reasoning_tokens = models.PositiveIntegerField(verbose_name=_("reasoning tokens"), default=0)
    total_tokens = models.PositiveIntegerField(
        verbose_name=_("total tokens"), default=0, help_text="Prompt plus completion tokens."
    )
    # Null when no price is configured (LLM_PRICE_*_PER_MTOK): unknown, which is not the same as free.
    cost = models.DecimalField(verbose_name=_("cost"), max_digits=14, decimal_places=6, null=True, blank=True)

    started_at = models.DateTimeField(verbose_name=_("started at"), auto_now_add=True)
    # Set by the one worker that claims the run (conditional update on claimed_at IS NULL).
    claimed_at = models.DateTimeField(verbose_name=_("claimed at"), null=True, blank=True)
    claimed_by = models.CharField(verbose_name=_("claimed by"), max_length=200, blank=True, default="")
    # Touched by the worker while it runs; the reaper fails RUNNING runs whose heartbeat is stale.
    heartbeat_at = models.DateTimeField(verbose_name=_("heartbeat at"), null=True, blank=True)
    # Set by the cancel API: the worker stops at the next node boundary, and no worker claims the run after it.
    cancel_requested_at = models.DateTimeField(verbose_name=_("cancel requested at"), null=True, blank=True)
    finished_at = models.DateTimeField(verbose_name=_("finished at"), null=True, blank=True)
    duration_ms = models.PositiveIntegerField(verbose_name=_("duration (ms)"), null=True, blank=True)

    class Meta:
        db_table = "diagnosis_run"
        verbose_name = _("diagnosis run")
        verbose_name_plural = _("diagnosis runs")
        ordering = ["-started_at"]
        # Owners cancel their own runs without it; it lets staff cancel anyone's (auditors stay read-only).
        permissions = [("cancel_diagnosisrun", "Can cancel any user's run")]
        indexes = [
            # Runs of a session by time: the trace API's run list and the follow-up history.
            models.Index(fields=["session", "started_at"], name="run_session_started"),
            # The stale-run reaper: WHERE status='RUNNING' AND (its heartbeat, start or cancellation) ...
            models.Index(fields=["status", "started_at"], name="run_status_started"),
            # Admin list filters by outcome, newest first.
            models.Index(fields=["degraded", "started_at"], name="run_degraded_started"),
            models.Index(fields=["effective_verdict", "started_at"], name="run_verdict_started"),
            models.Index(fields=["intent", "started_at"], name="run_intent_started"),
            models.Index(fields=["started_at"], name="run_started"),
            # The admin run list sorted or filtered by what a run spent: ORDER BY total_tokens / cost.
            models.Index(fields=["total_tokens"], name="run_total_tokens"),
            models.Index(fields=["cost"], name="run_cost"),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(status__in=RunStatus.values), name="run_status_valid"),
            models.CheckConstraint(condition=models.Q(intent__in=Intent.values), name="run_intent_valid"),
            models.CheckConstraint(
                condition=models.Q(effective_verdict__in=[*Verdict.values, ""]), name="run_verdict_valid"
            ),
            # A finished run has a finish time; a running one has none.
            models.CheckConstraint(
                condition=(
                    models.Q(status=RunStatus.RUNNING, finished_at__isnull=True)
                    | (~models.Q(status=RunStatus.RUNNING) & models.Q(finished_at__isnull=False))
                ),
                name="run_finished_matches_status",
            ),
        ]

    def __str__(self) -> str:
        # The admin's heading and breadcrumb: the status in the reader's language.
        return f"{self.id} {self.get_status_display()}"

    @property
    def outcome(self) -> str:
        """The SSE ``done`` outcome: FAILED, FALLBACK (degraded success) or SUCCESS."""
        return run_outcome(self.status, degraded=self.degraded)


class FeedbackRating(models.TextChoices):
    UP = "UP", _("Helpful")
    DOWN = "DOWN", _("Wrong")


class RunFeedback(models.Model):
    """A user's 👍/👎 on one run's answer, with an optional comment: one per user and run, changeable.

    Its own table, not a column of the run: the run is an audit record written once by its worker, while
    feedback comes later, from people, and changes (seed 000 names Feedback a consumer of run outcomes).
    """

    run = models.ForeignKey(DiagnosisRun, verbose_name=_("run"), on_delete=models.CASCADE, related_name="feedback")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.CASCADE, related_name="run_feedback"
    )
    rating = models.CharField(_("rating"), max_length=4, choices=FeedbackRating.choices)
    comment = models.TextField(_("comment"), blank=True, default="")
    created_at = models.DateTimeField(_("given at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("changed at"), auto_now=True)

    class Meta:
        db_table = "run_feedback"
        ordering = ["-updated_at"]
        verbose_name = _("run feedback")
        verbose_name_plural = _("run feedback")
        constraints = [
            # One per user and run: the chat page's buttons change it rather than add another.
            models.UniqueConstraint(fields=["run", "user"], name="run_feedback_run_user_uniq"),
            models.CheckConstraint(
                condition=models.Q(rating__in=FeedbackRating.values), name="run_feedback_rating_valid"
            ),
        ]
        indexes = [
            # The admin's rating filter, newest first, and export_feedback --wrong: WHERE rating=? ORDER BY updated_at.
            models.Index(fields=["rating", "-updated_at"], name="run_feedback_rating_updated"),
            # The admin's list without a filter, newest first.
            models.Index(fields=["updated_at"], name="run_feedback_updated"),
        ]

    def __str__(self) -> str:
        return f"{self.rating} {self.run_id}"
