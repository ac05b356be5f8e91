"""Submission, the first link of a run's lifecycle: a chat message becomes a session and a routed run.

submission → dispatch (``diagnosis.dispatch``) → task (``diagnosis.tasks``) → execution
(``diagnosis.execution``) → services (``diagnosis.services``). Each link imports only the ones after it:
``chat_submit`` is the only caller of ``dispatch_run``, and the services never dispatch.

When Redis (the broker) is down a message is refused with ``SubmissionError`` 503 ``service_unavailable``:
before anything is written when the quick check finds it down, or, when it went away between the check and
the hand-off, after the run that could not be handed off was failed at once (``failure`` + one ``done``),
so that no run is left RUNNING for the reaper. docs/decisions.md, "Redis down", says why both.
"""

from __future__ import annotations

import logging
import unicodedata
import uuid

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext, gettext_lazy, ngettext

from config.text import is_unicode_text
from diagnosis import sse
from diagnosis.dispatch import BrokerUnavailable, dispatch_run, redis_reachable
from diagnosis.failures import FailureCode
from diagnosis.intent import route_intent
from diagnosis.models import ChatSession, DiagnosisRun, RunStatus
from diagnosis.release.draft import visible
from diagnosis.selectors import session_owned_by
from diagnosis.services import run_fail
from tracing.events import TimelineEvent
from tracing.models import TraceEventKind
from tracing.timeline import RunLog, append_event, owned_log

logger = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 8000
TOO_MANY_RUNS = "too_many_runs"
TITLE_CHARS = 80


# When a refused client may try again (the API's ``Retry-After``): a broker back after a restart, or one of
# the user's runs ended (an offline run takes a second, a model's a minute or so).
RETRY_UNAVAILABLE_SECONDS = 30
RETRY_BUSY_SECONDS = 15


class SubmissionError(ValueError):
    """A chat message that cannot be accepted; ``code`` and ``status`` become the API's JSON error, and
    ``retry_after`` (seconds) its ``Retry-After`` when the refusal is temporary."""

    def __init__(self, code: str, message: str, status: int = 400, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.status, self.retry_after = code, message, status, retry_after


def checked_message(message: str) -> str:
    """The message as a run's query (stripped); ``SubmissionError`` when it is empty (nothing a reader would
    see: a zero-width space alone started a run with an invisible title) or too long."""
    text = (message or "").strip()
    if not _shows_something(text):
        raise SubmissionError("empty_message", gettext("message must not be empty"))
    if len(text) > MAX_MESSAGE_CHARS:
        message = gettext("message must be at most %(count)d characters") % {"count": MAX_MESSAGE_CHARS}
        raise SubmissionError("message_too_long", message)
    if not is_unicode_text(text):
        raise SubmissionError("invalid_message", gettext("message must be valid Unicode text"))
    return text


def run_create(*, user: User, message: str, session_id: str | None = None) -> DiagnosisRun:
    """Validate a message and create (or continue) the session and the run, routed to its intent."""
    text = checked_message(message)
    run_id = uuid.uuid4()
    # The run's log is empty: its first events (the routing, then the metadata published at the commit) are
    # numbered by this one log, without reading where the log stands.
    with owned_log(RunLog(run_id, empty=True)), transaction.atomic():
        if session_id:
            session = session_owned_by(user, session_id)
            if session is None:
                # Foreign and unknown sessions answer the same, so ids of other users cannot be probed.
                raise SubmissionError("session_not_found", gettext("no such chat session"), status=404)
            session.save(update_fields=["updated_at"])
        else:
            session = ChatSession.objects.create(owner=user, title=_title(text))
        run = DiagnosisRun.objects.create(id=run_id, session=session, query=text, intent=route_intent(text))
        append_event(run.id, TraceEventKind.ROUTING, TimelineEvent.INTENT_ROUTED, {"intent": run.intent})
        sse.publish_on_commit(run.id, "metadata", {"session_id": str(session.id), "run_id": str(run.id)})
    return run


def _shows_something(text: str) -> bool:
    """Whether ``text`` has a character a reader sees: not only spaces, control characters and what shows
    nothing (``visible``: zero-width spaces, byte-order marks, bidirectional overrides, variation selectors,
    Hangul fillers), which ``str.strip`` keeps, nor the blank braille pattern."""
    return any(unicodedata.category(character) not in _BLANK and character != "\u2800" for character in visible(text))


_BLANK = frozenset({"Cc", "Zs", "Zl", "Zp"})


def _title(text: str) -> str:
    """The session's name in the lists: the first question on one line, from its first character a reader
    sees (joiners inside it kept: they shape emoji and scripts), cut with an ellipsis."""
    line = " ".join(text.split())
    line = line[next((at for at, character in enumerate(line) if _shows_something(character)), 0) :]
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


UNAVAILABLE_CODE = "service_unavailable"
UNAVAILABLE_MESSAGE = gettext_lazy(
    "The service cannot start runs right now (its broker is unreachable); try again shortly."
)


def unavailable() -> SubmissionError:
    """The 503 of a run that cannot be started: the broker is unreachable."""
    return SubmissionError(
        UNAVAILABLE_CODE, str(UNAVAILABLE_MESSAGE), status=503, retry_after=RETRY_UNAVAILABLE_SECONDS
    )


def never_started(run: DiagnosisRun) -> bool:
    """Whether ``run`` failed before any worker claimed it: the broker refused its hand-off (``_start``), its
    task was lost or waited past the queue timeout (the reaper's ``not_started``), or it was cancelled in
    the queue. It never ran: an alert group's next notification starts a run instead of waiting for it."""
    return run.status == RunStatus.FAILED and run.claimed_at is None


def _start(run: DiagnosisRun) -> bool:
    """Hand a committed run to the executor; if the broker refuses it, fail the run at once (False)."""
    try:
        dispatch_run(run.id)
    except BrokerUnavailable as error:
        logger.warning("run %s could not be handed to the broker, failing it: %s", run.id, error)
        run_fail(run, reason=FailureCode.BROKER_UNAVAILABLE)
        return False
    return True


def _refuse_past_active_limit(user: User, limit: int) -> None:
    """``SubmissionError`` 429 when ``user`` already has ``limit`` runs RUNNING (queued or working).

    The user's row is locked first, for the caller's transaction: two messages posted at once on MySQL then
    count each other's run instead of both finding room for one (SQLite's IMMEDIATE transactions are
    serialised anyway)."""
    User.objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True).first()
    if DiagnosisRun.objects.filter(session__owner=user, status=RunStatus.RUNNING).count() >= limit:
        message = ngettext(
            "You already have %(count)d diagnosis running; wait for it to end or cancel it.",
            "You already have %(count)d diagnoses running; wait for one to end or cancel one.",
            limit,
        ) % {"count": limit}
        raise SubmissionError(TOO_MANY_RUNS, message, status=429, retry_after=RETRY_BUSY_SECONDS)


def chat_submit(
    *, user: User, message: str, session_id: str | None = None, max_active: int | None = None
) -> DiagnosisRun:
    """``run_create``, then hand the run to the executor once the rows are committed.

    ``SubmissionError`` 503 when the broker is down: nothing is written if the check before finds it so;
    a run whose hand-off fails afterwards is already FAILED (``broker_unavailable``) when this raises.
    ``max_active``: refuse (429 ``too_many_runs``) a run past this many RUNNING runs of the user's.
    """
    checked_message(message)  # a bad message is a 400 whatever the broker's state
    if not redis_reachable():
        raise unavailable()
    started: list[bool] = []
    with transaction.atomic():
        if max_active is not None:
            _refuse_past_active_limit(user, max_active)
        run = run_create(user=user, message=message, session_id=session_id)
        transaction.on_commit(lambda: started.append(_start(run)))
    # Empty when an enclosing transaction defers the hand-off to its own commit.
    if started == [False]:
        raise unavailable()
    return run
