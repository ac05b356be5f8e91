"""The question an alert group asks the agent: what fired, where, since when, in the alert's own words.

The incident time is the earliest ``startsAt`` of the group's firing alerts, written first and in UTC as
``YYYY-MM-DD HH:MM:SS``, after "since": the offline provider takes the time a question says things began
at, inside the loaded environment's window, as the onset (``diagnosis/providers/offline/timing.py``), and a
model reads it as plainly. The service is the ``service`` label, else ``job``; ``instance`` is named when present.
"""

from __future__ import annotations

from datetime import UTC

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


def incident_alert(payload: AlertmanagerPayload) -> Alert:
    """The firing alert that started first (the group's incident); the first alert when none fires."""
    firing = payload.firing_alerts or payload.alerts
    return min(firing, key=lambda alert: alert.starts_at)


def alert_question(payload: AlertmanagerPayload) -> str:
    alert = incident_alert(payload)
    labels = {key: one_line(value, LABEL_CHARS) for key, value in {**payload.common_labels, **alert.labels}.items()}
    annotations = {**payload.common_annotations, **alert.annotations}
    name = labels.get("alertname", "")
    service = labels.get("service") or labels.get("job")
    where = f" for {service}" if service else ""
    if labels.get("job") and labels.get("service") and labels["job"] != labels["service"]:
        where += f" (job {labels['job']})"
    if labels.get("instance"):
        where += f" on instance {labels['instance']}"
    # Four-digit years whatever the year (strftime writes year 1 as "1").
    since = alert.starts_at.astimezone(UTC).isoformat(sep=" ", timespec="seconds").removesuffix("+00:00")
    sentences = [f"{f'Alert {name}' if name else 'An alert'} is firing{where} since {since} UTC."]
    for key in ("summary", "description"):
        if one_line(annotations.get(key, ""), ANNOTATION_CHARS):
            sentences.append(f"{key.capitalize()}: {_sentence(annotations[key])}")
    # Alerts, not copies: a notification may repeat an alert, which is one alert however often it is listed.
    others = len(
        {frozenset(other.labels.items()) for other in payload.firing_alerts} - {frozenset(alert.labels.items())}
    )
    if others > 0:
        sentences.append(f"{others} more alert(s) of the same group are firing.")
    if payload.truncated_alerts:
        sentences.append(f"{payload.truncated_alerts} more alert(s) of the group were left out of the notification.")
    sentences.append("Why is this happening, and what is the root cause?")
    return " ".join(sentences)
