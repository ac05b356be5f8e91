"""Audit records of a run: model steps, the timeline and the restricted reasoning audit.

These rows are append-only evidence of what happened. They hold bounded metadata, never prompts or raw
tool payloads; the reasoning audit is a separate table so that no ordinary query can leak it.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from config.choices import text_choices
from tracing.outcomes import ExecutorStatus, StageStatus

# The largest value a PositiveIntegerField holds on every database Django supports (MySQL's signed INT
# bound): counters that add up what others report (tokens, milliseconds) are capped here, not refused by
# the database when a run ends (which would leave the run RUNNING).
COUNT_MAX = 2**31 - 1

#: A step's outcome: any stage status (planner, verifier, composer, semantic guard) or executor status.
StepOutcome = text_choices(
    "StepOutcome",
    [*StageStatus, *ExecutorStatus],
    {
        StageStatus.COMPLETED: "Completed",
        StageStatus.INVALID_OUTPUT: "Invalid output",
        StageStatus.RETRYABLE_FAILED: "Retryable failure",
        StageStatus.NON_RETRYABLE_FAILED: "Non-retryable failure",
        ExecutorStatus.TOOL_BLOCKED: "Tool blocked",
        ExecutorStatus.FAILED: "Failed",
    },
    module=__name__,
)


class AgentStep(models.Model):
    """One model-backed node attempt (planner, executor, verifier, composer)."""

    SUMMARY_MAX_CHARS = 1000

    run = models.ForeignKey(
        "diagnosis.DiagnosisRun", verbose_name=_("run"), on_delete=models.CASCADE, related_name="steps"
    )
    seq = models.PositiveIntegerField(verbose_name=_("seq"), help_text="Order of the step within its run, from 1.")
    node = models.CharField(verbose_name=_("node"), max_length=40)
    attempt = models.PositiveSmallIntegerField(verbose_name=_("attempt"), default=1)
    role = models.CharField(verbose_name=_("role"), max_length=40, blank=True, default="")
    model = models.CharField(verbose_name=_("model"), max_length=100, blank=True, default="")
    prompt_version = models.CharField(verbose_name=_("prompt version"), max_length=40, blank=True, default="")
    prompt_tokens = models.PositiveIntegerField(verbose_name=_("prompt tokens"), default=0)
    completion_tokens = models.PositiveIntegerField(verbose_name=_("completion tokens"), default=0)
    # The part of completion_tokens the model spent reasoning, where the provider reports it (else 0).
    reasoning_tokens = models.PositiveIntegerField(verbose_name=_("reasoning tokens"), default=0)
    model_calls = models.PositiveSmallIntegerField(verbose_name=_("model calls"), default=0)
    # Of those, calls whose usage is unknown (a reply without usage counts, a request the server may have
    # computed without answering): their tokens are unknown, so the run's cost is too (null).
    unreported_calls = models.PositiveSmallIntegerField(verbose_name=_("unreported calls"), default=0)
    latency_ms = models.PositiveIntegerField(verbose_name=_("latency (ms)"), default=0)
    outcome = models.CharField(verbose_name=_("outcome"), max_length=30, choices=StepOutcome.choices)
    summary = models.CharField(verbose_name=_("summary"), max_length=SUMMARY_MAX_CHARS, blank=True, default="")
    # When the attempt was recorded, not when its row was written: steps are written with the run's held
    # progress reports, up to ``RUN_EVENT_LINGER_MS`` later, and a step's time must sit among its events'.
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now, editable=False)

    class Meta:
        db_table = "agent_step"
        verbose_name = _("agent step")
        verbose_name_plural = _("agent steps")
        ordering = ["run", "seq"]
        constraints = [
            # Steps of a run in order: WHERE run_id=? ORDER BY seq (trace API, admin inline).
            models.UniqueConstraint(fields=["run", "seq"], name="agent_step_run_seq_uniq"),
            models.CheckConstraint(condition=models.Q(attempt__gte=1), name="agent_step_attempt_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.node}#{self.attempt} {self.outcome}"


class TraceEventKind(models.TextChoices):
    RUN = "RUN", "Run lifecycle"
    ROUTING = "ROUTING", "Intent routing"
    NODE = "NODE", "Graph node"
    TOOL = "TOOL", "Tool call"
    EVIDENCE = "EVIDENCE", "Evidence check"
    SEMANTIC = "SEMANTIC", "Semantic guard"
    RELEASE = "RELEASE", "Answer release"


class TimelineManager(models.Manager["DiagnosisTraceEvent"]):
    """The audit timeline: the log's rows that record something, not the stream-only ones (``done``)."""

    def get_queryset(self) -> models.QuerySet[DiagnosisTraceEvent]:
        return super().get_queryset().filter(seq__isnull=False)


class DiagnosisTraceEvent(models.Model):
    """The append-only event log of a run: its audit timeline and its SSE stream, one row per event.

    A row is a timeline event (``seq``, the timeline's order, and ``kind``, ``name``, ``details`` with
    whitelisted, bounded keys), a stream event (``stream_id``, the SSE id within the run's channel, with its
    ``stream_event`` name and JSON ``stream_data``), or both: a progress report is written once and serves
    the auditor and the page alike. Both numberings run 1, 2, 3... without gaps. ``objects`` is the
    timeline; ``log`` is every row.
    """

    # No database constraint: the SSE storage writes by channel name, as django-eventstream lets any channel
    # be written; only runs' writers write here, and deleting a run still deletes its log (Django cascades).
    run = models.ForeignKey(
        "diagnosis.DiagnosisRun",
        verbose_name=_("run"),
        on_delete=models.CASCADE,
        related_name="trace_events",
        db_constraint=False,
    )
    seq = models.PositiveIntegerField(verbose_name=_("seq"), null=True, blank=True)
    kind = models.CharField(verbose_name=_("kind"), max_length=20, choices=TraceEventKind.choices, blank=True)
    name = models.CharField(verbose_name=_("name"), max_length=60, blank=True)
    details = models.JSONField(verbose_name=_("details"), default=dict, blank=True)
    stream_id = models.PositiveBigIntegerField(verbose_name=_("stream ID"), null=True, blank=True)
    stream_event = models.CharField(verbose_name=_("stream event"), max_length=20, blank=True, default="")
    stream_data = models.TextField(verbose_name=_("stream data"), blank=True, default="")
    # When the event happened: a progress report held back a few milliseconds keeps its own time.
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now, editable=False)

    log = models.Manager()
    objects = TimelineManager()

    class Meta:
        db_table = "diagnosis_trace_event"
        verbose_name = _("diagnosis trace event")
        verbose_name_plural = _("diagnosis trace events")
        ordering = ["run", "seq"]
        # Readers (admin, Trace API, ``run.trace_events``) see the timeline; deleting a run deletes its whole
        # log, stream-only rows included.
        default_manager_name = "objects"
        base_manager_name = "log"
        constraints = [
            # The timeline of a run in order: WHERE run_id=? ORDER BY seq.
            models.UniqueConstraint(fields=["run", "seq"], name="trace_event_run_seq_uniq"),
            # The stream of a run from a Last-Event-ID: WHERE run_id=? AND stream_id>? ORDER BY stream_id.
            models.UniqueConstraint(fields=["run", "stream_id"], name="trace_event_run_stream_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.seq} {self.kind}:{self.name}"


class ReasoningSource(models.TextChoices):
    PROVIDER = "PROVIDER", "Returned by the provider"
    UNAVAILABLE = "UNAVAILABLE", "Not returned by the provider"


class AgentReasoningAudit(models.Model):
    """What the model reasoned at one step. Restricted: never in SSE, the normal Trace API, logs or evidence."""

    run = models.ForeignKey(
        "diagnosis.DiagnosisRun", verbose_name=_("run"), on_delete=models.CASCADE, related_name="reasoning_audits"
    )
    step = models.OneToOneField(
        AgentStep, verbose_name=_("step"), on_delete=models.CASCADE, related_name="reasoning_audit"
    )
    node = models.CharField(verbose_name=_("node"), max_length=40)
    attempt = models.PositiveSmallIntegerField(verbose_name=_("attempt"), default=1)
    reasoning_source = models.CharField(
        verbose_name=_("reasoning source"), max_length=20, choices=ReasoningSource.choices
    )
    # Only what the provider really returned; empty with UNAVAILABLE, never invented.
    reasoning_content = models.TextField(verbose_name=_("reasoning content"), blank=True, default="")
    assistant_text = models.TextField(verbose_name=_("assistant text"), blank=True, default="")
    # Release findings of a blocked draft ({rule, sentence, detail} or the guard's {sentence, reason}): they
    # quote the draft, which must never be public, so they live here and nowhere else.
    findings = models.JSONField(verbose_name=_("findings"), default=list, blank=True)
    # Its step's time (``AgentStep.created_at``).
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now, editable=False)

    class Meta:
        db_table = "agent_reasoning_audit"
        verbose_name = _("agent reasoning audit")
        verbose_name_plural = _("agent reasoning audits")
        ordering = ["run", "step__seq"]
        permissions = [("view_reasoning", "Can view the restricted reasoning audit")]
        indexes = [
            # The reasoning endpoint: WHERE run_id=? ORDER BY created_at.
            models.Index(fields=["run", "created_at"], name="reasoning_run_created")
        ]

    def __str__(self) -> str:
        return f"reasoning {self.node}#{self.attempt}"
