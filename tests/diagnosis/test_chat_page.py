"""The chat page and the login page render; history shows only the owner's sessions, answers sanitised."""

from __future__ import annotations

import pytest
from django.utils import timezone

from diagnosis.models import ChatSession, DiagnosisRun, RunStatus

pytestmark = pytest.mark.django_db


def test_it_renders_the_login_page(client):
    response = client.get("/accounts/login/")

    assert response.status_code == 200
    assert b'name="username"' in response.content


def test_it_sends_anonymous_users_to_the_login_page(client):
    response = client.get("/")

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_it_renders_the_chat_with_the_users_sessions_only(client, owner, other_user):
    ChatSession.objects.create(owner=owner, title="mine: payment latency")
    ChatSession.objects.create(owner=other_user, title="theirs: broker disk")
    client.force_login(owner)

    response = client.get("/")

    assert response.status_code == 200
    assert b"mine: payment latency" in response.content
    assert b"theirs: broker disk" not in response.content
    assert b"js/chat.js" in response.content


def test_it_shows_a_sessions_runs_with_sanitised_answers(client, owner):
    session = ChatSession.objects.create(owner=owner, title="t")
    DiagnosisRun.objects.create(
        session=session,
        query="why?",
        status=RunStatus.SUCCESS,
        finished_at=timezone.now(),
        final_answer="The pool is **exhausted** <script>alert(1)</script> [x](javascript:alert(2))",
    )
    client.force_login(owner)

    response = client.get(f"/?session={session.pk}")

    body = response.content.decode()
    assert "<strong>exhausted</strong>" in body
    assert "<script>alert(1)</script>" not in body
    assert 'href="javascript:' not in body
    assert "SUCCESS" in body


def test_it_does_not_show_another_users_session(client, owner, other_user):
    foreign = ChatSession.objects.create(owner=other_user, title="theirs")
    DiagnosisRun.objects.create(session=foreign, query="their secret question")
    client.force_login(owner)

    response = client.get(f"/?session={foreign.pk}")

    assert response.status_code == 200
    assert b"their secret question" not in response.content


def test_it_ignores_a_malformed_session_id(client, owner):
    client.force_login(owner)

    assert client.get("/?session=not-a-uuid").status_code == 200


def test_it_lets_the_page_follow_a_run_that_is_still_going(client, owner):
    session = ChatSession.objects.create(owner=owner, title="t")
    running = DiagnosisRun.objects.create(session=session, query="why?")
    client.force_login(owner)

    body = client.get(f"/?session={session.pk}").content.decode()

    assert f'data-events-url="/events/run-{running.pk}/?lastEventId=run-{running.pk}:0"' in body
    assert '<ol class="progress"></ol>' in body


def test_a_finished_run_lists_its_verified_excerpts_after_a_reload_as_the_live_page_did(client, owner):
    """The live page lists the ``content`` event's evidence under the answer; a reload must show the same."""
    from diagnosis.services import RunResult, run_claim, run_finish
    from diagnosis.submission import run_create

    evidence = [
        {"claim_id": "c1", "fact": "f", "tool_name": "query_logs", "raw_path": "$.records[0].message", "excerpt": "a"},
        {"claim_id": "c1", "fact": "f", "tool_name": "query_metrics", "raw_path": "$.series[0]", "excerpt": "<b>x</b>"},
    ]
    run = run_claim(run_create(user=owner, message="why is payment slow?").pk, worker="test")
    run_finish(run, RunResult(final_answer="The pool is exhausted [c1].", effective_verdict="PASS", evidence=evidence))
    unanswered = run_create(user=owner, message="and now?", session_id=str(run.session_id))
    client.force_login(owner)

    body = client.get(f"/?session={run.session_id}").content.decode()
    chinese = client.get(f"/?session={run.session_id}", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()

    assert body.count('<details class="evidence">') == 1
    assert "Evidence (2 verified excerpts)" in body
    assert "<code>query_logs · $.records[0].message</code><blockquote>a</blockquote>" in body
    assert "<blockquote>&lt;b&gt;x&lt;/b&gt;</blockquote>" in body  # an excerpt is text, never markup
    assert "证据（2 条已验证摘录）" in chinese
    assert unanswered.status == RunStatus.RUNNING
