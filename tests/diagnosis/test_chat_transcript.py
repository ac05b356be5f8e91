"""A long session's chat page: the latest runs, in pages, each linking to the runs before it.

Every run shown is rendered (its answer's markdown, its figures), so the page shows a bounded number of them
and costs the same queries for 25 runs as for 60.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from diagnosis.models import ChatSession, DiagnosisRun, RunStatus
from diagnosis.views import TRANSCRIPT_RUNS

pytestmark = pytest.mark.django_db


def session_of(owner, runs: int, *, title: str = "long") -> ChatSession:
    """A session of ``runs`` answered questions, ``q0`` the oldest, a minute apart."""
    session = ChatSession.objects.create(owner=owner, title=title)
    start = timezone.now() - timedelta(days=1)
    for index in range(runs):
        run = DiagnosisRun.objects.create(
            session=session,
            query=f"q{index}",
            status=RunStatus.SUCCESS,
            finished_at=timezone.now(),
            final_answer=f"answer {index}",
        )
        started = start + timedelta(minutes=index)
        DiagnosisRun.objects.filter(pk=run.pk).update(started_at=started, finished_at=started + timedelta(seconds=5))
    return session


def questions(body: str) -> list[str]:
    return re.findall(r'<div class="question">([^<]*)</div>', body)


def link(body: str, css_class: str) -> str | None:
    found = re.search(rf'<a class="{css_class}" href="([^"]+)"', body)
    return found.group(1).replace("&amp;", "&") if found else None


def test_a_long_session_shows_its_latest_runs_then_pages_back_to_the_first(client, owner):
    session = session_of(owner, TRANSCRIPT_RUNS + 5)
    client.force_login(owner)

    latest = client.get(f"/?session={session.pk}").content.decode()

    assert questions(latest) == [f"q{index}" for index in range(5, TRANSCRIPT_RUNS + 5)]
    assert link(latest, "latest") is None
    earlier_url = link(latest, "earlier")
    assert earlier_url is not None

    earlier = client.get(f"/{earlier_url}").content.decode()

    assert questions(earlier) == ["q0", "q1", "q2", "q3", "q4"]
    assert link(earlier, "earlier") is None
    assert link(earlier, "latest") == f"?session={session.pk}"


def test_a_session_that_fits_one_page_has_no_links(client, owner):
    session = session_of(owner, TRANSCRIPT_RUNS)
    client.force_login(owner)

    body = client.get(f"/?session={session.pk}").content.decode()

    assert len(questions(body)) == TRANSCRIPT_RUNS
    assert link(body, "earlier") is None and link(body, "latest") is None


def test_runs_started_at_the_same_moment_are_each_shown_once_across_pages(client, owner):
    session = session_of(owner, TRANSCRIPT_RUNS + 3)
    DiagnosisRun.objects.filter(session=session).update(started_at=timezone.now() - timedelta(hours=1))
    client.force_login(owner)

    first = client.get(f"/?session={session.pk}").content.decode()
    second = client.get(f"/{link(first, 'earlier')}").content.decode()

    shown = questions(second) + questions(first)
    assert sorted(shown) == sorted(f"q{index}" for index in range(TRANSCRIPT_RUNS + 3))


def test_the_page_costs_the_same_queries_however_long_the_session(client, owner):
    short, long = session_of(owner, TRANSCRIPT_RUNS + 5, title="short"), session_of(owner, 60, title="long")
    client.force_login(owner)
    client.get("/")  # the session's first request loads the user and the permissions

    counts = []
    for session in (short, long):
        with CaptureQueriesContext(connection) as captured:
            body = client.get(f"/?session={session.pk}").content.decode()
        assert len(questions(body)) == TRANSCRIPT_RUNS
        counts.append(len(captured))

    assert counts[0] == counts[1]


@pytest.mark.parametrize("before", ["not-a-uuid", "3f0c1a36-5b8e-4d7a-9d47-0d1b1c0f8e11", "other-session"])
def test_a_before_that_is_not_a_run_of_the_session_shows_the_latest(client, owner, before):
    session = session_of(owner, TRANSCRIPT_RUNS + 2)
    if before == "other-session":
        before = str(session_of(owner, 1, title="another").runs.get().pk)
    client.force_login(owner)

    body = client.get(f"/?session={session.pk}&before={before}").content.decode()

    assert questions(body) == [f"q{index}" for index in range(2, TRANSCRIPT_RUNS + 2)]
    assert link(body, "latest") is None


def test_another_users_run_does_not_page_their_session(client, owner, other_user):
    theirs = session_of(other_user, 3, title="theirs")
    client.force_login(owner)

    body = client.get(f"/?session={theirs.pk}&before={theirs.runs.order_by('-started_at').first().pk}").content.decode()

    assert questions(body) == []
