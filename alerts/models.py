"""Alert groups, the notifications Alertmanager sent about them, and each attempt to post a run's answer.

Runs are referenced by string (``"diagnosis.DiagnosisRun"``): the diagnosis app knows nothing of alerts.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class AlertStatus(models.TextChoices):
    """Alertmanager's status of a group or an alert (webhook payload version 4)."""

    FIRING = "firing", _("Firing")
    RESOLVED = "resolved", _("Resolved")


class AlertGroup(models.Model):
    """One Alertmanager alert group, keyed by its ``groupKey``: the row repeated notifications are claimed on."""

    group_key = models.TextField(verbose_name=_("group key"))
    # groupKey has no length limit; its digest is what the unique constraint holds.
    group_key_sha256 = models.CharField(verbose_name=_("group key SHA-256"), max_length=64)
    first_seen_at = models.DateTimeField(verbose_name=_("first seen at"), auto_now_add=True)
    # When the last run for this group was started; none starts again within ALERT_DEDUP_WINDOW_SECONDS,
    # unless the group resolved after it (``resolved_at``).
    run_started_at = models.DateTimeField(verbose_name=_("run started at"), null=True, blank=True)
    # When a notification said the whole group resolved, since its last run started (which clears it): the
    # next firing notification is a new incident.
    resolved_at = models.DateTimeField(verbose_name=_("resolved at"), null=True, blank=True)
    # The newest ``startsAt`` of the alerts of the notification that last started the group's run, or of any
    # resolution since (Alertmanager's clock): a firing notification after a resolution is a new incident only
    # with an alert that started later (a re-fired alert starts anew), and a resolution whose alerts all
    # ended before it is a stale one. Alertmanager in HA mode, and its retries, deliver notifications late
    # and twice.
    latest_alert_start = models.DateTimeField(verbose_name=_("latest alert start"), null=True, blank=True)
    # Alert occurrences (``Alert.identity``: labels and start), which tell a late copy from a new incident after
    # a resolution (an alert silenced or inhibited until then keeps its early ``startsAt``; one that fired again
    # has a start of its own): those the current incident's notifications listed (from the one that started its
    # run), those earlier incidents' did, and those a resolution listed that no run was told of (it came before
    # its firing notification, a 503 retried). Each at most ``alerts.services.INCIDENT_ALERTS``.
    incident_alerts = models.JSONField(verbose_name=_("incident alerts"), default=list, blank=True)
    earlier_alerts = models.JSONField(verbose_name=_("earlier incidents' alerts"), default=list, blank=True)
    ended_alerts = models.JSONField(verbose_name=_("alerts resolved before their run"), default=list, blank=True)
    run = models.ForeignKey(
        "diagnosis.DiagnosisRun",
        verbose_name=_("run"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        db_table = "alert_group"
        verbose_name = _("alert group")
        verbose_name_plural = _("alert groups")
        constraints = [
            # Concurrent first notifications of a group insert one row; the rest lock it (services).
            models.UniqueConstraint(fields=["group_key_sha256"], name="alert_group_key_unique")
        ]

    def __str__(self) -> str:
        return self.group_key[:120]


class IntakeAction(models.TextChoices):
    """What a received notification led to."""

    STARTED = "STARTED", _("Started a run")
    DUPLICATE = "DUPLICATE", _("Repeat within the window (no run)")
    RESOLVED = "RESOLVED", _("Resolved (recorded only)")


class AlertNotification(models.Model):
    """Every accepted webhook notification, with what it led to; a bounded summary, not the payload."""

    group = models.ForeignKey(
        AlertGroup, verbose_name=_("alert group"), on_delete=models.CASCADE, related_name="notifications"
    )
    received_at = models.DateTimeField(verbose_name=_("received at"), auto_now_add=True)
    status = models.CharField(verbose_name=_("status"), max_length=10, choices=AlertStatus.choices)
    receiver = models.CharField(verbose_name=_("receiver"), max_length=200, blank=True, default="")
    alertname = models.CharField(verbose_name=_("alert name"), max_length=200, blank=True, default="")
    alert_count = models.PositiveIntegerField(verbose_name=_("alert count"))
    firing_count = models.PositiveIntegerField(verbose_name=_("firing count"))
    # At most ``services.STORED_LABELS``, each name and value cut to ``questions.LABEL_CHARS``.
    common_labels = models.JSONField(verbose_name=_("common labels"), default=dict, blank=True)
    action = models.CharField(verbose_name=_("action"), max_length=10, choices=IntakeAction.choices)
    # The run this notification started, or for a repeat the run its group already has.
    run = models.ForeignKey(
        "diagnosis.DiagnosisRun",
        verbose_name=_("run"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="alert_notifications",
    )

    class Meta:
        db_table = "alert_notification"
        verbose_name = _("alert notification")
        verbose_name_plural = _("alert notifications")
        ordering = ["-received_at"]
        indexes = [
            # The admin's list, newest first, filtered by action or status.
            models.Index(fields=["received_at"], name="alert_notification_received"),
            models.Index(fields=["action", "received_at"], name="alert_notification_action"),
            # Receivers of run_ended: was this run started by an alert? (run = %s AND action = 'STARTED')
            models.Index(fields=["run", "action"], name="alert_notification_run"),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(status__in=AlertStatus.values), name="alert_status_valid"),
            models.CheckConstraint(condition=models.Q(action__in=IntakeAction.values), name="alert_action_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.alertname or self.group_id} {self.status} {self.action}"


class DeliveryStatus(models.TextChoices):
    DELIVERED = "DELIVERED", _("Delivered")
    FAILED = "FAILED", _("Failed")


class NotificationDelivery(models.Model):
    """One attempt to post a run's answer to one sink (``settings.ALERT_SINK_KINDS``)."""

    run = models.ForeignKey(
        "diagnosis.DiagnosisRun",
        verbose_name=_("run"),
        on_delete=models.CASCADE,
        related_name="notification_deliveries",
    )
    sink = models.CharField(verbose_name=_("sink"), max_length=20)
    attempt = models.PositiveSmallIntegerField(verbose_name=_("attempt"))
    status = models.CharField(verbose_name=_("status"), max_length=10, choices=DeliveryStatus.choices)
    http_status = models.PositiveSmallIntegerField(verbose_name=_("HTTP status"), null=True, blank=True)
    # Why it failed: an HTTP status, a robot's error code and message, or an exception's class (never a URL).
    error = models.CharField(verbose_name=_("error"), max_length=300, blank=True, default="")
    latency_ms = models.PositiveIntegerField(verbose_name=_("latency (ms)"), default=0)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        db_table = "alert_delivery"
        verbose_name = _("notification delivery")
        verbose_name_plural = _("notification deliveries")
        ordering = ["-created_at"]
        indexes = [
            # The delivery task: has this run's answer already reached this sink? (run, sink, status)
            models.Index(fields=["run", "sink", "status"], name="alert_delivery_run_sink"),
            # The admin's list, newest first, filtered by status or sink.
            models.Index(fields=["created_at"], name="alert_delivery_created"),
            models.Index(fields=["status", "created_at"], name="alert_delivery_status"),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(status__in=DeliveryStatus.values), name="alert_delivery_valid")
        ]

    def __str__(self) -> str:
        return f"{self.run_id} {self.sink} #{self.attempt} {self.status}"
