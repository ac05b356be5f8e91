"""The HTML fragments the chat page asks for: the live sidebar's sessions and a finished run's figures.

Each is the owner's alone (another user gets nothing of it), and the sidebar costs the same queries for
one session as for thirty.
"""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from diagnosis.models import ChatSession, DiagnosisRun, RunStatus
from tests.diagnosis.figures.samples import FIGURES

pytestmark = pytest.mark.django_db

SESSIONS = "/sessions/"


def finished(
    session: ChatSession, *, status: str = RunStatus.SUCCESS, degraded: bool = False, **fields
) -> DiagnosisRun:
    return DiagnosisRun.objects.create(
        session=session, query="why?", status=status, degraded=degraded, finished_at=timezone.now(), **fields
    )


def items(html: str) -> dict[str, str]:
    """Each session's title and what it shows beside it: ``spinner``, an outcome code, or nothing."""
    found = {}
    for title, rest in re.findall(r'<a href="\?session=[^"]+">([^<]*)</a>(.*?)</li>', html, re.S):
        marker = re.search(r'class="spinner"|data-outcome="([A-Z]+)"', rest)
        found[title] = "" if marker is None else (marker.group(1) or "spinner")
    return found


def test_it_lists_the_owners_sessions_with_a_spinner_or_the_latest_outcome(client, owner, other_user):
    running = ChatSession.objects.create(owner=owner, title="running one")
    finished(running)
    DiagnosisRun.objects.create(session=running, query="follow-up")
    finished(ChatSession.objects.create(owner=owner, title="answered"))
    finished(ChatSession.objects.create(owner=owner, title="fell back"), degraded=True)
    finished(ChatSession.objects.create(owner=owner, title="broke"), status=RunStatus.FAILED)
    ChatSession.objects.create(owner=owner, title="empty")
    ChatSession.objects.create(owner=other_user, title="theirs")
    client.force_login(owner)

    html = client.get(SESSIONS).content.decode()

    assert items(html) == {
        "running one": "spinner",
        "answered": "SUCCESS",
        "fell back": "FALLBACK",
        "broke": "FAILED",
        "empty": "",
    }


def test_it_marks_the_current_session_and_ignores_a_foreign_or_malformed_one(client, owner, other_user):
    mine = ChatSession.objects.create(owner=owner, title="mine")
    theirs = ChatSession.objects.create(owner=other_user, title="theirs")
    client.force_login(owner)

    assert 'class="active"' in client.get(f"{SESSIONS}?session={mine.pk}").content.decode()
    assert 'class="active"' not in client.get(f"{SESSIONS}?session={theirs.pk}").content.decode()
    assert client.get(f"{SESSIONS}?session=not-a-uuid").status_code == 200


def test_it_says_when_there_are_no_sessions_in_the_readers_language(client, owner):
    client.force_login(owner)

    assert "No sessions yet." in client.get(SESSIONS).content.decode()
    assert "还没有会话。" in client.get(SESSIONS, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()


def test_it_lists_one_and_thirty_sessions_with_the_same_queries(client, owner, django_assert_num_queries):
    client.force_login(owner)
    finished(ChatSession.objects.create(owner=owner, title="first"))
    client.get(SESSIONS)  # warm the session and user caches of the test client
    with django_assert_num_queries(3) as one:
        client.get(SESSIONS)
    for index in range(29):
        finished(ChatSession.objects.create(owner=owner, title=f"s{index}"))
    with django_assert_num_queries(len(one.captured_queries)):
        html = client.get(SESSIONS).content.decode()
    assert len(items(html)) == 30


def test_anonymous_readers_are_sent_to_the_login(client):
    assert client.get(SESSIONS).status_code == 302


def test_it_renders_a_runs_figures_for_its_owner_only(client, owner, other_user):
    run = finished(ChatSession.objects.create(owner=owner, title="t"), figures=FIGURES)
    page = f"/runs/{run.pk}/figures"

    client.force_login(other_user)
    assert client.get(page).status_code == 404
    client.force_login(owner)
    html = client.get(page).content.decode()
    assert '<svg class="sparkline"' in html and "incident-timeline" in html
    assert "首个错误" in client.get(page, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()


def test_a_run_without_figures_renders_an_empty_fragment(client, owner):
    run = finished(ChatSession.objects.create(owner=owner, title="t"))
    client.force_login(owner)

    response = client.get(f"/runs/{run.pk}/figures")

    assert response.status_code == 200 and response.content == b""


def test_an_unknown_run_is_not_found_and_anonymous_readers_log_in(client, owner):
    assert client.get("/runs/5f0c1c9e-0000-4000-8000-000000000000/figures").status_code == 302
    client.force_login(owner)
    assert client.get("/runs/5f0c1c9e-0000-4000-8000-000000000000/figures").status_code == 404
    assert client.get("/runs/not-a-uuid/figures").status_code == 404


def test_the_chat_page_opens_a_finished_answer_with_its_figures(client, owner):
    session = ChatSession.objects.create(owner=owner, title="t")
    finished(session, figures=FIGURES, final_answer="The pool is **exhausted**.")
    finished(session, status=RunStatus.FAILED, figures=FIGURES, failure_reason="graph_error")
    client.force_login(owner)

    body = client.get(f"/?session={session.pk}").content.decode()

    assert body.count('<svg class="sparkline"') == 1  # a failed run shows no answer, hence no pictures
    assert body.index("incident-timeline") < body.index("<strong>exhausted</strong>")
    assert "css/figures.css" in body
