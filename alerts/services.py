"""The intake of one Alertmanager notification: record it, and start a run for a new firing group.

A group starts at most one run per ``ALERT_DEDUP_WINDOW_SECONDS``, concurrent duplicate POSTs included:
the group row is inserted under a unique constraint (``INSERT`` ignoring the conflict) and then read with
``SELECT ... FOR UPDATE``, a locking read that sees the latest committed row even under MariaDB's
REPEATABLE READ and holds every other notification of the group until this one commits. SQLite's
IMMEDIATE transactions serialise the writers the same way.

The run goes through ``diagnosis.submission.chat_submit`` like a chat message, inside this transaction, so
its hand-off to the executor happens on this transaction's commit; when the broker is down it raises
``SubmissionError`` (503) and everything here rolls back, so Alertmanager's retry can start the run later.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from alerts.models import AlertGroup, AlertNotification, AlertStatus, IntakeAction
from alerts.payload import AlertmanagerPayload
from alerts.questions import alert_question
from diagnosis.submission import chat_submit


def intake_user() -> User:
    """The service user owning alert runs, created on first use: no password, so it can never sign in."""
    user, created = get_user_model().objects.get_or_create(
        username=settings.ALERT_SERVICE_USERNAME, defaults={"first_name": "Alertmanager"}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def _locked_group(group_key: str) -> AlertGroup:
    digest = hashlib.sha256(group_key.encode()).hexdigest()
    AlertGroup.objects.bulk_create([AlertGroup(group_key=group_key, group_key_sha256=digest)], ignore_conflicts=True)
    return AlertGroup.objects.select_for_update().get(group_key_sha256=digest)


def _within_window(group: AlertGroup) -> bool:
    if group.run_started_at is None:
        return False
    return timezone.now() - group.run_started_at < timedelta(seconds=settings.ALERT_DEDUP_WINDOW_SECONDS)


@transaction.atomic
def alert_notification_receive(*, payload: AlertmanagerPayload) -> AlertNotification:
    """Record one notification; a firing group outside its window also gets a new session and run."""
    group = _locked_group(payload.group_key)
    firing = payload.status == AlertStatus.FIRING.value and bool(payload.firing_alerts)
    run = group.run
    if not firing:
        action = IntakeAction.RESOLVED
    elif _within_window(group):
        action = IntakeAction.DUPLICATE
    else:
        action = IntakeAction.STARTED
        run = chat_submit(user=intake_user(), message=alert_question(payload))
        group.run, group.run_started_at = run, timezone.now()
        group.save(update_fields=["run", "run_started_at"])
    return AlertNotification.objects.create(
        group=group,
        status=payload.status,
        receiver=payload.receiver[:200],
        alertname=payload.common_labels.get("alertname", "")[:200],
        alert_count=len(payload.alerts),
        firing_count=len(payload.firing_alerts),
        common_labels=payload.common_labels,
        action=action,
        run=run,
    )
