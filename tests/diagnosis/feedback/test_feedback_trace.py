"""Feedback in the Trace API (owner and auditors read it) and in the OpenAPI schema."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from drf_spectacular.generators import SchemaGenerator

from diagnosis.models import FeedbackRating, RunFeedback
from tests.tracing.factories import make_run, make_session

pytestmark = pytest.mark.django_db


def trace_url(run) -> str:
    return f"/api/diagnosis/{run.session_id}/trace?runId={run.pk}"


def test_the_trace_carries_the_runs_feedback(api_client, owner, auditor, owned_run):
    RunFeedback.objects.create(run=owned_run, user=owner, rating=FeedbackRating.DOWN, comment="the pool was fine")

    for reader in (owner, auditor):
        feedback = api_client(reader).get(trace_url(owned_run)).json()["feedback"]

        assert len(feedback) == 1
        entry = feedback[0]
        assert (entry["user"], entry["rating"], entry["comment"]) == ("owner", "DOWN", "the pool was fine")
        assert set(entry) == {"user", "rating", "comment", "createdAt", "updatedAt"}


def test_an_unrated_run_has_an_empty_list(api_client, owner, owned_run):
    assert api_client(owner).get(trace_url(owned_run)).json()["feedback"] == []


def test_another_user_still_cannot_read_the_trace(api_client, owner, other_user, owned_run):
    RunFeedback.objects.create(run=owned_run, user=owner, rating=FeedbackRating.UP)

    assert api_client(other_user).get(trace_url(owned_run)).status_code == 404


def test_the_feedback_costs_one_query_however_many_rows(api_client, owner, auditor, django_assert_num_queries):
    session = make_session(owner)
    unrated, rated = make_run(session), make_run(session)
    for user in (owner, auditor):
        RunFeedback.objects.create(run=rated, user=user, rating=FeedbackRating.UP)
    client = api_client(auditor)
    with CaptureQueriesContext(connection) as baseline:
        client.get(trace_url(unrated))

    with django_assert_num_queries(len(baseline)):
        assert len(client.get(trace_url(rated)).json()["feedback"]) == 2


def test_the_schema_documents_feedback_and_its_input():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]

    operation = schema["paths"]["/api/runs/{run_id}/feedback"]["put"]
    assert set(operation["responses"]) == {"200", "201", "400", "403", "404", "409"}
    assert components["RunFeedbackInput"]["required"] == ["rating"]
    assert components["RunFeedbackInput"]["properties"]["comment"]["maxLength"] == 2000
    assert components["RunTrace"]["properties"]["feedback"]["type"] == "array"
    assert set(components["TraceFeedback"]["properties"]) == {"user", "rating", "comment", "createdAt", "updatedAt"}
