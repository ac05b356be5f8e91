"""PUT /api/runs/{run_id}/feedback: the owner rates a finished run's answer, once per run, changeably.

Everyone else gets what the API answers elsewhere: another user's run is the 404 of an unknown run,
auditors are refused as read-only (403), anonymous callers as not signed in.
"""

from __future__ import annotations

import uuid

import pytest

from diagnosis.feedback.services import MAX_COMMENT_CHARS
from diagnosis.models import RunFeedback, RunStatus
from tests.tracing.factories import make_run, make_session

pytestmark = pytest.mark.django_db


def url(run_id: object) -> str:
    return f"/api/runs/{run_id}/feedback"


def test_it_records_the_owners_first_rating(api_client, owner, owned_run):
    response = api_client(owner).put(url(owned_run.pk), {"rating": "DOWN", "comment": "wrong pool"}, format="json")

    assert response.status_code == 201
    body = response.json()
    assert (body["run_id"], body["rating"], body["comment"]) == (str(owned_run.pk), "DOWN", "wrong pool")
    row = RunFeedback.objects.get()
    assert (row.run_id, row.user_id, row.rating, row.comment) == (owned_run.pk, owner.pk, "DOWN", "wrong pool")


def test_it_changes_the_rating_in_place(api_client, owner, owned_run):
    client = api_client(owner)
    client.put(url(owned_run.pk), {"rating": "DOWN", "comment": "wrong pool"}, format="json")

    response = client.put(url(owned_run.pk), {"rating": "UP"}, format="json")

    assert response.status_code == 200
    assert response.json()["rating"] == "UP"
    row = RunFeedback.objects.get()  # still one row
    assert (row.rating, row.comment) == ("UP", "")


def test_a_token_client_may_rate_too(owner, owned_run):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")

    assert client.put(url(owned_run.pk), {"rating": "UP"}, format="json").status_code == 201


@pytest.mark.parametrize(
    "body, field",
    [
        ({"rating": "MEH"}, "rating"),
        ({"rating": "up"}, "rating"),
        ({"rating": ""}, "rating"),
        ({}, "rating"),
        ({"rating": ["UP"]}, "rating"),
        ({"rating": "DOWN", "comment": "x" * (MAX_COMMENT_CHARS + 1)}, "comment"),
        ({"rating": "DOWN", "comment": 5}, "comment"),
    ],
)
def test_it_refuses_bad_input_and_writes_nothing(api_client, owner, owned_run, body, field):
    response = api_client(owner).put(url(owned_run.pk), body, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_input"
    assert error["message"].startswith(f"{field}:")
    assert not RunFeedback.objects.exists()


def test_a_comment_of_the_longest_length_is_kept(api_client, owner, owned_run):
    comment = "长" * MAX_COMMENT_CHARS
    response = api_client(owner).put(url(owned_run.pk), {"rating": "DOWN", "comment": comment}, format="json")

    assert response.status_code == 201
    assert RunFeedback.objects.get().comment == comment


def test_another_users_run_is_the_404_of_an_unknown_one(api_client, other_user, owned_run):
    foreign = api_client(other_user).put(url(owned_run.pk), {"rating": "DOWN"}, format="json")
    unknown = api_client(other_user).put(url(uuid.uuid4()), {"rating": "DOWN"}, format="json")
    malformed = api_client(other_user).put(url("not-a-run"), {"rating": "DOWN"}, format="json")

    assert foreign.status_code == unknown.status_code == malformed.status_code == 404
    assert (
        foreign.json()
        == unknown.json()
        == malformed.json()
        == {"error": {"code": "not_found", "message": "no such run"}}
    )
    assert not RunFeedback.objects.exists()


def test_auditors_are_read_only(api_client, auditor, owned_run):
    response = api_client(auditor).put(url(owned_run.pk), {"rating": "DOWN"}, format="json")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "read_only"
    assert not RunFeedback.objects.exists()


def test_an_auditor_may_not_rate_even_a_run_of_their_own(api_client, auditor):
    run = make_run(make_session(auditor))

    assert api_client(auditor).put(url(run.pk), {"rating": "UP"}, format="json").status_code == 403


def test_anonymous_callers_must_sign_in(api_client, owned_run):
    response = api_client().put(url(owned_run.pk), {"rating": "UP"}, format="json")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "not_authenticated"


def test_a_running_run_has_no_answer_to_rate(api_client, owner):
    run = make_run(make_session(owner), status=RunStatus.RUNNING)

    response = api_client(owner).put(url(run.pk), {"rating": "UP"}, format="json")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "run_running"
    assert not RunFeedback.objects.exists()


def test_a_failed_run_may_be_rated(api_client, owner):
    run = make_run(make_session(owner), status=RunStatus.FAILED, trace=None)

    assert api_client(owner).put(url(run.pk), {"rating": "DOWN"}, format="json").status_code == 201


@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_only_put_is_offered(api_client, owner, owned_run, method):
    response = getattr(api_client(owner), method)(url(owned_run.pk))

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
