"""POST /api/runs/{run_id}/cancel: who may cancel, what each answer looks like, and what it changes.

The run's owner or a holder of ``diagnosis.cancel_diagnosisrun`` may cancel; everyone else, auditors
included (they read, they do not write), gets the 404 of an unknown run. The worker side (stopping at
a node boundary) is in ``test_run_cancel.py``.
"""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth.models import Permission
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from diagnosis.failures import FailureCode
from diagnosis.models import DiagnosisRun, RunStatus
from diagnosis.services import run_claim, run_fail
from diagnosis.submission import run_create
from tests.conftest import make_staff
from tracing.models import DiagnosisTraceEvent

pytestmark = pytest.mark.django_db

QUESTION = "payment-service p99 latency tripled since 10:05, why?"


def url(run_id: object) -> str:
    return f"/api/runs/{run_id}/cancel"


@pytest.fixture
def operator(db):
    """Staff allowed to cancel anyone's run, and nothing else."""
    user = make_staff("operator")
    user.user_permissions.add(Permission.objects.get(codename="cancel_diagnosisrun"))
    return user


@pytest.fixture
def plain_staff(db):
    """Staff without any permission: may open the admin's index, may not cancel."""
    return make_staff("staff")


@pytest.fixture
def queued(owner) -> DiagnosisRun:
    """A run that no worker has claimed yet (``run_create`` does not dispatch)."""
    return run_create(user=owner, message=QUESTION)


@pytest.fixture
def claimed(queued) -> DiagnosisRun:
    return run_claim(queued.pk, worker="test-worker")


def signed_in(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


def cancel_requests(run: DiagnosisRun) -> list[dict]:
    return list(DiagnosisTraceEvent.objects.filter(run=run, name="cancel_requested").values_list("details", flat=True))


def test_it_ends_a_queued_run_at_once(owner, queued):
    response = signed_in(owner).post(url(queued.pk))

    assert response.status_code == 202
    assert response.json() == {"run_id": str(queued.pk), "status": "FAILED"}
    queued.refresh_from_db()
    assert (queued.status, queued.failure_reason) == (RunStatus.FAILED, "cancelled")
    assert queued.cancel_requested_at is not None and queued.claimed_at is None
    assert cancel_requests(queued) == [{"by": "owner"}]


def test_it_marks_a_claimed_run_and_leaves_the_end_to_its_worker(owner, claimed):
    response = signed_in(owner).post(url(claimed.pk))

    assert response.status_code == 202
    assert response.json() == {"run_id": str(claimed.pk), "status": "RUNNING"}
    claimed.refresh_from_db()
    assert claimed.status == RunStatus.RUNNING and claimed.cancel_requested_at is not None


def test_it_accepts_a_repeated_cancel_and_keeps_the_first_request_time(owner, claimed):
    client = signed_in(owner)
    client.post(url(claimed.pk))
    first = DiagnosisRun.objects.get(pk=claimed.pk).cancel_requested_at

    response = client.post(url(claimed.pk))

    assert response.status_code == 202
    assert DiagnosisRun.objects.get(pk=claimed.pk).cancel_requested_at == first


def test_it_refuses_to_cancel_a_finished_run_with_a_409(owner, claimed):
    run_fail(claimed, reason=FailureCode.INTERNAL_ERROR)

    response = signed_in(owner).post(url(claimed.pk))

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "run_finished"
    claimed.refresh_from_db()
    assert (claimed.failure_reason, claimed.cancel_requested_at) == ("internal_error", None)
    assert cancel_requests(claimed) == []


def test_it_refuses_to_cancel_a_cancelled_run_again(owner, queued):
    signed_in(owner).post(url(queued.pk))

    response = signed_in(owner).post(url(queued.pk))

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "run_finished"


def test_its_refusals_speak_the_readers_language(owner, claimed):
    zh = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}
    unknown = signed_in(owner).post(url(uuid.uuid4()), **zh)
    run_fail(claimed, reason=FailureCode.INTERNAL_ERROR)
    ended = signed_in(owner).post(url(claimed.pk), **zh)

    assert (unknown.status_code, unknown.json()["error"]["message"]) == (404, "没有这次运行")
    assert (ended.json()["error"]["code"], ended.json()["error"]["message"]) == ("run_finished", "这次运行已经结束")


@pytest.mark.parametrize("who", ["operator", "superuser"])
def test_it_lets_staff_with_the_permission_cancel_anyones_run(who, request, claimed):
    response = signed_in(request.getfixturevalue(who)).post(url(claimed.pk))

    assert response.status_code == 202
    assert cancel_requests(claimed) == [{"by": "staff"}]


def test_an_auditor_is_refused_as_read_only_and_changes_nothing(auditor, claimed):
    response = signed_in(auditor).post(url(claimed.pk))

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "read_only"
    chinese = signed_in(auditor).post(url(claimed.pk), HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    assert chinese.json()["error"]["message"] == "审计员只有只读权限"
    claimed.refresh_from_db()
    assert (claimed.status, claimed.cancel_requested_at) == (RunStatus.RUNNING, None)


@pytest.mark.parametrize("who", ["other_user", "plain_staff"])
def test_it_answers_404_to_anyone_else_and_changes_nothing(who, request, claimed):
    response = signed_in(request.getfixturevalue(who)).post(url(claimed.pk))

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    claimed.refresh_from_db()
    assert (claimed.status, claimed.cancel_requested_at) == (RunStatus.RUNNING, None)
    assert cancel_requests(claimed) == []


@pytest.mark.parametrize("run_id", [uuid.UUID(int=7), "not-a-uuid"])
def test_it_answers_404_for_an_unknown_or_malformed_id(owner, run_id):
    response = signed_in(owner).post(url(run_id))

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_it_accepts_the_owners_token_and_refuses_other_tokens(owner, other_user, claimed):
    def with_token(user) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
        return client

    assert with_token(other_user).post(url(claimed.pk)).status_code == 404
    assert with_token(owner).post(url(claimed.pk)).status_code == 202
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = bad.post(url(claimed.pk))
    assert (response.status_code, response.json()["error"]["code"]) == (403, "authentication_failed")


def test_it_refuses_anonymous_callers(claimed):
    response = signed_in().post(url(claimed.pk))

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "not_authenticated"
    claimed.refresh_from_db()
    assert claimed.cancel_requested_at is None


def test_it_needs_the_csrf_token_with_a_session_as_the_page_sends_it(owner, claimed):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(owner)

    refused = client.post(url(claimed.pk))
    page = client.get("/")
    accepted = client.post(url(claimed.pk), HTTP_X_CSRFTOKEN=page.cookies["csrftoken"].value)

    assert refused.status_code == 403
    assert accepted.status_code == 202


def test_it_only_accepts_post(owner, claimed):
    response = signed_in(owner).get(url(claimed.pk))

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
