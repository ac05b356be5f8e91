"""The chat page: server-rendered history, live runs through static/js/chat.js."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.functional import Promise
from django.utils.safestring import SafeString
from django.utils.translation import gettext, pgettext_lazy
from django.views.generic import TemplateView

from diagnosis import failures
from diagnosis.figures.render import render_figures
from diagnosis.graph.status import Verdict
from diagnosis.models import ChatSession, DiagnosisRun, RunFeedback, RunOutcome, RunStatus, run_outcome
from diagnosis.rendering import render_answer
from diagnosis.selectors import (
    first_rows,
    owned_sessions,
    parse_id,
    run_of,
    run_visible_to,
    runs_before,
    session_owned_by,
)
from diagnosis.sse import events_url, released_evidence
from diagnosis.submission import MAX_MESSAGE_CHARS

SIDEBAR_SESSIONS = 30
#: Sessions on one page of ``/history/``, where the sidebar's link to the older ones leads.
SESSIONS_PER_PAGE = 50
#: Runs of a session on one page of the chat: each is rendered (its answer's markdown, its figures), so a
#: long session is shown in pages, the latest first, with a link to the runs before them.
TRANSCRIPT_RUNS = 20


def outcome_label(outcome: str) -> str:
    """The outcome in the reader's language (a running run's status as it is)."""
    return str(RunOutcome(outcome).label) if outcome in RunOutcome.values else outcome


# The page's verdicts, for the history's cards (``RunCard``) and, through ``run_texts`` on the page, for the
# cards chat.js ends live: both say the same, in the reader's language, as they do of a failure
# (``diagnosis.failures``: the ``failure`` event's ``message`` is its English sentence, for logs and the API;
# the page shows the sentence of its ``code``).
VERDICT_LABELS: Mapping[str, Promise] = {
    Verdict.PASS: pgettext_lazy("verdict", "pass"),
    Verdict.LOW_CONFID: pgettext_lazy("verdict", "low confidence"),
    Verdict.REJECT: pgettext_lazy("verdict", "reject"),
}


def verdict_badge(verdict: str) -> str:
    """The verdict badge's text (``verdict: pass``); a verdict missing from ``VERDICT_LABELS`` as it is."""
    label = VERDICT_LABELS.get(verdict)
    return gettext("verdict: %(verdict)s") % {"verdict": str(label) if label is not None else verdict}


def run_texts() -> dict[str, Any]:
    """What chat.js says of a run's end, from the same catalogue as the cards (``json_script`` on the page)."""
    return {
        "failures": {code: str(text) for code, text in failures.TEXTS.items()},
        "unknown_failure": str(failures.UNKNOWN_FAILURE),
        "verdicts": {verdict: verdict_badge(verdict) for verdict in VERDICT_LABELS},
        "verdict_labels": {verdict: str(label) for verdict, label in VERDICT_LABELS.items()},
    }


@dataclass(frozen=True)
class SidebarSession:
    """What ``diagnosis/_sessions.html`` reads of one session: a spinner while a run of it is running, else
    its latest run's outcome."""

    pk: uuid.UUID
    title: str
    running: bool
    outcome: str
    outcome_label: str
    updated_at: datetime

    @classmethod
    def of(cls, session: ChatSession) -> SidebarSession:
        status = getattr(session, "last_status", None)
        outcome = run_outcome(status, degraded=bool(getattr(session, "last_degraded", False))) if status else ""
        running = bool(getattr(session, "running", False))
        return cls(session.pk, session.title, running, outcome, outcome_label(outcome), session.updated_at)


def _sidebar(request: HttpRequest, current: ChatSession | None) -> dict[str, Any]:
    """The latest ``SIDEBAR_SESSIONS`` sessions, and whether older ones are on the sessions page."""
    user = request.user
    assert user.is_authenticated
    sessions, older = first_rows(owned_sessions(user), SIDEBAR_SESSIONS)
    return {"sessions": [SidebarSession.of(session) for session in sessions], "older": older, "current": current}


@dataclass(frozen=True)
class RunCard:
    """What ``diagnosis/_run.html`` reads of one run: its fields, the sanitised answer and its events url."""

    pk: uuid.UUID
    session_id: uuid.UUID
    query: str
    status: str
    degraded: bool
    failure_reason: str
    # ``failure_text(failure_reason)`` and ``verdict_badge(effective_verdict)``: in the reader's language.
    failure_text: str
    outcome: str
    outcome_label: str
    effective_verdict: str
    verdict_badge: str
    answer_html: str
    figures_html: SafeString
    events_url: str
    # The signed-in user's rating of the answer (``_feedback.html``), from the ``my_feedback`` prefetch.
    feedback: RunFeedback | None = None
    # The verified excerpts released with the answer (``sse.released_evidence``), listed under it.
    evidence: tuple[dict[str, Any], ...] = ()

    @classmethod
    def of(cls, run: DiagnosisRun, evidence: list[dict[str, Any]] | None = None) -> RunCard:
        return cls(
            pk=run.pk,
            session_id=run.session_id,
            query=run.query,
            status=run.status,
            degraded=run.degraded,
            failure_reason=run.failure_reason,
            failure_text=failures.failure_text(run.failure_reason),
            outcome=run.outcome,
            outcome_label=outcome_label(run.outcome),
            effective_verdict=run.effective_verdict,
            verdict_badge=verdict_badge(run.effective_verdict) if run.effective_verdict else "",
            answer_html=render_answer(run.final_answer),
            figures_html=render_figures(run.figures, run_id=run.pk),
            events_url=events_url(run.pk),
            feedback=next(iter(getattr(run, "my_feedback", [])), None),
            evidence=tuple(evidence or ()),
        )


class ChatPageView(LoginRequiredMixin, TemplateView):
    template_name = "diagnosis/chat.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        user = self.request.user
        # LoginRequiredMixin answers anonymous requests before this runs; the assert narrows the type.
        assert user.is_authenticated
        current = session_owned_by(user, self.request.GET["session"]) if self.request.GET.get("session") else None
        context.update(
            _sidebar(self.request, current), runs=[], run_texts=run_texts(), max_message_chars=MAX_MESSAGE_CHARS
        )
        if current is not None:
            context.update(self._transcript(current, self.request.GET.get("before")))
        return context

    def _transcript(self, session: ChatSession, before_id: str | None) -> dict[str, Any]:
        """A page of the session's runs, oldest first: the latest ones, or (``before``) those before a run
        of the session, which an ``earlier`` link names. A ``before`` that is not a run of the session is
        ignored, as a session id that is not the user's is."""
        before = run_of(session, parse_id(before_id))
        # The session is the signed-in user's own (``session_owned_by``): its owner's ratings are the reader's.
        mine = Prefetch(
            "feedback", queryset=RunFeedback.objects.filter(user_id=session.owner_id), to_attr="my_feedback"
        )
        page, earlier = first_rows(runs_before(session, before).prefetch_related(mine), TRANSCRIPT_RUNS)
        shown = page[::-1]
        evidence = released_evidence([run.pk for run in shown if run.status == RunStatus.SUCCESS])
        return {
            "runs": [RunCard.of(run, evidence.get(run.pk)) for run in shown],
            "earlier_url": f"?session={session.pk}&before={shown[0].pk}" if earlier else "",
            "latest_url": f"?session={session.pk}" if before is not None else "",
        }


class SessionsPageView(LoginRequiredMixin, TemplateView):
    """Every session of the user, in pages, latest first: the sidebar shows the latest ``SIDEBAR_SESSIONS``
    and links here when there are more, which a page could otherwise reach only by typing their ids."""

    template_name = "diagnosis/sessions.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        user = self.request.user
        assert user.is_authenticated  # LoginRequiredMixin answered anonymous requests
        page = Paginator(owned_sessions(user), SESSIONS_PER_PAGE).get_page(self.request.GET.get("page"))
        context.update(page=page, sessions=[SidebarSession.of(session) for session in page], page_query="")
        return context


@login_required
def sessions_fragment(request: HttpRequest) -> HttpResponse:
    """The sidebar's session list as HTML: the page asks for it when a run starts or ends, and while one of
    its sessions is running, so that new sessions and outcomes show without a reload."""
    user = request.user
    # login_required answers anonymous requests before this runs; the assert narrows the type.
    assert user.is_authenticated
    current = session_owned_by(user, request.GET["session"]) if request.GET.get("session") else None
    return render(request, "diagnosis/_sessions.html", _sidebar(request, current))


@login_required
def figures_fragment(request: HttpRequest, run_id: uuid.UUID) -> HttpResponse:
    """A finished run's figures as HTML, in the reader's language: the page asks for it when the run's
    ``content`` arrives (the SSE payload is written by a worker that does not know who reads it)."""
    run = run_visible_to(request.user, run_id)
    if run is None:
        raise Http404
    return HttpResponse(render_figures(run.figures, run_id=run.pk))
