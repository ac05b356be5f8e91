"""React to ``diagnosis.signals.run_ended``: a run an alert started hands one delivery task per sink on."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from alerts.delivery import alert_run_name, record_not_queued
from alerts.tasks import deliver_run_notification
from diagnosis.dispatch import submit_task
from diagnosis.failures import FailureCode
from diagnosis.models import DiagnosisRun
from diagnosis.signals import run_ended

logger = logging.getLogger(__name__)


def notify_sinks(sender: type[DiagnosisRun], run: DiagnosisRun, **kwargs: Any) -> None:
    # A run the broker refused never ran: the intake answered 503, and Alertmanager's retry starts another.
    # One the intake accepted (202) but no worker took in time is said, as a failure: no one else will.
    refused = run.failure_reason == FailureCode.BROKER_UNAVAILABLE and run.claimed_at is None
    if not settings.ALERT_SINK_URLS or refused or alert_run_name(run.pk) is None:
        return
    for sink in settings.ALERT_SINK_URLS:
        try:
            submit_task(deliver_run_notification, str(run.pk), sink)
        except (OperationalError, RedisError) as error:
            # The broker is down: no task will try, so the admin's deliveries say so, for each sink.
            logger.warning("run %s: delivery to %s not queued (%s)", run.pk, sink, type(error).__name__)
            record_not_queued(run.pk, sink, error)


def connect() -> None:
    run_ended.connect(notify_sinks, sender=DiagnosisRun, dispatch_uid="alerts.notify_sinks")
