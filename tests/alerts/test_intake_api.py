"""POST /api/alerts/alertmanager: bearer token, payload validation, one run per firing group and window."""

from __future__ import annotations

import copy
import json
import threading
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from alerts.models import AlertGroup, AlertNotification, IntakeAction
from alerts.payload import MAX_ALERTS
from alerts.questions import LABEL_CHARS
from alerts.services import STORED_LABELS
from diagnosis import submission
from diagnosis.dispatch import BrokerUnavailable
from diagnosis.failures import FailureCode
from diagnosis.models import ChatSession, DiagnosisRun, Intent
from diagnosis.reaper import reap_stale_runs
from tests.alerts.conftest import FIRING_ALERT, TOKEN, URL, alertmanager_payload

pytestmark = pytest.mark.django_db


def written() -> tuple[int, ...]:
    return (
        AlertGroup.objects.count(),
        AlertNotification.objects.count(),
        ChatSession.objects.count(),
        DiagnosisRun.objects.count(),
        get_user_model().objects.filter(username="alertmanager").count(),
    )


def actions() -> list[str]:
    """What each notification received led to, in order."""
    return list(AlertNotification.objects.order_by("pk").values_list("action", flat=True))


def error_of(response) -> dict:
    return response.json()["error"]


# --- Authentication -------------------------------------------------------------------------------


def test_it_does_not_exist_without_a_token(settings, dispatched):
    settings.ALERT_INTAKE_TOKEN = ""

    response = APIClient().post(URL, alertmanager_payload(), format="json", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")

    assert response.status_code == 404
    assert error_of(response)["code"] == "not_found"
    assert written() == (0, 0, 0, 0, 0)


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token-0123456789abcdef", f"Bearer {TOKEN}x", f"Token {TOKEN}", "Bearer", f"Bearer {TOKEN} x"],
)
def test_it_refuses_a_missing_or_wrong_token_and_writes_nothing(intake, dispatched, authorization):
    headers = {} if authorization is None else {"HTTP_AUTHORIZATION": authorization}

    response = APIClient().post(URL, alertmanager_payload(), format="json", **headers)

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="alerts"'
    assert error_of(response)["code"] in {"not_authenticated", "authentication_failed"}
    assert written() == (0, 0, 0, 0, 0)
    assert dispatched == []


def test_a_signed_in_user_or_auditor_needs_the_token_too(intake, dispatched, owner, auditor, superuser):
    for user in (owner, auditor, superuser):
        by_session = APIClient()
        by_session.force_login(user)
        by_token = APIClient()
        by_token.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
        assert by_session.post(URL, alertmanager_payload(), format="json").status_code == 401
        assert by_token.post(URL, alertmanager_payload(), format="json").status_code == 401
    assert written()[:4] == (0, 0, 0, 0)


def test_it_answers_other_methods_with_405_once_authenticated(intake):
    response = APIClient().get(URL, HTTP_AUTHORIZATION=f"Bearer {TOKEN}")

    assert response.status_code == 405


# --- Validation -----------------------------------------------------------------------------------


def _without(key: str) -> dict:
    payload = alertmanager_payload()
    del payload[key]
    return payload


def _alert_changed(**changes) -> dict:
    payload = alertmanager_payload()
    payload["alerts"].append({**payload["alerts"][0], **changes})
    return payload


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        (alertmanager_payload(version="3"), "version"),
        (alertmanager_payload(version=4), "version"),
        (_without("groupKey"), "groupKey"),
        (alertmanager_payload(groupKey=""), "groupKey"),
        (alertmanager_payload(status="pending"), "status"),
        (alertmanager_payload(alerts=[]), "alerts"),
        (alertmanager_payload(alerts="many"), "alerts"),
        (alertmanager_payload(commonLabels={"service": 5}), "commonLabels.service"),
        (_alert_changed(startsAt="yesterday"), "alerts[1].startsAt"),
        (_alert_changed(startsAt="2026-10-14T10:05:03"), "alerts[1].startsAt"),
        (_alert_changed(startsAt="0001-01-01T00:00:00+01:00"), "alerts[1].startsAt"),  # no UTC time
        (_alert_changed(startsAt="9999-12-31T23:59:59-01:00"), "alerts[1].startsAt"),
        (_alert_changed(labels=None), "alerts[1].labels"),
        (_alert_changed(status="firing!"), "alerts[1].status"),
        (["not", "an", "object"], "body"),
        (alertmanager_payload(truncatedAlerts=10**12), "truncatedAlerts"),
    ],
)
def test_a_bad_payload_is_a_400_naming_the_field_and_writes_nothing(intake, dispatched, payload, field):
    response = intake(payload)

    assert response.status_code == 400
    assert error_of(response)["code"] == "invalid_input"
    assert error_of(response)["message"].startswith(f"{field}: ")
    assert written() == (0, 0, 0, 0, 0)
    assert dispatched == []


def refusals(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name.startswith("alerts.")]


def test_a_refused_payload_is_logged_once_with_its_field_and_group(intake, dispatched, caplog):
    """Nothing is written for a 400: the log is where an operator finds which group was refused, and why."""
    payload = _alert_changed(startsAt="yesterday")
    payload["groupKey"] = '{}:{alertname="PaymentLatencyHigh"}\nforged line'

    with caplog.at_level("WARNING", logger="alerts"):
        intake(payload)

    [line] = refusals(caplog)
    assert line.startswith("alert notification refused (invalid_input): alerts[1].startsAt: ")
    assert line.endswith("""; groupKey '{}:{alertname="PaymentLatencyHigh"}\\nforged line'""")


NUL_LABEL = {
    **FIRING_ALERT,
    "labels": {**FIRING_ALERT["labels"], "path": "/api/x\x00y"},
    "startsAt": "2026-10-14T10:06:00Z",
}


def test_a_nul_in_one_alerts_label_does_not_cost_the_group_its_diagnosis(intake, dispatched):
    """Go's JSON encoder writes a NUL in a label value as \\u0000; a 400 would never be resent."""
    payload = alertmanager_payload(
        alerts=[FIRING_ALERT, NUL_LABEL], commonLabels={"alertname": "PaymentLatencyHigh\x07"}
    )

    response = intake(payload)

    assert (response.status_code, response.json()["action"]) == (202, "STARTED")
    assert AlertNotification.objects.get().common_labels == {"alertname": "PaymentLatencyHigh\ufffd"}


@pytest.mark.parametrize("where", ["labels", "annotations"])
def test_a_lone_surrogate_is_replaced_not_refused(intake, dispatched, where):
    payload = alertmanager_payload(commonLabels={})
    payload["alerts"][0][where]["summary"] = "SURROGATE"
    body = json.dumps(payload).replace("SURROGATE", "pool \\ud800 exhausted")  # valid JSON, no UTF-8 encoding

    response = APIClient().post(URL, body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")

    assert response.status_code == 202
    assert DiagnosisRun.objects.get().query.count("pool \ufffd exhausted") == (where == "annotations")


def test_a_body_that_is_not_json_is_a_400(intake, dispatched):
    response = APIClient().post(URL, "{not json", content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")

    assert response.status_code == 400
    assert written() == (0, 0, 0, 0, 0)


def test_an_account_that_can_sign_in_is_never_made_the_owner_of_alert_runs(intake, dispatched):
    """A person who took the service account's name keeps their chat page to themselves; Alertmanager retries."""
    get_user_model().objects.create_user(username="alertmanager", password="a-person's-password-42")

    response = intake(alertmanager_payload())

    assert response.status_code == 503
    assert error_of(response)["code"] == "service_account_taken"
    assert written() == (0, 0, 0, 0, 1)
    assert dispatched == []


def test_a_notification_stores_a_bounded_summary_of_its_labels(intake, dispatched):
    labels = {f"label{index:02}": "v" * 300 for index in range(STORED_LABELS + 10)}
    intake(alertmanager_payload(commonLabels=labels))

    stored = AlertNotification.objects.get().common_labels
    assert len(stored) == STORED_LABELS
    assert {len(value) for value in stored.values()} == {LABEL_CHARS}
    assert stored["label00"].endswith("…")


def test_a_group_past_the_alert_limit_is_read_not_refused(intake, dispatched, django_capture_on_commit_callbacks):
    """Alertmanager sends a group's every alert unless told otherwise, and never resends a refused one."""
    payload = alertmanager_payload(truncatedAlerts=5.0)  # a count, as the field reads it
    firing = payload["alerts"][0]
    resolved = {**firing, "status": "resolved", "endsAt": "2026-10-14T10:40:00Z"}
    payload["alerts"] = [resolved] * 10 + [firing] * MAX_ALERTS

    with django_capture_on_commit_callbacks(execute=True):
        response = intake(payload)

    assert response.status_code == 202
    run = DiagnosisRun.objects.get(pk=response.json()["run_id"])
    # The firing alerts were kept; the ten resolved ones were left out and counted with the five already cut.
    assert "15 more alerts of the group were left out of the notification." in run.query
    assert dispatched == [str(run.pk)]


# --- One run per firing group ---------------------------------------------------------------------


def test_a_firing_group_starts_one_session_and_run_owned_by_the_service_user(
    intake, dispatched, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = intake(alertmanager_payload())

    assert response.status_code == 202
    body = response.json()
    run = DiagnosisRun.objects.select_related("session__owner").get(pk=body["run_id"])
    assert body == {
        "notification_id": AlertNotification.objects.get().pk,
        "action": "STARTED",
        "run_id": str(run.pk),
        "session_id": str(run.session_id),
    }
    assert run.session.owner.username == "alertmanager"
    assert not run.session.owner.has_usable_password()
    assert run.intent == Intent.DIAGNOSIS
    assert run.query.startswith(
        'Since 2026-10-14 10:05:03 UTC, alert "PaymentLatencyHigh" is firing for "payment-service" (job "payments") '
        'on instance "10.0.3.7:8080".'
    )
    assert "payment-service p99 latency is 1.35k ms" in run.query
    assert dispatched == [str(run.pk)]
    notification = AlertNotification.objects.get()
    assert (notification.action, notification.status, notification.alertname, notification.run) == (
        IntakeAction.STARTED,
        "firing",
        "PaymentLatencyHigh",
        run,
    )


def test_duplicate_notifications_of_a_group_start_no_new_run(intake, dispatched, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = intake(alertmanager_payload()).json()
        repeats = [intake(alertmanager_payload()) for _ in range(3)]

    assert [response.status_code for response in repeats] == [200, 200, 200]
    assert {response.json()["action"] for response in repeats} == {"DUPLICATE"}
    assert {response.json()["run_id"] for response in repeats} == {first["run_id"]}
    assert DiagnosisRun.objects.count() == 1
    assert ChatSession.objects.count() == 1
    assert dispatched == [first["run_id"]]
    assert actions() == ["STARTED", "DUPLICATE", "DUPLICATE", "DUPLICATE"]


def test_another_group_starts_its_own_run(intake, dispatched):
    intake(alertmanager_payload(group_key='{}:{alertname="A"}'))
    intake(alertmanager_payload(group_key='{}:{alertname="B"}'))

    assert DiagnosisRun.objects.count() == 2
    assert get_user_model().objects.filter(username="alertmanager").count() == 1


def test_a_group_past_the_limit_of_running_alert_runs_is_a_503_to_retry_and_writes_nothing(
    intake, dispatched, settings, caplog
):
    settings.ALERT_MAX_ACTIVE_RUNS = 1
    assert intake(alertmanager_payload(group_key='{}:{alertname="A"}')).status_code == 202
    before = written()

    with caplog.at_level("WARNING", logger="alerts"):
        refused = intake(alertmanager_payload(group_key='{}:{alertname="B"}'))

    assert refused.status_code == 503  # Alertmanager retries a 5xx, not a 4xx
    assert error_of(refused)["code"] == "too_many_runs"
    assert refused["Retry-After"] == str(submission.RETRY_BUSY_SECONDS)
    assert written() == before
    # Nothing is written: the log says which group waits, and why.
    [line] = refusals(caplog)
    assert line.startswith("alert notification refused (too_many_runs): HTTP 503, 1 alert runs are running")
    assert line.endswith("""; groupKey '{}:{alertname="B"}'""")
    DiagnosisRun.objects.update(status="SUCCESS", finished_at=timezone.now())
    assert intake(alertmanager_payload(group_key='{}:{alertname="B"}')).status_code == 202


def test_the_group_starts_a_new_run_once_its_window_has_passed(intake, dispatched, settings):
    settings.ALERT_DEDUP_WINDOW_SECONDS = 600
    first = intake(alertmanager_payload()).json()
    AlertGroup.objects.update(run_started_at=timezone.now() - timedelta(seconds=601))

    again = intake(alertmanager_payload())

    assert again.status_code == 202
    assert again.json()["run_id"] != first["run_id"]
    assert DiagnosisRun.objects.count() == 2


def test_a_run_no_worker_ever_started_does_not_hold_the_groups_window(intake, dispatched):
    first = intake(alertmanager_payload()).json()
    # Its task was lost with a broker restarted without persistence: the reaper ends it as not started.
    DiagnosisRun.objects.update(started_at=timezone.now() - timedelta(hours=1))
    assert [run.failure_reason for run in reap_stale_runs(queue_timeout_seconds=600)] == ["not_started"]

    again = intake(alertmanager_payload())

    assert again.status_code == 202
    assert again.json()["run_id"] != first["run_id"]
    assert actions() == ["STARTED", "STARTED"]


def test_a_resolved_only_notification_is_recorded_and_starts_nothing(intake, dispatched):
    response = intake(alertmanager_payload(status="resolved"))

    assert response.status_code == 200
    assert response.json()["action"] == "RESOLVED"
    assert response.json()["run_id"] is None
    assert DiagnosisRun.objects.count() == 0
    assert ChatSession.objects.count() == 0
    assert dispatched == []
    notification = AlertNotification.objects.get()
    assert (notification.status, notification.firing_count, notification.alert_count) == ("resolved", 0, 1)


def test_the_resolution_of_a_diagnosed_group_points_at_its_run_and_changes_nothing(intake, dispatched):
    started = intake(alertmanager_payload()).json()
    run = DiagnosisRun.objects.get()
    before = (run.status, run.query, run.final_answer)

    resolved = intake(alertmanager_payload(status="resolved")).json()

    assert resolved["action"] == "RESOLVED"
    assert resolved["run_id"] == started["run_id"]
    run.refresh_from_db()
    assert (run.status, run.query, run.final_answer) == before
    assert DiagnosisRun.objects.count() == 1


def refired(starts_at: str = "2026-10-14T11:02:00Z") -> dict:
    """The group's alert firing anew after it resolved: Alertmanager gives it a new ``startsAt``."""
    return alertmanager_payload(alerts=[{**FIRING_ALERT, "startsAt": starts_at}])


def test_a_group_that_resolved_and_fires_again_is_a_new_incident_with_its_own_run(intake, dispatched):
    first = intake(alertmanager_payload()).json()
    intake(alertmanager_payload(status="resolved"))

    again = intake(refired())
    repeat = intake(refired())

    assert again.status_code == 202
    assert again.json()["action"] == "STARTED"
    assert again.json()["run_id"] != first["run_id"]
    assert (repeat.status_code, repeat.json()["action"]) == (200, "DUPLICATE")
    assert repeat.json()["run_id"] == again.json()["run_id"]
    assert DiagnosisRun.objects.count() == 2
    assert actions() == ["STARTED", "RESOLVED", "STARTED", "DUPLICATE"]


def test_the_next_incident_is_decided_by_the_notifications_order_not_the_web_processes_clocks(
    intake, dispatched, monkeypatch
):
    """The resolution taken by a web process whose clock lags the one that started the run still ends it."""
    first = intake(alertmanager_payload()).json()
    late = timezone.now() - timedelta(seconds=5)
    with monkeypatch.context() as lagging:
        lagging.setattr("alerts.services.timezone.now", lambda: late)
        intake(alertmanager_payload(status="resolved"))

    again = intake(refired()).json()

    assert (again["action"], again["run_id"] != first["run_id"]) == ("STARTED", True)
    assert AlertGroup.objects.get().resolved_at is None  # the new run holds the window again


def test_a_late_copy_of_a_firing_notification_after_its_resolution_starts_no_run(intake, dispatched):
    """Alertmanager in HA mode, or a retry, delivers the incident's firing notification after it resolved."""
    intake(alertmanager_payload())
    intake(alertmanager_payload(status="resolved"))

    late = intake(alertmanager_payload())

    assert (late.status_code, late.json()["action"]) == (200, "DUPLICATE")
    assert DiagnosisRun.objects.count() == 1


def other_alert(starts_at: str = "2026-10-14T09:05:00Z") -> dict:
    """Another service's alert of the same group (grouped by ``alertname``)."""
    return {**FIRING_ALERT, "labels": {**FIRING_ALERT["labels"], "service": "order-service"}, "startsAt": starts_at}


def test_an_alert_silenced_until_after_the_resolution_is_a_new_incident_though_it_started_earlier(intake, dispatched):
    """Alertmanager keeps a silenced or inhibited alert's ``startsAt``: order-service has fired since 09:05
    under a silence; payment-service's incident (10:05) resolves; the silence ends, and the group's first
    notification about order-service is an incident nobody was told of."""
    first = intake(alertmanager_payload()).json()
    intake(alertmanager_payload(status="resolved"))

    unsilenced = intake(alertmanager_payload(alerts=[other_alert()])).json()
    repeat = intake(alertmanager_payload(alerts=[other_alert()])).json()

    assert (unsilenced["action"], unsilenced["run_id"] != first["run_id"]) == ("STARTED", True)
    assert "order-service" in DiagnosisRun.objects.get(pk=unsilenced["run_id"]).query
    assert (repeat["action"], repeat["run_id"]) == ("DUPLICATE", unsilenced["run_id"])


def test_a_late_copy_about_an_alert_that_joined_the_incident_starts_no_run(intake, dispatched):
    intake(alertmanager_payload())
    joined = intake(alertmanager_payload(alerts=[FIRING_ALERT, other_alert()])).json()
    intake(alertmanager_payload(status="resolved"))

    late = intake(alertmanager_payload(alerts=[FIRING_ALERT, other_alert()])).json()

    assert (joined["action"], late["action"]) == ("DUPLICATE", "DUPLICATE")
    assert DiagnosisRun.objects.count() == 1


def test_a_late_copy_after_the_resolution_is_a_repeat_only_within_the_window(intake, dispatched, settings):
    """Past the window after the resolution a firing notification starts a run whatever it repeats: it was a
    repeat forever."""
    settings.ALERT_DEDUP_WINDOW_SECONDS = 600
    first = intake(alertmanager_payload()).json()
    intake(alertmanager_payload(status="resolved"))
    AlertGroup.objects.update(resolved_at=timezone.now() - timedelta(seconds=601))

    again = intake(alertmanager_payload()).json()

    assert (again["action"], again["run_id"] != first["run_id"]) == ("STARTED", True)


def test_a_late_copy_after_an_incident_longer_than_the_window_is_still_a_repeat(intake, dispatched, settings):
    """The window after a resolution counts from the resolution: an HA peer's copy of the firing notification,
    seconds after an incident of more than an hour resolved, is no second incident."""
    settings.ALERT_DEDUP_WINDOW_SECONDS = 600
    intake(alertmanager_payload())
    AlertGroup.objects.update(run_started_at=timezone.now() - timedelta(seconds=3700))
    intake(alertmanager_payload(status="resolved"))

    late = intake(alertmanager_payload()).json()

    assert late["action"] == "DUPLICATE"
    assert DiagnosisRun.objects.count() == 1


def test_an_alert_that_fired_again_under_a_silence_is_a_new_incident_once_shown(intake, dispatched):
    """Its labels were told of in the incident, but not this occurrence: it started anew at 10:12, before the
    incident's newest alert (10:15), silenced until after the resolution."""
    x = {**FIRING_ALERT, "startsAt": "2026-10-14T10:00:00Z"}
    y = {**other_alert("2026-10-14T10:01:00Z")}
    w = {**FIRING_ALERT, "labels": {**FIRING_ALERT["labels"], "instance": "10.0.3.9:8080"}}
    w["startsAt"] = "2026-10-14T10:15:00Z"
    intake(alertmanager_payload(alerts=[x, y]))
    intake(alertmanager_payload(alerts=[x, {**y, "status": "resolved", "endsAt": "2026-10-14T10:10:00Z"}]))
    intake(alertmanager_payload(alerts=[x, w]))
    resolved = [{**alert, "status": "resolved", "endsAt": "2026-10-14T10:30:00Z"} for alert in (x, w)]
    intake(alertmanager_payload(status="resolved", alerts=resolved))

    shown = intake(alertmanager_payload(alerts=[other_alert("2026-10-14T10:12:00Z")])).json()

    assert shown["action"] == "STARTED"
    assert actions() == ["STARTED", "DUPLICATE", "DUPLICATE", "RESOLVED", "STARTED"]


def test_an_alerts_occurrence_is_the_same_whatever_zone_its_start_is_written_in(intake, dispatched):
    intake(alertmanager_payload())
    intake(alertmanager_payload(status="resolved"))

    late = intake(alertmanager_payload(alerts=[{**FIRING_ALERT, "startsAt": "2026-10-14T18:05:03.512+08:00"}]))

    assert late.json()["action"] == "DUPLICATE"


def test_a_group_keeps_a_bounded_list_of_its_incidents_alerts(intake, dispatched, monkeypatch):
    """Past the bound an alert is not remembered: its late copy starts a run (one diagnosis too many)."""
    monkeypatch.setattr("alerts.services.INCIDENT_ALERTS", 1)
    intake(alertmanager_payload())
    intake(alertmanager_payload(alerts=[FIRING_ALERT, other_alert()]))
    assert len(AlertGroup.objects.get().incident_alerts) == 1
    intake(alertmanager_payload(status="resolved"))

    assert intake(alertmanager_payload()).json()["action"] == "DUPLICATE"
    assert intake(alertmanager_payload(alerts=[FIRING_ALERT, other_alert()])).json()["action"] == "STARTED"


def many(status: str, starts_at: str, count: int = MAX_ALERTS + 1) -> list[dict]:
    alerts = []
    for index in range(count):
        alert = {**FIRING_ALERT, "status": status, "startsAt": starts_at}
        alert["labels"] = {**FIRING_ALERT["labels"], "instance": f"10.0.{index // 256}.{index % 256}:8080"}
        if status == "resolved":
            alert["endsAt"] = "2026-10-14T10:40:00Z"
        alerts.append(alert)
    return alerts


def test_a_group_past_the_intakes_own_alert_limit_resolves_and_fires_again(intake, dispatched):
    """The intake's own cut past MAX_ALERTS was taken for Alertmanager's (which may belie its status): the
    group never resolved, and its next incident within the window was a repeat."""
    first = intake(alertmanager_payload(alerts=many("firing", "2026-10-14T10:00:00Z"))).json()
    intake(alertmanager_payload(status="resolved", alerts=many("resolved", "2026-10-14T10:00:00Z")))

    again = intake(alertmanager_payload(alerts=many("firing", "2026-10-14T10:45:00Z"))).json()

    assert (again["action"], again["run_id"] != first["run_id"]) == ("STARTED", True)
    assert actions() == ["STARTED", "RESOLVED", "STARTED"]


def test_a_resolution_before_its_firing_notification_leaves_the_next_occurrence_a_new_incident(intake, dispatched):
    """The firing notification was answered 503 and retried after the resolution: its run starts, the incident
    has ended all the same, and the alert firing anew is the next one."""
    intake(alertmanager_payload(status="resolved"))
    late = intake(alertmanager_payload()).json()
    repeat = intake(alertmanager_payload()).json()

    again = intake(refired()).json()

    assert (late["action"], repeat["action"]) == ("STARTED", "DUPLICATE")
    assert (again["action"], again["run_id"] != late["run_id"]) == ("STARTED", True)


def test_a_resolution_about_alerts_no_run_was_told_of_makes_them_no_repeat(intake, dispatched):
    """After the last incident resolved, the next one's resolution came before its firing notification: its
    alerts are not the resolved incident's, whose late copies alone are repeats."""
    intake(alertmanager_payload())
    intake(alertmanager_payload(status="resolved"))
    next_resolved = {**FIRING_ALERT, "status": "resolved", "startsAt": "2026-10-15T09:00:00Z"}
    next_resolved["endsAt"] = "2026-10-15T09:30:00Z"
    intake(alertmanager_payload(status="resolved", alerts=[next_resolved]))

    second = intake(refired("2026-10-15T09:00:00Z")).json()

    assert second["action"] == "STARTED"
    assert DiagnosisRun.objects.count() == 2


def test_a_late_copy_of_the_last_incidents_resolution_does_not_end_the_one_firing_now(intake, dispatched):
    """The current incident (order-service, silenced until after the last one resolved) started earlier than
    the last incident's alert ended: only its alerts tell that resolution is not about it."""
    intake(alertmanager_payload())
    resolved = alertmanager_payload(status="resolved")
    intake(resolved)
    current = intake(alertmanager_payload(alerts=[other_alert()])).json()

    intake(resolved)  # an HA peer's late copy
    joined = intake(alertmanager_payload(alerts=[other_alert(), FIRING_ALERT | {"startsAt": "2026-10-14T11:00:00Z"}]))

    assert current["action"] == "STARTED"
    assert (joined.json()["action"], joined.json()["run_id"]) == ("DUPLICATE", current["run_id"])
    assert AlertGroup.objects.get().resolved_at is None


def resolution(starts_at: str, ends_at: str) -> dict:
    alert = {**FIRING_ALERT, "status": "resolved", "startsAt": starts_at, "endsAt": ends_at}
    return alertmanager_payload(status="resolved", alerts=[alert])


def test_an_incident_whose_resolution_came_first_leaves_the_next_one_its_own_run(intake, dispatched):
    """I2's resolution came before its firing notification (retried after a 503): I2 gets its run, the group
    stays resolved, and I3, twenty minutes later, is a new incident, not a repeat of I2."""
    intake(alertmanager_payload())
    intake(alertmanager_payload(status="resolved"))
    intake(resolution("2026-10-14T10:30:00Z", "2026-10-14T10:34:00Z"))

    second = intake(refired("2026-10-14T10:30:00Z")).json()
    third = intake(refired("2026-10-14T10:50:00Z")).json()

    assert (second["action"], third["action"]) == ("STARTED", "STARTED")
    assert DiagnosisRun.objects.count() == 3


def test_a_late_copy_from_two_incidents_ago_is_still_a_repeat(intake, dispatched):
    """A flapping alert: its first occurrence's firing notification, delivered late by an HA peer after the
    second occurrence resolved, was told of to a run already."""
    intake(alertmanager_payload())
    intake(resolution("2026-10-14T10:05:03.512Z", "2026-10-14T10:08:00Z"))
    intake(refired("2026-10-14T10:12:00Z"))
    intake(resolution("2026-10-14T10:12:00Z", "2026-10-14T10:16:00Z"))

    late = intake(alertmanager_payload()).json()

    assert late["action"] == "DUPLICATE"
    assert DiagnosisRun.objects.count() == 2


def test_a_late_copy_of_an_earlier_resolution_does_not_end_the_incident_firing_now(intake, dispatched):
    intake(alertmanager_payload())
    resolved = alertmanager_payload(status="resolved")
    intake(resolved)
    second = intake(refired()).json()

    intake(resolved)  # about the alert that started at 10:05, not the one firing since 11:02
    repeat = intake(refired()).json()

    assert (repeat["action"], repeat["run_id"]) == ("DUPLICATE", second["run_id"])
    assert DiagnosisRun.objects.count() == 2
    assert actions() == ["STARTED", "RESOLVED", "STARTED", "RESOLVED", "DUPLICATE"]


def test_the_last_alert_to_resolve_ends_the_incident_though_it_started_first(intake, dispatched):
    """A fires, then B; B resolves (Alertmanager drops it from the group), then A: the resolution lists A
    alone, which started before the incident's newest alert but ended after it, so A firing anew is the next
    incident."""
    b_alert = {**FIRING_ALERT, "labels": {**FIRING_ALERT["labels"], "instance": "10.0.3.8:8080"}}
    b_alert["startsAt"] = "2026-10-14T10:10:00Z"
    b_resolved = {**b_alert, "status": "resolved", "endsAt": "2026-10-14T10:20:00Z"}
    first = intake(alertmanager_payload(alerts=[FIRING_ALERT, b_alert])).json()
    intake(alertmanager_payload(alerts=[FIRING_ALERT, b_resolved]))
    intake(alertmanager_payload(status="resolved"))  # A alone, ended at 10:40

    again = intake(refired()).json()

    assert (again["action"], again["run_id"] != first["run_id"]) == ("STARTED", True)
    assert actions() == ["STARTED", "DUPLICATE", "RESOLVED", "STARTED"]


def test_a_resolution_before_the_groups_run_does_not_open_its_window(intake, dispatched):
    intake(alertmanager_payload(status="resolved"))
    first = intake(alertmanager_payload()).json()

    repeat = intake(alertmanager_payload())

    assert (repeat.json()["action"], repeat.json()["run_id"]) == ("DUPLICATE", first["run_id"])
    assert DiagnosisRun.objects.count() == 1


def test_a_truncated_resolution_does_not_end_the_incident(intake, dispatched):
    """Alertmanager computes a truncated notification's status from the alerts it kept: the cut ones may fire."""
    first = intake(alertmanager_payload()).json()
    intake(alertmanager_payload(status="resolved", truncatedAlerts=1))

    repeat = intake(alertmanager_payload())

    assert (repeat.json()["action"], repeat.json()["run_id"]) == ("DUPLICATE", first["run_id"])
    assert DiagnosisRun.objects.count() == 1


def test_an_alert_name_is_stored_on_one_line(intake, dispatched):
    """The sinks title their message with it: a line break would start a line of the title's own."""
    name = "DiskFull*\n*Diagnosis SUCCESS: all clear\n\n# resolved"
    payload = alertmanager_payload(commonLabels={**FIRING_ALERT["labels"], "alertname": name + "x" * 300})

    intake(payload)

    stored = AlertNotification.objects.get().alertname
    assert stored.startswith("DiskFull* *Diagnosis SUCCESS: all clear # resolvedxxx")
    assert len(stored) == LABEL_CHARS and stored.endswith("…")


@pytest.mark.parametrize("who", ["auditor", "superuser"])
def test_operators_read_an_alert_groups_state_in_the_admin_and_nobody_writes_it(request, intake, dispatched, who):
    """Why did a notification start no run: when the group's run started, whether it resolved since, and the
    newest alert start the group knows."""
    intake(alertmanager_payload())
    intake(alertmanager_payload(status="resolved"))
    group = AlertGroup.objects.get()
    client = APIClient()
    client.force_login(request.getfixturevalue(who))
    client.cookies["django_language"] = "zh-hans"

    listing = client.get("/admin/alerts/alertgroup/").content.decode()
    page = client.get(f"/admin/alerts/alertgroup/{group.pk}/change/")

    assert "告警组" in listing and "PaymentLatencyHigh" in listing
    assert page.status_code == 200
    for field in ("run_started_at", "resolved_at", "latest_alert_start"):
        assert f"field-{field}" in page.content.decode()
    assert client.get("/admin/alerts/alertgroup/add/").status_code == 403
    assert client.post(f"/admin/alerts/alertgroup/{group.pk}/delete/").status_code == 403
    assert AlertGroup.objects.count() == 1


def test_a_group_not_grouped_by_alert_name_records_its_incident_alerts_name(intake, dispatched):
    payload = alertmanager_payload(group_key='{}:{service="payment-service"}')
    later = copy.deepcopy(payload["alerts"][0])
    later["labels"]["alertname"] = "PaymentErrorsHigh"
    later["startsAt"] = "2026-10-14T10:30:00Z"
    payload["alerts"].append(later)
    payload["commonLabels"] = {"service": "payment-service"}

    intake(payload)

    assert AlertNotification.objects.get().alertname == "PaymentLatencyHigh"


def test_a_down_broker_is_a_503_and_nothing_is_recorded(intake, monkeypatch):
    monkeypatch.setattr(submission, "redis_reachable", lambda: False)

    response = intake(alertmanager_payload())

    assert response.status_code == 503
    assert error_of(response)["code"] == "service_unavailable"
    assert response["Retry-After"] == str(submission.RETRY_UNAVAILABLE_SECONDS)
    assert written()[:4] == (0, 0, 0, 0)


@pytest.mark.django_db(transaction=True)
def test_a_broker_lost_at_the_commit_is_a_503_and_the_retry_starts_the_run(intake, monkeypatch):
    """Redis answered the check, then refused the hand-off at the commit: the run recorded is failed, and it
    must neither be answered STARTED nor hold the group's window against Alertmanager's retry."""
    monkeypatch.setattr(submission, "redis_reachable", lambda: True)

    def refused(run_id):
        raise BrokerUnavailable("publish timed out")

    monkeypatch.setattr(submission, "dispatch_run", refused)
    first = intake(alertmanager_payload())

    assert first.status_code == 503 and error_of(first)["code"] == "service_unavailable"
    assert DiagnosisRun.objects.get().failure_reason == FailureCode.BROKER_UNAVAILABLE

    handed: list[str] = []
    monkeypatch.setattr(submission, "dispatch_run", lambda run_id: handed.append(str(run_id)))
    retry = intake(alertmanager_payload())

    assert retry.status_code == 202 and retry.json()["action"] == "STARTED"
    assert handed == [retry.json()["run_id"]]


@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicates_start_exactly_one_run(settings, dispatched):
    """Each thread has its own database connection: the unique constraint and the row lock decide."""
    settings.ALERT_INTAKE_TOKEN = TOKEN
    posts = 6
    barrier = threading.Barrier(posts)
    answers: list[int] = []

    def post() -> None:
        try:
            barrier.wait()
            response = APIClient().post(
                URL, alertmanager_payload(), format="json", HTTP_AUTHORIZATION=f"Bearer {TOKEN}"
            )
            answers.append(response.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=post) for _ in range(posts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(answers) == [200] * (posts - 1) + [202]
    assert DiagnosisRun.objects.count() == 1
    assert AlertGroup.objects.count() == 1
    assert sorted(AlertNotification.objects.values_list("action", flat=True)) == ["DUPLICATE"] * (posts - 1) + [
        "STARTED"
    ]
    assert len(dispatched) == 1
