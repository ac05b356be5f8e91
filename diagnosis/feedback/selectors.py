"""Who may give feedback on which run, and the feedback the chat page and the export read."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from diagnosis.models import DiagnosisRun, FeedbackRating, RunFeedback
from diagnosis.selectors import parse_id


def run_rateable_by(user: User | AnonymousUser | None, run_id: str) -> DiagnosisRun | None:
    """The run if ``user`` owns its session; None otherwise, so another user's run answers like an unknown one.

    Feedback is the asker's judgement of the answer they got: nobody rates another user's runs, not staff,
    not auditors (who write nothing anyway).
    """
    pk = parse_id(run_id)
    if pk is None or not user or not user.is_authenticated:
        return None
    return DiagnosisRun.objects.filter(pk=pk, session__owner=user).first()


def wrong_runs_feedback() -> QuerySet[RunFeedback]:
    """Feedback marking a run wrong, oldest first (a stable order for the export), with the run in the same query."""
    return (
        RunFeedback.objects.filter(rating=FeedbackRating.DOWN)
        .select_related("run", "user")
        .order_by("updated_at", "id")
    )
