"""The question an alert group asks: built so the offline provider reads the incident time from it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from alerts.payload import parse_payload
from alerts.questions import ANNOTATION_CHARS, LABEL_CHARS, alert_question
from diagnosis.intent import route_intent
from diagnosis.language import language_of
from diagnosis.models import Intent
from diagnosis.providers.offline.timing import Window, onset_from_question
from diagnosis.submission import MAX_MESSAGE_CHARS
from tests.alerts.conftest import FIRING_ALERT, alertmanager_payload

PACK_WINDOW = Window(datetime(2026, 10, 14, 9, 30, tzinfo=UTC), datetime(2026, 10, 14, 10, 45, tzinfo=UTC))


def question(**changes) -> str:
    return alert_question(parse_payload(alertmanager_payload(**changes)))


def test_the_offline_provider_reads_the_alerts_start_as_the_onset():
    text = question()

    assert onset_from_question(text, PACK_WINDOW) == datetime(2026, 10, 14, 10, 5, 3, tzinfo=UTC)
    assert route_intent(text) == Intent.DIAGNOSIS


def test_a_start_in_another_zone_is_written_in_utc():
    alert = {**FIRING_ALERT, "startsAt": "2026-10-14T12:05:03+02:00"}

    text = question(alerts=[alert])

    assert text.startswith("Since 2026-10-14 10:05:03 UTC, ")
    assert onset_from_question(text, PACK_WINDOW) == datetime(2026, 10, 14, 10, 5, 3, tzinfo=UTC)


def test_the_earliest_firing_alert_is_the_incident_and_the_others_are_counted():
    later = {**FIRING_ALERT, "startsAt": "2026-10-14T10:20:00Z", "labels": {**FIRING_ALERT["labels"], "service": "x"}}
    resolved = {**FIRING_ALERT, "status": "resolved", "startsAt": "2026-10-14T09:40:00Z"}

    text = question(alerts=[later, resolved, FIRING_ALERT])

    assert text.startswith("Since 2026-10-14 10:05:03 UTC, ")
    assert "1 more alert of the same group is firing." in text


def test_a_chinese_team_gets_a_chinese_question_that_the_offline_provider_reads(settings):
    """``ALERT_LANGUAGE`` sets the question's language, so the answer's: the onset and the intent still read."""
    settings.ALERT_LANGUAGE = "zh-hans"
    later = {**FIRING_ALERT, "startsAt": "2026-10-14T10:20:00Z", "labels": {**FIRING_ALERT["labels"], "service": "x"}}

    text = question(alerts=[later, FIRING_ALERT], truncatedAlerts=2)

    assert text.startswith(
        '自 2026-10-14 10:05:03 UTC 起，告警 "PaymentLatencyHigh" 正在触发，服务 "payment-service"'
    ), text
    assert "同组另有 1 条告警正在触发。" in text and "通知中省略了同组的另外 2 条告警。" in text
    assert text.endswith("为什么会这样？根本原因是什么？")
    assert language_of(text) == "zh"
    assert onset_from_question(text, PACK_WINDOW) == datetime(2026, 10, 14, 10, 5, 3, tzinfo=UTC)
    assert route_intent(text) == Intent.DIAGNOSIS


def test_copies_of_an_alert_in_one_notification_count_as_one_alert():
    later = {**FIRING_ALERT, "startsAt": "2026-10-14T10:20:00Z", "labels": {**FIRING_ALERT["labels"], "service": "x"}}

    text = question(alerts=[FIRING_ALERT, later, *[FIRING_ALERT] * 5, *[later] * 5])

    assert "1 more alert of the same group is firing." in text


@pytest.mark.parametrize("alertname", [None, "", "   "])
def test_an_alert_without_a_name_is_an_alert(alertname):
    labels = {"service": "payment-service"} | ({} if alertname is None else {"alertname": alertname})

    text = question(alerts=[{**FIRING_ALERT, "labels": labels}], commonLabels={})

    assert text.startswith('Since 2026-10-14 10:05:03 UTC, an alert is firing for "payment-service".'), text


def test_the_job_names_the_service_when_no_service_label_is_set():
    labels = {"alertname": "TargetDown", "job": "node", "instance": "db-1:9100"}

    text = question(
        alerts=[{**FIRING_ALERT, "labels": labels, "annotations": {}}], commonLabels={}, commonAnnotations={}
    )

    assert text.startswith(
        'Since 2026-10-14 10:05:03 UTC, alert "TargetDown" is firing for "node" on instance "db-1:9100".'
    )


def test_annotations_are_one_line_each_and_bounded():
    annotations = {"summary": "line one\nline two", "description": "x" * 10_000}

    text = question(alerts=[{**FIRING_ALERT, "annotations": annotations}], commonAnnotations={})

    assert "Summary: line one line two." in text
    assert len(text) < 2 * ANNOTATION_CHARS + 400


def test_long_labels_are_cut_so_the_question_always_fits_a_chat_message():
    payload = alertmanager_payload()
    payload["alerts"][0]["labels"] |= {"instance": "x" * 9000, "alertname": "A" * 9000, "service": "s" * 9000}

    question = alert_question(parse_payload(payload))

    assert len(question) < MAX_MESSAGE_CHARS
    assert "x" * LABEL_CHARS not in question and "x" * (LABEL_CHARS - 1) + "…" in question


def test_blank_annotations_say_nothing_and_early_years_keep_four_digits():
    alert = {**FIRING_ALERT, "startsAt": "0999-10-14T10:05:03Z", "annotations": {"summary": " \n ", "description": ""}}

    text = question(alerts=[alert], commonAnnotations={})

    assert text.startswith("Since 0999-10-14 10:05:03 UTC, ")
    assert "Summary" not in text and "Description" not in text


def test_alerts_cut_from_the_notification_are_counted():
    assert "3 more alerts of the group were left out of the notification." in question(truncatedAlerts=3)
    assert "left out" not in question()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_label_text_cannot_move_the_incident_time(settings, language):
    """The incident time comes first, before any label's text, and label values are quoted as data."""
    settings.ALERT_LANGUAGE = language
    labels = {**FIRING_ALERT["labels"], "instance": "10.0.3.7:8080 since 09:40", "alertname": 'Slow" since 09:45 "'}

    text = question(alerts=[{**FIRING_ALERT, "labels": labels}], commonLabels={})

    assert onset_from_question(text, PACK_WINDOW) == datetime(2026, 10, 14, 10, 5, 3, tzinfo=UTC)
    assert '"10.0.3.7:8080 since 09:40"' in text and '"Slow\\" since 09:45 \\""' in text
    assert route_intent(text) == Intent.DIAGNOSIS
