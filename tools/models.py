"""Tool invocations, the knowledge base, and the embedded evidence backends filled from scenario packs."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from config.run_scope import read_once


class InvocationStatus(models.TextChoices):
    READY = "READY", "Ready"
    FAILED = "FAILED", "Failed"
    BLOCKED = "BLOCKED", "Blocked"


class ToolInvocation(models.Model):
    """Metadata of one tool call. Its id is the ``source_invocation_id`` agents cite.

    Bounded metadata only (seed 003 §4): the canonical arguments and payload live in the invocation store
    (TTL) keyed by this id. ``payload_sha256`` lets the Gatekeeper refuse a payload that was altered after it
    was recorded; ``args_sha256`` and ``args_shape`` say what was asked without its text (``arguments.py``).
    """

    id = models.UUIDField(verbose_name=_("ID"), primary_key=True, default=uuid.uuid4, editable=False)
    run = models.ForeignKey(
        "diagnosis.DiagnosisRun", verbose_name=_("run"), on_delete=models.CASCADE, related_name="tool_invocations"
    )
    seq = models.PositiveIntegerField(
        verbose_name=_("seq"), help_text="Order within the run, from 1 (scripts cite {{inv:N}})."
    )
    tool_name = models.CharField(verbose_name=_("tool name"), max_length=40)
    args_sha256 = models.CharField(
        verbose_name=_("arguments SHA-256"),
        max_length=64,
        blank=True,
        default="",
        help_text="sha256 of the canonical arguments; empty for calls recorded before digests.",
    )
    args_shape = models.JSONField(
        verbose_name=_("arguments shape"),
        null=True,
        blank=True,
        default=None,
        help_text='Keys with value types and lengths, e.g. {"sql": "str(84)"}; null when not known.',
    )
    status = models.CharField(verbose_name=_("status"), max_length=10, choices=InvocationStatus.choices)
    error_code = models.CharField(verbose_name=_("error code"), max_length=60, blank=True, default="")
    row_count = models.PositiveIntegerField(verbose_name=_("row count"), default=0)
    payload_sha256 = models.CharField(verbose_name=_("payload SHA-256"), max_length=64, blank=True, default="")
    payload_bytes = models.PositiveIntegerField(verbose_name=_("payload bytes"), default=0)
    latency_ms = models.PositiveIntegerField(verbose_name=_("latency (ms)"), default=0)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        db_table = "tool_invocation"
        verbose_name = _("tool invocation")
        verbose_name_plural = _("tool invocations")
        ordering = ["run", "seq"]
        constraints = [
            # Invocations of a run in order: WHERE run_id=? ORDER BY seq (trace API, admin, {{inv:N}}).
            models.UniqueConstraint(fields=["run", "seq"], name="tool_invocation_run_seq_uniq"),
            models.CheckConstraint(
                condition=models.Q(status__in=InvocationStatus.values), name="tool_invocation_status_valid"
            ),
            # A READY invocation always has a stored payload digest.
            models.CheckConstraint(
                condition=~models.Q(status=InvocationStatus.READY) | ~models.Q(payload_sha256=""),
                name="tool_invocation_ready_has_digest",
            ),
        ]
        indexes = [
            # Admin filter and tool usage reports: WHERE tool_name=? ORDER BY created_at.
            models.Index(fields=["tool_name", "created_at"], name="tool_invocation_tool_created"),
            # The admin's list, newest first, without a sort of the whole table.
            models.Index(fields=["created_at"], name="tool_invocation_created"),
        ]

    def __str__(self) -> str:
        return f"{self.tool_name} {self.status}"


class DocumentSource(models.TextChoices):
    UPLOAD = "UPLOAD", "Uploaded"
    SCENARIO = "SCENARIO", "Scenario pack"


class DocumentStatus(models.TextChoices):
    """Whether ``lookup_knowledge`` searches a document (seed 003's document ``status``)."""

    ACTIVE = "ACTIVE", _("Active")
    ARCHIVED = "ARCHIVED", _("Archived")


class KnowledgeDocument(models.Model):
    id = models.UUIDField(verbose_name=_("ID"), primary_key=True, default=uuid.uuid4, editable=False)
    title = models.CharField(verbose_name=_("title"), max_length=300)
    filename = models.CharField(verbose_name=_("file name"), max_length=255, blank=True, default="")
    source = models.CharField(
        verbose_name=_("source"), max_length=10, choices=DocumentSource.choices, default=DocumentSource.UPLOAD
    )
    scenario = models.CharField(verbose_name=_("scenario"), max_length=100, blank=True, default="")
    # Seed 003's document metadata: a free label (runbook, postmortem...), what kind of fault the document
    # is about (a component or service: database, network, payment-service), and whether it is searched.
    category = models.CharField(_("category"), max_length=50, blank=True, default="")
    fault_source = models.CharField(_("fault source"), max_length=100, blank=True, default="")
    status = models.CharField(_("status"), max_length=10, choices=DocumentStatus.choices, default=DocumentStatus.ACTIVE)
    content = models.TextField(verbose_name=_("content"))
    content_sha256 = models.CharField(verbose_name=_("content SHA-256"), max_length=64)
    size_bytes = models.PositiveIntegerField(verbose_name=_("size (bytes)"), default=0)
    chunk_count = models.PositiveIntegerField(verbose_name=_("chunk count"), default=0)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("uploaded by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        db_table = "knowledge_document"
        verbose_name = _("knowledge document")
        verbose_name_plural = _("knowledge documents")
        ordering = ["-created_at"]
        indexes = [
            # The documents API list: ORDER BY created_at DESC; load_scenario: WHERE source=?.
            models.Index(fields=["source", "-created_at"], name="knowledge_doc_source_created"),
            # GET /api/documents/status/{status} and /faultSource/{faultSource}, newest first.
            models.Index(fields=["status", "-created_at"], name="knowledge_doc_status_created"),
            models.Index(fields=["fault_source", "-created_at"], name="knowledge_doc_fault_created"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=DocumentStatus.values), name="knowledge_doc_status_valid"
            )
        ]

    def __str__(self) -> str:
        return self.title


class KnowledgeChunk(models.Model):
    id = models.UUIDField(verbose_name=_("ID"), primary_key=True, default=uuid.uuid4, editable=False)
    document = models.ForeignKey(
        KnowledgeDocument, verbose_name=_("document"), on_delete=models.CASCADE, related_name="chunks"
    )
    ordinal = models.PositiveIntegerField(verbose_name=_("ordinal"))
    heading = models.CharField(verbose_name=_("heading"), max_length=300, blank=True, default="")
    text = models.TextField(verbose_name=_("text"))
    # Equal texts (a paragraph pasted into two runbooks) are returned once: dedup by this digest.
    text_sha256 = models.CharField(verbose_name=_("text SHA-256"), max_length=64)
    # The search terms of the heading and text, space-separated, tokenised once at ingest
    # (``tokenize.stored_terms``): a process building its index reads them instead of tokenising the whole
    # knowledge base again. Used only while ``terms_version`` is the tokeniser's current ``TERMS_VERSION``.
    terms = models.TextField(verbose_name=_("search terms"), blank=True, default="")
    terms_version = models.CharField(verbose_name=_("search terms version"), max_length=80, blank=True, default="")

    class Meta:
        db_table = "knowledge_chunk"
        verbose_name = _("knowledge chunk")
        verbose_name_plural = _("knowledge chunks")
        ordering = ["document", "ordinal"]
        constraints = [
            # Chunks of a document in order: WHERE document_id=? ORDER BY ordinal.
            models.UniqueConstraint(fields=["document", "ordinal"], name="knowledge_chunk_doc_ordinal_uniq")
        ]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.ordinal}"


class KnowledgeIndexState(models.Model):
    """One row whose revision every write bumps, so every process knows when its in-memory index is stale."""

    revision = models.PositiveBigIntegerField(verbose_name=_("revision"), default=0)
    updated_at = models.DateTimeField(verbose_name=_("updated at"), auto_now=True)

    class Meta:
        db_table = "knowledge_index_state"
        verbose_name = _("knowledge index state")
        verbose_name_plural = _("knowledge index states")

    def __str__(self) -> str:
        return f"knowledge index r{self.revision}"


class LogRecord(models.Model):
    """A log line of the loaded scenario (the embedded ``query_logs`` backend)."""

    ts = models.DateTimeField(verbose_name=_("timestamp"))
    service = models.CharField(verbose_name=_("service"), max_length=100)
    level = models.CharField(verbose_name=_("level"), max_length=10)
    message = models.TextField(verbose_name=_("message"))
    # Any other fields of the pack's line (trace_id, host, ...), returned as they were.
    extra = models.JSONField(verbose_name=_("extra fields"), default=dict, blank=True)

    class Meta:
        db_table = "log_record"
        verbose_name = _("log record")
        verbose_name_plural = _("log records")
        ordering = ["ts", "id"]
        indexes = [
            # query_logs: WHERE service=? AND ts BETWEEN ? AND ? [AND level=?] ORDER BY ts.
            models.Index(fields=["service", "ts"], name="log_record_service_ts"),
            models.Index(fields=["service", "level", "ts"], name="log_record_service_level_ts"),
        ]

    def __str__(self) -> str:
        return f"{self.ts.isoformat()} {self.service} {self.level}"


class MetricPoint(models.Model):
    """A metric sample of the loaded scenario (the embedded ``query_metrics`` backend)."""

    ts = models.DateTimeField(verbose_name=_("timestamp"))
    service = models.CharField(verbose_name=_("service"), max_length=100)
    metric = models.CharField(verbose_name=_("metric"), max_length=100)
    value = models.FloatField(verbose_name=_("value"))

    class Meta:
        db_table = "metric_point"
        verbose_name = _("metric point")
        verbose_name_plural = _("metric points")
        ordering = ["ts", "id"]
        indexes = [
            # query_metrics: WHERE service=? AND metric=? AND ts BETWEEN ? AND ? ORDER BY ts.
            models.Index(fields=["service", "metric", "ts"], name="metric_point_series_ts")
        ]

    def __str__(self) -> str:
        return f"{self.service}.{self.metric}@{self.ts.isoformat()}={self.value}"


class LoadedScenario(models.Model):
    """Which scenario pack the embedded backends currently hold (at most one row)."""

    name = models.CharField(verbose_name=_("name"), max_length=100)
    description = models.TextField(verbose_name=_("description"), blank=True, default="")
    manifest = models.JSONField(verbose_name=_("manifest"), default=dict)
    business_tables = models.JSONField(
        verbose_name=_("business tables"), default=list, help_text="The query_mysql allow-list."
    )
    loaded_at = models.DateTimeField(verbose_name=_("loaded at"), auto_now=True)

    class Meta:
        db_table = "loaded_scenario"
        verbose_name = _("loaded scenario")
        verbose_name_plural = _("loaded scenarios")

    def __str__(self) -> str:
        return self.name

    @staticmethod
    def current() -> LoadedScenario | None:
        """The scenario loaded now; read once per run (``config.run_scope``), which sees one version of it."""
        return read_once("loaded_scenario", lambda: LoadedScenario.objects.first())
