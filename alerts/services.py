"""The intake of one Alertmanager notification: record it, and start a run for a new firing group.

A firing group starts a run per incident (and a long incident one more every window): Alertmanager
repeats a firing group's notification (every ``repeat_interval``, and whenever an alert joins or leaves
it), and a repeat within ``ALERT_DEDUP_WINDOW_SECONDS`` of the group's run starts nothing; once the group
has resolved, its next firing notification is a new incident and starts a run however soon
(Alertmanager's ``group_interval`` spaces them), unless it is a late copy within the window after the
resolution: every firing alert an occurrence (its labels and start) a run was told of
(``AlertGroup.incident_alerts``, ``earlier_alerts``). Concurrent duplicate POSTs start one run too: the group
row is upserted under a unique constraint (``INSERT ... ON DUPLICATE KEY UPDATE``), which holds the row's
exclusive lock until this transaction commits, and then read with ``SELECT ... FOR UPDATE``, a locking read
that sees the latest committed row even under MariaDB's REPEATABLE READ. Every other notification of the
group waits for the commit and then finds the run. SQLite's IMMEDIATE transactions serialise the writers the
same way.

The service user owning alert runs is created on the first firing notification, in its own transaction
before the intake's (``intake_user``), so the ``manage.py migrate`` of a new deployment needs no setting.

The run goes through ``diagnosis.submission.chat_submit`` like a chat message, inside this transaction, so
its hand-off to the executor happens on this transaction's commit. When the broker is down before, it raises
``SubmissionError`` (503) and everything here rolls back; when it vanishes between its check and the commit,
the run is recorded and failed (``broker_unavailable``), and the intake still answers 503. Either way
Alertmanager retries, and a run that never started does not hold its group's window, so the retry starts one.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from alerts.models import AlertGroup, AlertNotification, AlertStatus, IntakeAction
from alerts.payload import MAX_ALERTS, Alert, AlertmanagerPayload
from alerts.questions import LABEL_CHARS, alert_question, incident_alert, one_line
from diagnosis.models import DiagnosisRun
from diagnosis.submission import TOO_MANY_RUNS, SubmissionError, chat_submit, never_started, unavailable

logger = logging.getLogger(__name__)
#: A notification's row keeps at most this many of the group's common labels (a summary, not the payload).
STORED_LABELS = 50
#: A group's row keeps at most this many of its incident's alert identities (16 characters each).
INCIDENT_ALERTS = 4 * MAX_ALERTS
SERVICE_ACCOUNT_TAKEN = "service_account_taken"


def intake_user() -> User:
    """The service user owning alert runs, created on first use: no password, so it can never sign in.

    An existing account is used only if it is that: not a person's (one with a password), and not another
    name that a case-insensitive collation (MariaDB's) matched. Otherwise the intake answers 503, which
    Alertmanager retries, until ``ALERT_SERVICE_USERNAME`` names an account of its own: alert runs must
    not land on someone's chat page, nor a person's login own them.
    """
    # Created without a password in the one INSERT: a concurrent request must never see it with one.
    user, _ = get_user_model().objects.get_or_create(
        username=settings.ALERT_SERVICE_USERNAME,
        defaults={"first_name": "Alertmanager", "password": make_password(None)},
    )
    if user.username != settings.ALERT_SERVICE_USERNAME or user.has_usable_password():
        logger.error(
            "ALERT_SERVICE_USERNAME=%r matches the account %r, which can sign in or is named otherwise; "
            "alerts start no run until it names an account of its own",
            settings.ALERT_SERVICE_USERNAME,
            user.username,
        )
        raise SubmissionError(
            SERVICE_ACCOUNT_TAKEN,
            "ALERT_SERVICE_USERNAME names an account that can sign in; alert runs need an account of their own",
            status=503,
        )
    return user


def _locked_group(group_key: str) -> AlertGroup:
    digest = hashlib.sha256(group_key.encode()).hexdigest()
    # An upsert, not INSERT IGNORE: on a duplicate key InnoDB's IGNORE takes a shared lock, and two requests
    # holding it that both go on to lock the row exclusively deadlock; an upsert waits for the exclusive lock.
    target = ["group_key_sha256"] if connection.features.supports_update_conflicts_with_target else None
    AlertGroup.objects.bulk_create(
        [AlertGroup(group_key=group_key, group_key_sha256=digest)],
        update_conflicts=True,
        update_fields=["group_key"],
        unique_fields=target,
    )
    return AlertGroup.objects.select_for_update().get(group_key_sha256=digest)


def _within_window(group: AlertGroup, payload: AlertmanagerPayload) -> bool:
    """Whether a firing notification repeats the incident the group's run is about."""
    if group.run_started_at is None or (group.run is not None and never_started(group.run)):
        return False
    window = timedelta(seconds=settings.ALERT_DEDUP_WINDOW_SECONDS)
    if group.resolved_at is not None:
        # It resolved since its run started (a run's start clears it): the next incident, unless this is a
        # late copy soon after, about occurrences a run was told of (this incident's or an earlier one's).
        told = {*group.incident_alerts, *group.earlier_alerts}
        return timezone.now() - group.resolved_at < window and all(
            alert.identity in told for alert in payload.firing_alerts
        )
    return timezone.now() - group.run_started_at < window


def _latest_start(alerts: list[Alert]) -> datetime:
    return max(alert.starts_at for alert in alerts)


def _told_of(known: list[str], alerts: list[Alert]) -> list[str]:
    """``known`` with ``alerts``' occurrences added, up to ``INCIDENT_ALERTS``: past it, an alert no notification
    was allowed to add starts a run after the resolution (a diagnosis too many, not one less)."""
    told_of = dict.fromkeys(known)
    for alert in alerts:
        if len(told_of) >= INCIDENT_ALERTS:
            break
        told_of.setdefault(alert.identity)
    return list(told_of)


def _stale(group: AlertGroup, payload: AlertmanagerPayload) -> bool:
    """Whether a resolution is a late copy about an earlier incident: it lists none of the incident's alert
    occurrences, or its alerts all ended before the newest alert of the incident started (a re-fired alert
    starts after it ended).

    Not their starts: an incident's alerts end in any order, and the last one to resolve may be one that
    started first. An alert without ``endsAt`` cannot show it ended earlier, so its resolution counts.
    """
    current = set(group.incident_alerts) if group.resolved_at is None else set()
    if current and not any(alert.identity in current for alert in payload.alerts):
        # It lists none of the open incident's occurrences: Alertmanager's resolution of an incident lists the
        # alerts it was told of, so this one is about another (an HA peer's late copy about the last incident).
        return True
    ends = [alert.ends_at for alert in payload.alerts if alert.ends_at is not None]
    if group.latest_alert_start is None or len(ends) < len(payload.alerts):
        return False
    return max(ends) < group.latest_alert_start


def alert_notification_receive(*, payload: AlertmanagerPayload) -> AlertNotification:
    """Record one notification; a firing group outside its window also gets a new session and run."""
    firing = payload.status == AlertStatus.FIRING.value and bool(payload.firing_alerts)
    # Before the transaction: get_or_create only recovers from a concurrent creation when its second read
    # sees the other's commit, which a REPEATABLE READ snapshot taken earlier in a transaction would not.
    user = intake_user() if firing else None
    with transaction.atomic():
        notification = _record(payload, user)
    # The hand-off ran at that commit, on this very run, which it failed when the broker refused it: a run it
    # could not start is not a started diagnosis.
    run = notification.run
    if notification.action == IntakeAction.STARTED and run is not None and never_started(run):
        raise unavailable()
    return notification


def _submit(user: User, payload: AlertmanagerPayload) -> DiagnosisRun:
    """The group's run, or ``SubmissionError`` 503 past ``ALERT_MAX_ACTIVE_RUNS``: Alertmanager retries a 5xx
    (not a 429), so the group gets its run once others have ended."""
    try:
        return chat_submit(user=user, message=alert_question(payload), max_active=settings.ALERT_MAX_ACTIVE_RUNS)
    except SubmissionError as error:
        if error.code != TOO_MANY_RUNS:
            raise
        message = gettext("%(count)d alert runs are running, the limit; no run was started for the group, retry") % {
            "count": settings.ALERT_MAX_ACTIVE_RUNS
        }
        raise SubmissionError(TOO_MANY_RUNS, message, status=503, retry_after=error.retry_after) from error


def _record(payload: AlertmanagerPayload, user: User | None) -> AlertNotification:
    group = _locked_group(payload.group_key)
    run = group.run
    if user is None:
        action = IntakeAction.RESOLVED
        # With ``max_alerts``, Alertmanager cuts the list before it computes the status: a truncated
        # notification may call "resolved" a group whose cut alerts still fire.
        if not payload.sender_truncated and not _stale(group, payload):
            if group.resolved_at is None and group.run_started_at is not None:
                # The open incident's: a late copy of a firing notification about them is a repeat.
                group.incident_alerts = _told_of(group.incident_alerts, payload.alerts)
            else:
                # No run was told of them (the resolution came before their firing notification): that run,
                # when it comes, leaves the group resolved, and the next occurrence is the next incident.
                group.ended_alerts = _told_of(group.ended_alerts, payload.alerts)
            group.resolved_at = timezone.now()
            group.latest_alert_start = max(filter(None, (group.latest_alert_start, _latest_start(payload.alerts))))
            group.save(update_fields=["resolved_at", "latest_alert_start", "incident_alerts", "ended_alerts"])
    elif _within_window(group, payload):
        action = IntakeAction.DUPLICATE
        told_of = _told_of(group.incident_alerts, payload.alerts)
        if len(told_of) > len(group.incident_alerts):  # an alert joined the incident
            group.incident_alerts = told_of
            group.save(update_fields=["incident_alerts"])
    else:
        action = IntakeAction.STARTED
        run = _submit(user, payload)
        group.run, group.run_started_at = run, timezone.now()
        resolved = {*group.incident_alerts, *group.earlier_alerts, *group.ended_alerts}
        if group.resolved_at is not None and all(alert.identity in resolved for alert in payload.firing_alerts):
            # Every occurrence it is about had already resolved (a retry after its resolution, or a copy past the
            # window): the incident has ended, and the next firing occurrence is the next one.
            group.incident_alerts = _told_of(group.incident_alerts, payload.alerts)
            group.latest_alert_start = max(
                filter(None, (group.latest_alert_start, _latest_start(payload.firing_alerts)))
            )
        else:
            # Decided in the order of the notifications under the row's lock, not by comparing the clocks of
            # the web processes that took them: a run's start clears the resolution the next incident waits for.
            group.resolved_at = None
            group.latest_alert_start = _latest_start(payload.firing_alerts)
            group.earlier_alerts = [*group.earlier_alerts, *group.incident_alerts][-INCIDENT_ALERTS:]
            group.incident_alerts = _told_of([], payload.alerts)
            group.ended_alerts = []
        group.save(
            update_fields=[
                "run",
                "run_started_at",
                "resolved_at",
                "latest_alert_start",
                "incident_alerts",
                "earlier_alerts",
                "ended_alerts",
            ]
        )
    return AlertNotification.objects.create(
        group=group,
        status=payload.status,
        receiver=payload.receiver[:200],
        alertname=_alertname(payload),
        alert_count=len(payload.alerts),
        firing_count=len(payload.firing_alerts),
        common_labels=_summary(payload.common_labels),
        action=action,
        run=run,
    )


def _summary(labels: dict[str, str]) -> dict[str, str]:
    """The first ``STORED_LABELS`` labels, names and values cut to ``LABEL_CHARS``: stored at every repeat."""
    return {
        one_line(name, LABEL_CHARS): one_line(value, LABEL_CHARS)
        for name, value in list(labels.items())[:STORED_LABELS]
    }


def _alertname(payload: AlertmanagerPayload) -> str:
    """The group's alert name, else (a group not grouped by it) that of the alert its question is about: the
    name the sinks' titles carry, which a DingTalk keyword robot may require. On one line and cut, as the
    question names it: a line break in a label value would start a line of the title's own."""
    name = payload.common_labels.get("alertname") or incident_alert(payload).labels.get("alertname", "")
    return one_line(name, LABEL_CHARS)
