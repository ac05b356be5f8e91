"""Submission, the first link of a run's lifecycle: a chat message becomes a session and a routed run.

submission → dispatch (``diagnosis.dispatch``) → task (``diagnosis.tasks``) → execution
(``diagnosis.execution``) → services (``diagnosis.services``). Each link imports only the ones after it:
``chat_submit`` is the only caller of ``dispatch_run``, and the services never dispatch.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from diagnosis import sse
from diagnosis.dispatch import dispatch_run
from diagnosis.intent import route_intent
from diagnosis.models import ChatSession, DiagnosisRun
from diagnosis.selectors import session_owned_by
from tracing.events import TimelineEvent
from tracing.models import TraceEventKind
from tracing.timeline import append_event

MAX_MESSAGE_CHARS = 8000
TITLE_CHARS = 80


class SubmissionError(ValueError):
    """A chat message that cannot be accepted; ``code`` and ``status`` become the API's JSON error."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


def checked_message(message: str) -> str:
    """The message as a run's query (stripped); ``SubmissionError`` when it is empty or too long."""
    text = (message or "").strip()
    if not text:
        raise SubmissionError("empty_message", "message must not be empty")
    if len(text) > MAX_MESSAGE_CHARS:
        raise SubmissionError("message_too_long", f"message must be at most {MAX_MESSAGE_CHARS} characters")
    return text


def run_create(*, user: User, message: str, session_id: str | None = None) -> DiagnosisRun:
    """Validate a message and create (or continue) the session and the run, routed to its intent."""
    text = checked_message(message)
    with transaction.atomic():
        if session_id:
            session = session_owned_by(user, session_id)
            if session is None:
                # Foreign and unknown sessions answer the same, so ids of other users cannot be probed.
                raise SubmissionError("session_not_found", "no such chat session", status=404)
            session.save(update_fields=["updated_at"])
        else:
            session = ChatSession.objects.create(owner=user, title=text[:TITLE_CHARS])
        run = DiagnosisRun.objects.create(session=session, query=text, intent=route_intent(text))
        append_event(run.id, TraceEventKind.ROUTING, TimelineEvent.INTENT_ROUTED, {"intent": run.intent})
        sse.publish_on_commit(run.id, "metadata", {"session_id": str(session.id), "run_id": str(run.id)})
    return run


def chat_submit(*, user: User, message: str, session_id: str | None = None) -> DiagnosisRun:
    """``run_create``, then hand the run to the executor once the rows are committed."""
    with transaction.atomic():
        run = run_create(user=user, message=message, session_id=session_id)
        transaction.on_commit(lambda: dispatch_run(run.id))
    return run
