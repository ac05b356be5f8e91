"""What a chat-ops notification says about a finished alert run, before any sink's format is applied."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext

from alerts.questions import LABEL_CHARS, one_line
from diagnosis.models import DiagnosisRun, RunStatus


@dataclass(frozen=True)
class RunMessage:
    title: str
    # The released answer (or the fallback) as the run stored it; for a failed run, why it failed.
    answer_markdown: str
    run_id: str
    session_id: str
    outcome: str
    degraded: bool
    effective_verdict: str
    question: str
    alertname: str
    # Absolute links: the run's page in the admin (its path through the graph, steps, calls, timeline) and
    # its Trace API record. Both are for auditors and staff: the run belongs to the alert service user.
    run_url: str
    trace_url: str


def run_message(run: DiagnosisRun, *, alertname: str) -> RunMessage:
    """The notification of ``run``, in the active language (``ALERT_LANGUAGE`` where it is delivered)."""
    base = settings.PUBLIC_BASE_URL or ""
    run_path = reverse("admin:diagnosis_diagnosisrun_change", args=[run.pk])
    trace_path = (
        reverse("tracing:trace", kwargs={"session_id": str(run.session_id)}) + "?" + urlencode({"runId": run.pk})
    )
    if run.status == RunStatus.FAILED:
        reason = run.failure_reason or gettext("unknown reason")
        answer = gettext("The diagnosis failed (%(reason)s); its trace says where.") % {"reason": reason}
    else:
        answer = run.final_answer
    # On one line whatever row it was read from: a line break would start a line of the title's own.
    alertname = one_line(alertname, LABEL_CHARS)
    return RunMessage(
        title=gettext("Diagnosis %(outcome)s: %(alert)s")
        % {"outcome": run.outcome, "alert": alertname or gettext("alert")},
        answer_markdown=answer,
        run_id=str(run.pk),
        session_id=str(run.session_id),
        outcome=run.outcome,
        degraded=run.degraded,
        effective_verdict=run.effective_verdict,
        question=run.query,
        alertname=alertname,
        run_url=base + run_path,
        trace_url=base + trace_path,
    )
