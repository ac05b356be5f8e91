"""Posting a finished alert run's answer to one sink, one attempt at a time, each attempt recorded.

The Celery task (``alerts.tasks``) retries with backoff what can succeed later: a transport error, a
timeout (of the whole post: ``ALERT_SINK_TIMEOUT_SECONDS`` from connecting to the answer's last byte), HTTP
408, 429 or 5xx, a robot's "too fast" code (``DeliveryRetryable``). A refusal that a retry would only repeat
(another 4xx, a robot's other error codes) is recorded and given up (``DeliveryRefused``). Whatever happens here, the run
is untouched: it finished before this was sent.

A sink that already got the answer is not posted to again, so a redelivered task message (a worker lost
after posting) delivers once.
"""

from __future__ import annotations

import logging
import time
import uuid

import httpx
from django.conf import settings
from django.utils import translation

from alerts.messages import run_message
from alerts.models import AlertNotification, DeliveryStatus, IntakeAction, NotificationDelivery
from alerts.sinks import BODIES, robot_refusal
from config.bounded_http import ResponseRefused, request_within
from diagnosis.models import DiagnosisRun

logger = logging.getLogger(__name__)

RETRYABLE_STATUSES = frozenset({408, 429})
# A chat-ops robot answers a line of JSON; more than this is no robot's answer, and is not read further.
SINK_RESPONSE_BYTES = 1024 * 1024


class DeliveryRetryable(Exception):
    """This attempt failed in a way a later one may not."""


class DeliveryRefused(Exception):
    """The sink refused the message for good (a 4xx, a robot's error code): not retried."""


def alert_run_name(run_id: uuid.UUID | str) -> str | None:
    """The alert name of the notification that started this run; None when no alert started it."""
    started = AlertNotification.objects.filter(run__pk=run_id, action=IntakeAction.STARTED).first()
    return None if started is None else started.alertname


def record_not_queued(run_id: uuid.UUID | str, sink: str, error: Exception) -> None:
    """A delivery the broker could not take: attempt 0, never posted (its message may name the broker's
    address, so the class only)."""
    NotificationDelivery.objects.create(
        run_id=run_id, sink=sink, attempt=0, status=DeliveryStatus.FAILED, error=f"not queued: {type(error).__name__}"
    )


def _record(run_id: str, sink: str, attempt: int, status: DeliveryStatus, started: float, **fields: object) -> None:
    latency_ms = int((time.perf_counter() - started) * 1000)
    NotificationDelivery.objects.create(
        run_id=run_id, sink=sink, attempt=attempt, status=status, latency_ms=latency_ms, **fields
    )


def run_notification_deliver(*, run_id: str, sink: str, attempt: int) -> bool:
    """Post the run's answer to ``sink``; True when delivered now, False when there was nothing to do.

    Raises ``DeliveryRetryable`` or ``DeliveryRefused`` after recording a failed attempt.
    """
    url = settings.ALERT_SINK_URLS.get(sink)
    if url is None:
        logger.warning("run %s: sink %s is no longer configured; not delivered", run_id, sink)
        return False
    if NotificationDelivery.objects.filter(run__pk=run_id, sink=sink, status=DeliveryStatus.DELIVERED).exists():
        return False
    run = DiagnosisRun.objects.get(pk=run_id)
    # In the team's language; the answer itself is in its question's, which is the same one.
    with translation.override(settings.ALERT_LANGUAGE):
        body = BODIES[sink](run_message(run, alertname=alert_run_name(run_id) or ""))
    started = time.perf_counter()
    try:
        response = request_within(
            settings.ALERT_SINK_TIMEOUT_SECONDS, "POST", url, max_bytes=SINK_RESPONSE_BYTES, json=body
        )
    except (httpx.HTTPError, TimeoutError, ResponseRefused) as error:
        # The class only: an exception's message can carry the sink's URL, and with it its key.
        _record(run_id, sink, attempt, DeliveryStatus.FAILED, started, error=type(error).__name__)
        raise DeliveryRetryable(type(error).__name__) from None
    if response.is_success and (refusal := robot_refusal(sink, response)) is not None:
        status = response.status_code
        _record(run_id, sink, attempt, DeliveryStatus.FAILED, started, http_status=status, error=refusal.text)
        raise (DeliveryRetryable if refusal.retryable else DeliveryRefused)(refusal.text)
    if not response.is_success:
        reason = f"HTTP {response.status_code}"
        _record(run_id, sink, attempt, DeliveryStatus.FAILED, started, http_status=response.status_code, error=reason)
        if response.status_code >= 500 or response.status_code in RETRYABLE_STATUSES:
            raise DeliveryRetryable(reason)
        raise DeliveryRefused(reason)
    _record(run_id, sink, attempt, DeliveryStatus.DELIVERED, started, http_status=response.status_code)
    return True
