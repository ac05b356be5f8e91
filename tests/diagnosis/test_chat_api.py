"""POST /api/chat: validation, ownership, nothing written on error, dispatch only after commit."""

from __future__ import annotations

import uuid

import pytest
from django.db import OperationalError
from django.utils import timezone
from rest_framework.test import APIClient

from diagnosis import sse, submission
from diagnosis.models import ChatSession, DiagnosisRun, Intent
from tracing.models import DiagnosisTraceEvent

pytestmark = pytest.mark.django_db

URL = "/api/chat"


@pytest.fixture
def dispatched(monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(submission, "dispatch_run", lambda run_id: calls.append(str(run_id)))
    return calls


@pytest.fixture
def client_for():
    def make(user=None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return make


def test_it_accepts_a_message_and_dispatches_after_commit(
    client_for, owner, dispatched, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(owner).post(URL, {"message": "payment-service p99 tripled, why?"}, format="json")

    assert response.status_code == 202
    body = response.json()
    run = DiagnosisRun.objects.get(pk=body["run_id"])
    assert str(run.session_id) == body["session_id"]
    assert run.session.owner == owner
    assert run.intent == Intent.DIAGNOSIS
    assert body["events_url"] == f"/events/run-{run.id}/?lastEventId=run-{run.id}:0"
    assert dispatched == [str(run.id)]
    assert DiagnosisTraceEvent.objects.filter(run=run, name="intent_routed").exists()


@pytest.mark.django_db(transaction=True)
def test_a_metadata_event_that_cannot_be_stored_does_not_keep_the_run_from_its_worker(owner, dispatched, monkeypatch):
    def lost(*args, **kwargs):
        raise OperationalError("connection lost just after the commit")

    monkeypatch.setattr(sse, "publish", lost)

    run = submission.chat_submit(user=owner, message="why is payment slow?")

    assert dispatched == [str(run.id)]


def test_it_does_not_dispatch_before_commit(client_for, owner, dispatched, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        client_for(owner).post(URL, {"message": "why is checkout failing?"}, format="json")

    assert dispatched == []
    assert len(callbacks) == 2  # the metadata event and the dispatch


def test_it_continues_an_owned_session(client_for, owner, dispatched):
    first = client_for(owner).post(URL, {"message": "hi"}, format="json").json()

    second = client_for(owner).post(URL, {"message": "help", "session_id": first["session_id"]}, format="json")

    assert second.status_code == 202
    assert second.json()["session_id"] == first["session_id"]
    assert DiagnosisRun.objects.filter(session_id=first["session_id"]).count() == 2


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ({"message": ""}, "empty_message"),
        ({"message": "   \n\t "}, "empty_message"),
        # Nothing a reader sees: a zero-width space, a byte-order mark, a bidirectional override, controls.
        ({"message": "\u200b"}, "empty_message"),
        ({"message": " \ufeff\u202e\u3000"}, "empty_message"),
        ({"message": "\x01\x02\x7f"}, "empty_message"),
        ({"message": "\u3164\u115f\u1160\uffa0\u034f\ufe0f"}, "empty_message"),  # fillers, joiners, selectors
        ({"message": "\u2800\u2800"}, "empty_message"),  # the blank braille pattern
        ({"message": "x" * 8001}, "message_too_long"),
        ({}, "invalid_input"),
        ({"message": "why?", "session_id": "not-a-uuid"}, "invalid_input"),
        ({"message": ["why?"]}, "invalid_input"),
        # Strict types: DRF would read 5 as "5", and a number as the UUID with that integer value.
        ({"message": 5}, "invalid_input"),
        ({"message": 1.5}, "invalid_input"),
        ({"message": "why?", "session_id": 5}, "invalid_input"),
    ],
)
def test_it_rejects_bad_input_and_writes_nothing(client_for, owner, dispatched, payload, code):
    response = client_for(owner).post(URL, payload, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert not ChatSession.objects.exists()
    assert not DiagnosisRun.objects.exists()
    assert dispatched == []


def test_it_accepts_exactly_8000_characters(client_for, owner, dispatched):
    response = client_for(owner).post(URL, {"message": "x" * 8000}, format="json")

    assert response.status_code == 202


def test_it_answers_404_for_another_users_session(client_for, owner, other_user, dispatched):
    foreign = ChatSession.objects.create(owner=other_user, title="theirs")

    response = client_for(owner).post(URL, {"message": "why?", "session_id": str(foreign.id)}, format="json")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "session_not_found"
    assert not DiagnosisRun.objects.exists()


def test_it_answers_404_for_an_unknown_session(client_for, owner, dispatched):
    response = client_for(owner).post(URL, {"message": "why?", "session_id": str(uuid.uuid4())}, format="json")

    assert response.status_code == 404
    assert not ChatSession.objects.exists()


def test_it_refuses_anonymous_users(client_for, dispatched):
    response = client_for().post(URL, {"message": "why?"}, format="json")

    assert response.status_code in (401, 403)
    assert "error" in response.json()
    assert not DiagnosisRun.objects.exists()


def test_it_requires_csrf_for_session_authenticated_posts(owner, dispatched):
    client = APIClient(enforce_csrf_checks=True)
    client.login(username="owner", password="owner-pass-123")

    response = client.post(URL, {"message": "why?"}, format="json", HTTP_ACCEPT_LANGUAGE="zh-CN")

    assert response.status_code == 403
    assert response.json()["error"]["message"] == "页面的安全令牌缺失或已过期：请刷新页面后重新发送。"
    assert not DiagnosisRun.objects.exists()


def test_a_user_at_the_limit_of_running_runs_is_refused_429_and_nothing_is_written(
    client_for, owner, other_user, dispatched, settings
):
    settings.RUN_MAX_ACTIVE_PER_USER = 2
    client = client_for(owner)
    first, _ = (client.post(URL, {"message": f"why {n}?"}, format="json").json()["run_id"] for n in range(2))

    refused = client.post(URL, {"message": "why 3?"}, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")

    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "too_many_runs"
    assert refused["Retry-After"] == str(submission.RETRY_BUSY_SECONDS)  # a client knows when to try again
    assert "2" in refused.json()["error"]["message"] and "诊断" in refused.json()["error"]["message"]
    assert DiagnosisRun.objects.count() == 2 and ChatSession.objects.count() == 2
    # Another user's runs are their own; and a run that ended makes room.
    assert client_for(other_user).post(URL, {"message": "why?"}, format="json").status_code == 202
    DiagnosisRun.objects.filter(pk=first).update(status="SUCCESS", finished_at=timezone.now())
    assert client.post(URL, {"message": "why 3?"}, format="json").status_code == 202


@pytest.mark.parametrize(
    ("message", "title"),
    [
        ("why is checkout slow?", "why is checkout slow?"),
        ("why\n\tis   checkout slow?", "why is checkout slow?"),
        ("x" * 100, "x" * 79 + "…"),
        ("word " * 30, ("word " * 16).rstrip() + "…"),
        ("\u200b" * 100 + "why is checkout slow?", "why is checkout slow?"),
        ("👨\u200d👩\u200d👧 login broken", "👨\u200d👩\u200d👧 login broken"),  # a joiner inside shapes the emoji
    ],
)
def test_a_new_sessions_title_is_its_question_on_one_line_cut_with_an_ellipsis(
    client_for, owner, dispatched, message, title
):
    response = client_for(owner).post(URL, {"message": message}, format="json")

    assert ChatSession.objects.get(pk=response.json()["session_id"]).title == title
