"""Every session of a user is reachable: the sidebar shows the latest thirty and, when there are more, links
to the sessions page, which lists them all in pages, latest first, the user's own only."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from diagnosis.models import ChatSession
from diagnosis.views import SESSIONS_PER_PAGE, SIDEBAR_SESSIONS
from tests.diagnosis.test_chat_fragments import SESSIONS, finished

pytestmark = pytest.mark.django_db

PAGE = "/history/"


def sessions_of(owner, count: int) -> list[ChatSession]:
    """``count`` sessions, the first the oldest, each updated a minute after the one before."""
    start = timezone.now() - timedelta(days=1)
    made = [ChatSession.objects.create(owner=owner, title=f"question {n}") for n in range(count)]
    for n, session in enumerate(made):
        ChatSession.objects.filter(pk=session.pk).update(updated_at=start + timedelta(minutes=n))
    return made


def linked(html: str) -> list[str]:
    return re.findall(r'href="/?\?session=([0-9a-f-]+)"', html)


def test_the_sidebar_links_to_the_older_sessions_only_when_there_are_some(client, owner):
    sessions_of(owner, SIDEBAR_SESSIONS)
    client.force_login(owner)
    assert "All your sessions" not in client.get(SESSIONS).content.decode()

    sessions_of(owner, 1)

    for url in (SESSIONS, "/"):
        html = client.get(url).content.decode()
        assert f'href="{PAGE}"' in html and "All your sessions" in html
        assert len(linked(html)) == SIDEBAR_SESSIONS


def test_the_sessions_page_reaches_every_session_latest_first_in_pages(client, owner, other_user):
    made = sessions_of(owner, SESSIONS_PER_PAGE + 5)
    finished(made[-1])
    ChatSession.objects.create(owner=other_user, title="theirs")
    client.force_login(owner)

    first = client.get(PAGE).content.decode()
    second = client.get(PAGE, {"page": 2}).content.decode()

    newest_first = [str(session.pk) for session in reversed(made)]
    assert linked(first) + linked(second) == newest_first
    assert "theirs" not in first + second
    assert 'data-outcome="SUCCESS"' in first and "Page 1 of 2" in first and '?page=2">Older<' in first
    assert '?page=1">Newer<' in second


@pytest.mark.parametrize("page", ["0", "999", "x", "-1"])
def test_a_page_number_out_of_range_or_not_a_number_shows_a_page_rather_than_an_error(client, owner, page):
    sessions_of(owner, 3)
    client.force_login(owner)

    response = client.get(PAGE, {"page": page})

    assert response.status_code == 200 and len(linked(response.content.decode())) == 3


def test_it_speaks_the_readers_language_and_sends_anonymous_readers_to_the_login(client, owner):
    assert client.get(PAGE).status_code == 302
    client.force_login(owner)

    html = client.get(PAGE, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()

    assert "你的会话" in html and "还没有会话。" in html


def test_the_page_costs_the_same_queries_for_one_session_and_a_full_page(client, owner, django_assert_num_queries):
    client.force_login(owner)
    finished(sessions_of(owner, 1)[0])
    client.get(PAGE)
    with django_assert_num_queries(4) as one:  # session, user, count, page
        client.get(PAGE)
    for session in sessions_of(owner, SESSIONS_PER_PAGE - 1):
        finished(session)
    with django_assert_num_queries(len(one.captured_queries)):
        client.get(PAGE)
