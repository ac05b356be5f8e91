"""Reads of sessions and runs; ownership is decided here and nowhere else."""

from __future__ import annotations

import uuid
from functools import cache
from typing import TypeVar

from django.contrib.auth.models import AnonymousUser, User
from django.db import connections, router
from django.db.models import Exists, Model, OuterRef, Q, QuerySet, Subquery

from config.readonly_admin import AUDIT_PERMISSION
from diagnosis.models import ChatSession, DiagnosisRun, RunStatus

CANCEL_PERMISSION = "diagnosis.cancel_diagnosisrun"

Row = TypeVar("Row", bound=Model)


def is_auditor(user: User | AnonymousUser | None) -> bool:
    """Auditors may read every run; owners only their own."""
    return bool(user and user.is_authenticated and user.has_perm(AUDIT_PERMISSION))


def is_read_only(user: User | AnonymousUser | None) -> bool:
    """Auditors write nothing, anywhere (docs/audit.md). A superuser holds the audit permission as it holds every
    permission, but administers rather than audits: not read-only."""
    return is_auditor(user) and not getattr(user, "is_superuser", False)


def sessions_visible_to(user: User | AnonymousUser | None) -> QuerySet[ChatSession]:
    if not user or not user.is_authenticated:
        return ChatSession.objects.none()
    if is_auditor(user):
        return ChatSession.objects.all()
    return ChatSession.objects.filter(owner=user)


def owned_sessions(user: User) -> QuerySet[ChatSession]:
    """The user's sessions, latest first, for the chat page's sidebar and the sessions page, each annotated
    with ``running`` (a run of it is RUNNING) and its latest run's ``last_status`` and ``last_degraded``: three
    subqueries, one query (slice or page it)."""
    runs = DiagnosisRun.objects.filter(session=OuterRef("pk"))
    latest = runs.order_by("-started_at")
    return (
        ChatSession.objects.filter(owner=user)
        .annotate(
            running=Exists(runs.filter(status=RunStatus.RUNNING)),
            last_status=Subquery(latest.values("status")[:1]),
            last_degraded=Subquery(latest.values("degraded")[:1]),
        )
        .order_by("-updated_at", "-pk")
    )


def parse_id(value: object) -> uuid.UUID | None:
    """A client-supplied id, or None when it is not a UUID (answered like an unknown id)."""
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def session_owned_by(user: User, session_id: uuid.UUID | str) -> ChatSession | None:
    """The session only if ``user`` owns it; writing into a session needs ownership, auditing does not."""
    pk = parse_id(session_id)
    return ChatSession.objects.filter(pk=pk, owner=user).first() if pk else None


def runs_before(session: ChatSession, before: DiagnosisRun | None = None) -> QuerySet[DiagnosisRun]:
    """The session's runs, latest first: those started before ``before`` (a run of it), or all of them.

    Ordered by start then id, so that a page of them ends where the next begins even when two runs started
    in the same microsecond."""
    runs = session.runs.order_by("-started_at", "-pk")
    if before is not None:
        runs = runs.filter(Q(started_at__lt=before.started_at) | Q(started_at=before.started_at, pk__lt=before.pk))
    return runs


def run_of(session: ChatSession, run_id: uuid.UUID | None) -> DiagnosisRun | None:
    """A run of ``session`` by id, or None: no id, or not one of its runs."""
    return session.runs.filter(pk=run_id).first() if run_id else None


def first_rows(rows: QuerySet[Row], limit: int) -> tuple[list[Row], bool]:
    """The first ``limit`` of ``rows``, and whether more follow: one row more is read instead of a COUNT."""
    read = list(rows[: limit + 1])
    return read[:limit], len(read) > limit


def run_visible_to(user: User | AnonymousUser | None, run_id: uuid.UUID | str) -> DiagnosisRun | None:
    """The run if ``user`` owns its session or is an auditor (``sessions_visible_to``'s rule).

    The owner is checked first: the permission lookup behind ``is_auditor`` (two queries for a user whose
    permissions are not loaded yet) is only made for a run that is not the reader's. A run's stream is opened
    right after its POST by its owner, and each of its queries waits for a run executing beside it. It is made
    for an unknown run too: answered sooner, it would tell another user's run from one that does not exist."""
    pk = parse_id(run_id)
    if pk is None or not user or not user.is_authenticated:
        return None
    run = DiagnosisRun.objects.select_related("session").filter(pk=pk).first()
    if run is not None and run.session.owner_id == user.pk:
        return run
    auditor = is_auditor(user)
    return run if auditor else None


def run_cancellable_by(user: User | AnonymousUser | None, run_id: uuid.UUID | str) -> DiagnosisRun | None:
    """The run if ``user`` may cancel it: its session's owner, or a holder of ``CANCEL_PERMISSION`` (staff).

    Cancelling writes, so reading is not enough: an auditor gets None for other users' runs, like anyone
    who may not see them, and the API answers both with the same 404.
    """
    pk = parse_id(run_id)
    if pk is None or not user or not user.is_authenticated:
        return None
    runs = DiagnosisRun.objects.select_related("session")
    if not user.has_perm(CANCEL_PERMISSION):
        runs = runs.filter(session__owner=user)
    return runs.filter(pk=pk).first()


def run_stop_requested(run_id: uuid.UUID | str) -> bool:
    """Whether the run must stop: someone asked it to, or it has already ended (reaped meanwhile). Its
    worker asks this at every node boundary; between boundaries only its heartbeat, by time, notices.

    One statement written once per database (``_stop_statement``), not a query the ORM builds at each of a
    run's six boundaries: building it took about a quarter of a millisecond, ten times the statement's own
    time on SQLite, and 2-3 % of an offline run."""
    connection = connections[router.db_for_read(DiagnosisRun)]
    pk = DiagnosisRun._meta.pk.get_db_prep_value(uuid.UUID(str(run_id)), connection)
    with connection.cursor() as cursor:
        cursor.execute(_stop_statement(connection.alias), [pk, RunStatus.RUNNING.value])
        return cursor.fetchone() is not None


@cache
def _stop_statement(alias: str) -> str:
    """``run_stop_requested``'s SELECT, its names quoted for the database ``alias``."""
    quote = connections[alias].ops.quote_name
    meta = DiagnosisRun._meta
    column = {field.name: quote(field.column) for field in meta.concrete_fields if field.column}
    return (
        f"SELECT 1 FROM {quote(meta.db_table)} WHERE {column['id']} = %s"
        f" AND ({column['cancel_requested_at']} IS NOT NULL OR {column['status']} <> %s)"
    )


def session_history(session_id: uuid.UUID, *, before_run: DiagnosisRun, limit: int = 3) -> list[dict[str, str]]:
    """The query and conclusion of the session's last finished runs, oldest first, for follow-ups."""
    rows = (
        DiagnosisRun.objects.filter(session_id=session_id, started_at__lt=before_run.started_at)
        .exclude(status=RunStatus.RUNNING)
        .order_by("-started_at")
        .values("query", "conclusion")[:limit]
    )
    return [{"query": row["query"], "conclusion": row["conclusion"]} for row in reversed(rows)]
