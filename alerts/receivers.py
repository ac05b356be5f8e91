"""React to ``diagnosis.signals.run_ended``: a run an alert started hands one delivery task per sink on."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from alerts.delivery import alert_run_name
from alerts.tasks import deliver_run_notification
from diagnosis.dispatch import submit_task
from diagnosis.models import DiagnosisRun
from diagnosis.signals import run_ended
from diagnosis.submission import never_started


def notify_sinks(sender: type[DiagnosisRun], run: DiagnosisRun, **kwargs: Any) -> None:
    # A run the broker refused never ran: the intake answered 503, and Alertmanager's retry starts another.
    if not settings.ALERT_SINK_URLS or never_started(run) or alert_run_name(run.pk) is None:
        return
    for sink in settings.ALERT_SINK_URLS:
        submit_task(deliver_run_notification, str(run.pk), sink)


def connect() -> None:
    run_ended.connect(notify_sinks, sender=DiagnosisRun, dispatch_uid="alerts.notify_sinks")
