"""The chat page: server-rendered history, live runs through static/js/chat.js."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.mixins import LoginRequiredMixin
from django.db.models import Prefetch
from django.views.generic import TemplateView

from diagnosis.models import DiagnosisRun, RunFeedback
from diagnosis.rendering import render_answer
from diagnosis.selectors import session_owned_by
from diagnosis.sse import events_url

SIDEBAR_SESSIONS = 30


@dataclass(frozen=True)
class RunCard:
    """What ``diagnosis/_run.html`` reads of one run: its fields, the sanitised answer and its events url."""

    pk: uuid.UUID
    session_id: uuid.UUID
    query: str
    status: str
    degraded: bool
    failure_reason: str
    outcome: str
    effective_verdict: str
    answer_html: str
    events_url: str
    # The signed-in user's rating of the answer (``_feedback.html``), from the ``my_feedback`` prefetch.
    feedback: RunFeedback | None = None

    @classmethod
    def of(cls, run: DiagnosisRun) -> RunCard:
        return cls(
            pk=run.pk,
            session_id=run.session_id,
            query=run.query,
            status=run.status,
            degraded=run.degraded,
            failure_reason=run.failure_reason,
            outcome=run.outcome,
            effective_verdict=run.effective_verdict,
            answer_html=render_answer(run.final_answer),
            events_url=events_url(run.pk),
            feedback=next(iter(getattr(run, "my_feedback", [])), None),
        )


class ChatPageView(LoginRequiredMixin, TemplateView):
    template_name = "diagnosis/chat.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        user = self.request.user
        # LoginRequiredMixin answers anonymous requests before this runs; the assert narrows the type.
        assert user.is_authenticated
        current = session_owned_by(user, self.request.GET["session"]) if self.request.GET.get("session") else None
        mine = Prefetch("feedback", queryset=RunFeedback.objects.filter(user=user), to_attr="my_feedback")
        runs = (
            [RunCard.of(run) for run in current.runs.prefetch_related(mine).order_by("started_at")] if current else []
        )
        context.update(
            sessions=user.chat_sessions.order_by("-updated_at")[:SIDEBAR_SESSIONS], current=current, runs=runs
        )
        return context
