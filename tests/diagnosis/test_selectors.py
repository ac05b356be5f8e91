"""Ownership and history reads: one place decides who sees a session, and what a follow-up remembers."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser, Permission
from django.utils import timezone

from diagnosis.models import ChatSession, DiagnosisRun, RunStatus
from diagnosis.selectors import (
    run_stop_requested,
    run_visible_to,
    session_history,
    session_owned_by,
    sessions_visible_to,
)

pytestmark = pytest.mark.django_db


def finished(session, query, conclusion, minutes_ago):
    run = DiagnosisRun.objects.create(
        session=session, query=query, conclusion=conclusion, status=RunStatus.SUCCESS, finished_at=timezone.now()
    )
    DiagnosisRun.objects.filter(pk=run.pk).update(started_at=timezone.now() - timedelta(minutes=minutes_ago))
    run.refresh_from_db()
    return run


def test_it_remembers_the_last_finished_runs_of_the_session_oldest_first(owner):
    session = ChatSession.objects.create(owner=owner)
    for index in range(5):
        finished(session, f"question {index}", f"conclusion {index}", minutes_ago=50 - index)
    DiagnosisRun.objects.create(session=session, query="still running")
    current = DiagnosisRun.objects.create(session=session, query="and now?")

    history = session_history(session.pk, before_run=current)

    assert history == [{"query": f"question {i}", "conclusion": f"conclusion {i}"} for i in (2, 3, 4)]


def test_it_shows_sessions_to_their_owner_and_to_auditors_only(owner, other_user):
    mine = ChatSession.objects.create(owner=owner)
    run = DiagnosisRun.objects.create(session=mine, query="q")

    assert list(sessions_visible_to(owner)) == [mine]
    assert list(sessions_visible_to(other_user)) == []
    assert run_visible_to(other_user, run.pk) is None
    assert session_owned_by(other_user, mine.pk) is None
    other_user.user_permissions.add(Permission.objects.get(codename="view_diagnosisrun"))
    auditor = type(other_user).objects.get(pk=other_user.pk)  # a fresh instance: permissions are cached
    assert run_visible_to(auditor, run.pk) == run
    assert session_owned_by(auditor, mine.pk) is None  # auditing never grants writing


def test_it_answers_malformed_ids_like_unknown_ones(owner):
    assert run_visible_to(owner, "not-a-uuid") is None
    assert session_owned_by(owner, "../../etc") is None


def test_an_owner_reads_a_run_of_theirs_in_one_query_others_also_pay_the_permission_lookup(
    owner, other_user, django_assert_num_queries
):
    run = DiagnosisRun.objects.create(session=ChatSession.objects.create(owner=owner), query="q")
    with django_assert_num_queries(1):
        assert run_visible_to(owner, run.pk) == run
    with django_assert_num_queries(3):  # the run, then the user's and the groups' permissions
        assert run_visible_to(other_user, run.pk) is None


def test_an_unknown_run_costs_what_another_users_run_does(owner, django_assert_num_queries):
    """Answered sooner, it would tell another user's run from one that does not exist (docs/audit.md)."""
    with django_assert_num_queries(3):
        assert run_visible_to(owner, uuid.uuid4()) is None


def test_anonymous_readers_see_no_run_and_cost_no_query(owner, django_assert_num_queries):
    run = DiagnosisRun.objects.create(session=ChatSession.objects.create(owner=owner), query="q")
    with django_assert_num_queries(0):
        assert run_visible_to(AnonymousUser(), run.pk) is None
        assert run_visible_to(None, run.pk) is None


@pytest.mark.parametrize(
    ("status", "cancel_requested", "stops"),
    [
        (RunStatus.RUNNING, False, False),
        (RunStatus.RUNNING, True, True),  # asked to stop
        (RunStatus.SUCCESS, False, True),  # ended meanwhile (reaped)
        (RunStatus.FAILED, False, True),
    ],
)
def test_a_run_must_stop_once_asked_to_or_ended(owner, status, cancel_requested, stops, django_assert_num_queries):
    session = ChatSession.objects.create(owner=owner)
    run = DiagnosisRun.objects.create(
        session=session,
        query="q",
        status=status,
        finished_at=None if status == RunStatus.RUNNING else timezone.now(),
        cancel_requested_at=timezone.now() if cancel_requested else None,
    )
    DiagnosisRun.objects.create(session=session, query="another run, running")

    with django_assert_num_queries(1):
        assert run_stop_requested(run.pk) is stops
    assert run_stop_requested(str(run.pk)) is stops


def test_an_unknown_run_has_nothing_to_stop(owner):
    assert run_stop_requested(uuid.uuid4()) is False
