"""Why a run failed: the one catalogue of failure codes and their sentences.

A failed run stores its code (``failure_reason``) and a message; the ``failure`` event carries both. The
message is the code's sentence in English, for logs, the Trace API and the admin, whoever's request or
worker ended the run; the chat page shows the same sentence in the reader's language. Both are read from
``TEXTS``, so a new code, or a reworded one, cannot say one thing to the operator and another to the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy


class FailureCode(StrEnum):
    CANCELLED = "cancelled"
    """Also the orchestration ``termination_reason`` of a cancelled graph run."""
    TIME_LIMIT = "time_limit"
    RUN_ENDED = "run_ended"
    """The worker was told to stop (a warm shutdown) while the graph was still working."""
    GRAPH_ERROR = "graph_error"
    INTERNAL_ERROR = "internal_error"
    BROKER_UNAVAILABLE = "broker_unavailable"
    WORKER_LOST = "worker_lost"
    NOT_STARTED = "not_started"
    KNOWLEDGE_SEARCH_FAILED = "knowledge_search_failed"
    """A knowledge question's search failed (its tool call was not READY): no answer may say the base has
    nothing."""
    INTERRUPTED = "interrupted"
    """The process executing it was stopped: ``manage.py diagnose`` by Ctrl-C, the embedded server by its
    shutdown (SIGTERM, Ctrl-C)."""


TEXTS: Mapping[str, Promise] = {
    FailureCode.CANCELLED: gettext_lazy("The run was cancelled."),
    FailureCode.TIME_LIMIT: gettext_lazy("The run exceeded its time limit."),
    FailureCode.RUN_ENDED: gettext_lazy("The run was ended while it was still working."),
    FailureCode.GRAPH_ERROR: gettext_lazy("The diagnosis failed unexpectedly; see its trace."),
    FailureCode.INTERNAL_ERROR: gettext_lazy("The run failed unexpectedly; see its trace."),
    FailureCode.BROKER_UNAVAILABLE: gettext_lazy("The run could not be started: the broker is unreachable."),
    FailureCode.WORKER_LOST: gettext_lazy("The worker running this diagnosis stopped; the run was ended."),
    FailureCode.NOT_STARTED: gettext_lazy("No worker started this diagnosis in time; the run was ended."),
    FailureCode.KNOWLEDGE_SEARCH_FAILED: gettext_lazy("The knowledge base could not be searched; try again later."),
    FailureCode.INTERRUPTED: gettext_lazy("The diagnosis was interrupted."),
}
#: A code this catalogue does not know: a row written by another version of the code.
UNKNOWN_FAILURE = gettext_lazy("The run failed (%(code)s).")


def failure_text(code: str) -> str:
    """Why a run failed, from its failure code, in the active language."""
    text = TEXTS.get(code)
    return str(text) if text is not None else str(UNKNOWN_FAILURE) % {"code": code or "?"}


def failure_message(code: FailureCode, detail: str = "") -> str:
    """The message stored with a run failed ``code``: its sentence in English, whatever language the request
    that ended it was in, and ``detail`` (what an operator may want beside it: a tool's error code) after it."""
    with translation.override("en"):
        sentence = str(TEXTS[code])
    return f"{sentence} ({detail})" if detail else sentence
