"""Read-only admin for the alert intake and the delivery attempts: nobody edits them, auditors see them.

An alert group's page is where an operator reads why its notification started no run: when its run
started, whether it has resolved since, and the newest alert start that tells the next incident apart.
Refused notifications are written nowhere; the log has a WARNING line for each (``payload.log_refusal``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from alerts.models import AlertGroup, AlertNotification, NotificationDelivery
from config.readonly_admin import FieldValueFilter, ReadOnlyModelAdmin


@admin.register(AlertGroup)
class AlertGroupAdmin(ReadOnlyModelAdmin):
    # The group key, cut, under the model's own (translated) name.
    list_display = ("__str__", "first_seen_at", "run_started_at", "resolved_at", "latest_alert_start", "run")
    list_select_related = ("run",)
    search_fields = ("group_key",)
    fields = ("group_key", "first_seen_at", "run_started_at", "resolved_at", "latest_alert_start", "run")


@admin.register(AlertNotification)
class AlertNotificationAdmin(ReadOnlyModelAdmin):
    list_display = ("received_at", "alertname", "status", "action", "alert_count", "firing_count", "receiver", "run")
    list_filter = ("action", "status", "received_at")
    list_select_related = ("run",)
    search_fields = ("alertname", "group__group_key")
    fields = (
        "received_at",
        "group",
        "status",
        "receiver",
        "alertname",
        "alert_count",
        "firing_count",
        "common_labels",
        "action",
        "run",
    )


class SinkFilter(FieldValueFilter):
    """The sink kinds the project knows: the vocabulary, not a ``DISTINCT`` over every delivery ever made."""

    title = _("sink")
    parameter_name = "sink"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(kind, kind) for kind in settings.ALERT_SINK_KINDS]


@admin.register(NotificationDelivery)
class NotificationDeliveryAdmin(ReadOnlyModelAdmin):
    list_display = ("created_at", "run", "sink", "attempt", "status", "http_status", "error", "latency_ms")
    list_filter = ("status", SinkFilter, "created_at")
    list_select_related = ("run",)
    fields = ("created_at", "run", "sink", "attempt", "status", "http_status", "error", "latency_ms")
