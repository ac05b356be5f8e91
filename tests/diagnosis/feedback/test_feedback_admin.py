"""Feedback in the auditors' admin: a read-only list filterable by rating, an inline on the run page, and
a feedback filter on the run list."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from diagnosis.models import FeedbackRating, RunFeedback
from tests.tracing.factories import make_run, make_session

pytestmark = pytest.mark.django_db

FEEDBACK = "/admin/diagnosis/runfeedback/"
RUNS = "/admin/diagnosis/diagnosisrun/"


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def rated(owner):
    """Three runs of the owner: one marked wrong, one helpful, one unrated."""
    session = make_session(owner)
    wrong = make_run(session, query="why is checkout slow?")
    right = make_run(session, query="why is search slow?")
    unrated = make_run(session, query="why is login slow?")
    RunFeedback.objects.create(run=wrong, user=owner, rating=FeedbackRating.DOWN, comment="it was the cache")
    RunFeedback.objects.create(run=right, user=owner, rating=FeedbackRating.UP)
    return {"wrong": wrong, "right": right, "unrated": unrated}


def test_auditors_list_feedback_and_filter_it_by_rating(auditor, rated):
    client = client_for(auditor)

    everything = client.get(FEEDBACK).content.decode()
    wrong_only = client.get(FEEDBACK, {"rating__exact": "DOWN"}).content.decode()

    assert "why is checkout slow?" in everything and "why is search slow?" in everything
    assert "why is checkout slow?" in wrong_only and "it was the cache" in wrong_only
    assert "why is search slow?" not in wrong_only


def test_the_run_list_filters_by_feedback(auditor, rated):
    client = client_for(auditor)

    def listed(value: str) -> set[str]:
        page = client.get(RUNS, {"feedback": value}).content.decode()
        return {name for name in ("checkout", "search", "login") if f"why is {name} slow?" in page}

    assert listed("DOWN") == {"checkout"}
    assert listed("UP") == {"search"}
    assert listed("NONE") == {"login"}


def test_the_run_page_shows_its_feedback(auditor, rated):
    page = client_for(auditor).get(f"{RUNS}{rated['wrong'].pk}/change/").content.decode()

    assert "it was the cache" in page and "Wrong" in page


def test_nobody_changes_feedback_in_the_admin(auditor, superuser, rated):
    row = RunFeedback.objects.get(run=rated["wrong"])
    for user in (auditor, superuser):
        client = client_for(user)
        assert client.get(f"{FEEDBACK}{row.pk}/change/").status_code == 200  # readable
        assert client.post(f"{FEEDBACK}{row.pk}/change/", {"rating": "UP"}).status_code == 403
        assert client.get(f"{FEEDBACK}add/").status_code == 403
        assert client.post(f"{FEEDBACK}{row.pk}/delete/", {"post": "yes"}).status_code == 403
    row.refresh_from_db()
    assert row.rating == FeedbackRating.DOWN


def test_people_outside_the_audit_see_no_feedback(owner, rated):
    owner.is_staff = True
    owner.save()

    assert client_for(owner).get(FEEDBACK).status_code == 403


def test_the_feedback_list_costs_the_same_queries_for_2_and_20_rows(auditor, owner, django_assert_num_queries):
    session = make_session(owner)
    for _ in range(2):
        RunFeedback.objects.create(run=make_run(session, steps=0, invocations=0, events=0), user=owner, rating="UP")
    client = client_for(auditor)
    with CaptureQueriesContext(connection) as few:
        client.get(FEEDBACK)
    for _ in range(18):
        RunFeedback.objects.create(run=make_run(session, steps=0, invocations=0, events=0), user=owner, rating="UP")

    with django_assert_num_queries(len(few)):
        assert client.get(FEEDBACK).status_code == 200
