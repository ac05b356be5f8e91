"""Celery task: deliver one finished alert run's answer to one sink, retried with Celery's own backoff."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from alerts.delivery import DeliveryRefused, DeliveryRetryable, run_notification_deliver

logger = logging.getLogger(__name__)

# The first retry's longest wait; each later one doubles it, up to 10 minutes, and Celery's full jitter
# picks a wait up to that. Robots throttle by the minute (WeCom, Feishu) or block a robot for 10 minutes
# once it passes 20 messages a minute (DingTalk), and a sink's outage outlasts seconds: waits of up to 1 s,
# 2 s, 4 s... gave up after 31 s at most.
BACKOFF_SECONDS = 30


@shared_task(
    name="alerts.deliver_run_notification",
    bind=True,
    autoretry_for=(DeliveryRetryable,),
    max_retries=settings.ALERT_DELIVERY_MAX_RETRIES,
    retry_backoff=BACKOFF_SECONDS,
    retry_backoff_max=600,
    retry_jitter=True,
    ignore_result=True,
)
def deliver_run_notification(self, run_id: str, sink: str) -> None:
    try:
        run_notification_deliver(run_id=run_id, sink=sink, attempt=self.request.retries + 1)
    except DeliveryRefused as refusal:
        logger.warning("run %s: sink %s refused the notification: %s", run_id, sink, refusal)
