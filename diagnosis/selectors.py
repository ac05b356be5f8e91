"""Reads of sessions and runs; ownership is decided here and nowhere else."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from diagnosis.models import ChatSession, DiagnosisRun, RunStatus

AUDIT_PERMISSION = "diagnosis.view_diagnosisrun"


def is_auditor(user: AbstractBaseUser | AnonymousUser | None) -> bool:
    """Auditors may read every run; owners only their own."""
    return bool(user and user.is_authenticated and user.has_perm(AUDIT_PERMISSION))


def sessions_visible_to(user: AbstractBaseUser | AnonymousUser | None) -> QuerySet[ChatSession]:
    if not user or not user.is_authenticated:
        return ChatSession.objects.none()
    if is_auditor(user):
        return ChatSession.objects.all()
    return ChatSession.objects.filter(owner=user)


def session_owned_by(user: AbstractBaseUser, session_id: uuid.UUID | str) -> ChatSession | None:
    """The session only if ``user`` owns it; writing into a session needs ownership, auditing does not."""
    try:
        return ChatSession.objects.get(pk=session_id, owner=user)
    except (ChatSession.DoesNotExist, ValueError):
        return None


def run_visible_to(user: AbstractBaseUser | AnonymousUser | None, run_id: uuid.UUID | str) -> DiagnosisRun | None:
    try:
        return DiagnosisRun.objects.select_related("session").get(
            pk=run_id, session__in=sessions_visible_to(user)
        )
    except (DiagnosisRun.DoesNotExist, ValueError, TypeError):
        return None


def session_history(session_id: uuid.UUID, *, before_run: DiagnosisRun, limit: int = 3) -> list[dict[str, str]]:
    """The query and conclusion of the session's last finished runs, oldest first, for follow-ups."""
    rows = (
        DiagnosisRun.objects.filter(session_id=session_id, started_at__lt=before_run.started_at)
        .exclude(status=RunStatus.RUNNING)
        .order_by("-started_at")
        .values("query", "conclusion")[:limit]
    )
    return [{"query": row["query"], "conclusion": row["conclusion"]} for row in reversed(rows)]
