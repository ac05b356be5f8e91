"""The chat page: server-rendered history, live runs through static/js/chat.js."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.mixins import LoginRequiredMixin
from django.views.generic import TemplateView

from diagnosis.rendering import render_answer
from diagnosis.selectors import session_owned_by
from diagnosis.sse import events_url

SIDEBAR_SESSIONS = 30


class ChatPageView(LoginRequiredMixin, TemplateView):
    template_name = "diagnosis/chat.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        user = self.request.user
        current = session_owned_by(user, self.request.GET["session"]) if self.request.GET.get("session") else None
        runs = list(current.runs.order_by("started_at")) if current else []
        for run in runs:
            run.answer_html = render_answer(run.final_answer)
            run.events_url = events_url(run.pk)
        context.update(
            sessions=user.chat_sessions.order_by("-updated_at")[:SIDEBAR_SESSIONS], current=current, runs=runs
        )
        return context
