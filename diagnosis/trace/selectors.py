"""Reads of the Trace API: a visible session, a run with its audit rows, a session's runs, reasoning rows.

Who may see a session is decided by ``diagnosis.selectors`` (owner or auditor); these reads only narrow
that visible set, so no audit surface can widen it.
"""

from __future__ import annotations

import uuid

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Prefetch

from diagnosis.models import ChatSession, DiagnosisRun, RunFeedback
from diagnosis.selectors import first_rows, runs_before, sessions_visible_to
from tools.models import ToolInvocation
from tracing.models import AgentReasoningAudit, AgentStep, DiagnosisTraceEvent

#: The run list of a session answers this many runs a page, the newest first; ``before`` pages back.
SESSION_RUNS_LIMIT = 50


def trace_session(user: User | AnonymousUser | None, session_id: str) -> ChatSession | None:
    """The session if ``user`` may read it; a foreign, unknown or malformed id is the same None (a 404)."""
    try:
        return sessions_visible_to(user).get(pk=uuid.UUID(session_id))
    except (ValueError, ChatSession.DoesNotExist):
        return None


def trace_run(session: ChatSession, run_id: uuid.UUID) -> DiagnosisRun | None:
    """One run of ``session`` with its steps, tool invocations, timeline and feedback, in one query each.

    The prefetches keep the number of queries independent of the number of rows; nothing reads the
    reasoning audit table here, so the normal trace cannot carry reasoning text even by mistake.
    """
    return (
        DiagnosisRun.objects.filter(session=session, pk=run_id)
        .prefetch_related(
            Prefetch("steps", queryset=AgentStep.objects.order_by("seq")),
            Prefetch("tool_invocations", queryset=ToolInvocation.objects.order_by("seq")),
            Prefetch("trace_events", queryset=DiagnosisTraceEvent.objects.order_by("seq")),
            Prefetch("feedback", queryset=RunFeedback.objects.select_related("user").order_by("created_at")),
        )
        .first()
    )


def session_runs(session: ChatSession, before: DiagnosisRun | None = None) -> tuple[list[DiagnosisRun], bool]:
    """A page of the runs of ``session``, newest first: the newest, or those started before ``before`` (a
    run of it); and whether older ones were left out."""
    return first_rows(runs_before(session, before), SESSION_RUNS_LIMIT)


def run_reasoning(session: ChatSession, run_id: uuid.UUID) -> list[AgentReasoningAudit] | None:
    """The reasoning audit rows of one run of ``session`` in step order; None if the run is not in it."""
    if not DiagnosisRun.objects.filter(session=session, pk=run_id).exists():
        return None
    return list(AgentReasoningAudit.objects.filter(run_id=run_id).select_related("step").order_by("step__seq"))
