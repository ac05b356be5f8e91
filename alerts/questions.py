"""The question an alert group asks the agent: what fired, where, since when, in the alert's own words.

The incident time is the earliest ``startsAt`` of the group's firing alerts, written first, before any
label's text, and in UTC as ``YYYY-MM-DD HH:MM:SS``, after "since": the offline provider takes the first
time a question says things began at, inside the loaded environment's window, as the onset
(``diagnosis/providers/offline/timing.py``), and a model reads it as plainly. Label values are quoted, as
data. The service is the ``service`` label, else ``job``; ``instance`` is named when present.
"""

from __future__ import annotations

import json
from datetime import UTC

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, ngettext

from alerts.payload import Alert, AlertmanagerPayload

#: Each annotation, and each label named, is cut to this many characters: the question must stay well under
#: the chat limit, or the alert could never start a run (and Alertmanager does not retry a 400).
ANNOTATION_CHARS = 1500
LABEL_CHARS = 200


def one_line(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters (a cut is marked)."""
    text = " ".join(text.split())
    return text[: limit - 1] + "…" if len(text) > limit else text


def _sentence(text: str) -> str:
    """One line, at most ``ANNOTATION_CHARS``, ending as a sentence so the next one does not run on."""
    text = one_line(text, ANNOTATION_CHARS)
    return text if text.endswith((".", "!", "?", "。", "！", "？")) else text + "."


def _quoted(value: str) -> str:
    """A label value in double quotes, its own quotes escaped: read as the alert's data, not the question's
    words (``instance="10.0.3.7:8080 since 09:40"`` says nothing of when the incident began)."""
    return json.dumps(value, ensure_ascii=False)


def incident_alert(payload: AlertmanagerPayload) -> Alert:
    """The firing alert that started first (the group's incident); the first alert when none fires."""
    firing = payload.firing_alerts or payload.alerts
    return min(firing, key=lambda alert: alert.starts_at)


def alert_question(payload: AlertmanagerPayload) -> str:
    """The question, in ``ALERT_LANGUAGE``: the run answers in the language it is asked in."""
    with translation.override(settings.ALERT_LANGUAGE):
        return " ".join(_sentences(payload))


def _sentences(payload: AlertmanagerPayload) -> list[str]:
    alert = incident_alert(payload)
    labels = {key: one_line(value, LABEL_CHARS) for key, value in {**payload.common_labels, **alert.labels}.items()}
    annotations = {**payload.common_annotations, **alert.annotations}
    name = labels.get("alertname", "")
    service = labels.get("service") or labels.get("job")
    where = gettext(" for %(service)s") % {"service": _quoted(service)} if service else ""
    if labels.get("job") and labels.get("service") and labels["job"] != labels["service"]:
        where += gettext(" (job %(job)s)") % {"job": _quoted(labels["job"])}
    if labels.get("instance"):
        where += gettext(" on instance %(instance)s") % {"instance": _quoted(labels["instance"])}
    # Four-digit years whatever the year (strftime writes year 1 as "1").
    since = alert.starts_at.astimezone(UTC).isoformat(sep=" ", timespec="seconds").removesuffix("+00:00")
    firing = (
        gettext("Since %(since)s UTC, alert %(name)s is firing%(where)s.")
        if name
        else gettext("Since %(since)s UTC, an alert is firing%(where)s.")
    )
    sentences = [firing % {"name": _quoted(name), "where": where, "since": since}]
    titles = {"summary": gettext("Summary: %(text)s"), "description": gettext("Description: %(text)s")}
    for key, title in titles.items():
        if one_line(annotations.get(key, ""), ANNOTATION_CHARS):
            sentences.append(title % {"text": _sentence(annotations[key])})
    # Alerts, not copies: a notification may repeat an alert, which is one alert however often it is listed.
    others = len(
        {frozenset(other.labels.items()) for other in payload.firing_alerts} - {frozenset(alert.labels.items())}
    )
    if others > 0:
        message = ngettext(
            "%(count)d more alert of the same group is firing.",
            "%(count)d more alerts of the same group are firing.",
            others,
        )
        sentences.append(message % {"count": others})
    if payload.truncated_alerts:
        message = ngettext(
            "%(count)d more alert of the group was left out of the notification.",
            "%(count)d more alerts of the group were left out of the notification.",
            payload.truncated_alerts,
        )
        sentences.append(message % {"count": payload.truncated_alerts})
    sentences.append(gettext("Why is this happening, and what is the root cause?"))
    return sentences
