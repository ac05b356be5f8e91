"""Recording feedback: one row per user and run, created or changed in place."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from diagnosis.models import DiagnosisRun, RunFeedback, RunStatus

#: A comment is a note for whoever reviews the run, not a document: longer ones are refused, not cut.
MAX_COMMENT_CHARS = 2000


class FeedbackRefused(Exception):
    """Why feedback cannot be recorded: ``code`` and a message for the API's error body."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@transaction.atomic
def feedback_give(*, run: DiagnosisRun, user: User, rating: str, comment: str) -> tuple[RunFeedback, bool]:
    """Set ``user``'s rating and comment of ``run``; True when it is their first feedback on it.

    A run still RUNNING has no answer to judge yet. ``update_or_create`` inside the transaction relies on the
    unique (run, user) constraint: two racing first clicks end as one row, the later one's values.
    """
    if run.status == RunStatus.RUNNING:
        raise FeedbackRefused("run_running", _("the run has not finished; rate its answer once it has one"))
    return RunFeedback.objects.update_or_create(run=run, user=user, defaults={"rating": rating, "comment": comment})
