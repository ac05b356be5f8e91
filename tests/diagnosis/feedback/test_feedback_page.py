"""The chat page's feedback form: on finished answers only, showing the signed-in user's stored rating."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from diagnosis.models import FeedbackRating, RunFeedback, RunStatus
from tests.tracing.factories import make_run, make_session

pytestmark = pytest.mark.django_db


def pressed(page: str) -> list[str]:
    return re.findall(r'class="feedback-rate" value="(UP|DOWN)" aria-pressed="true"', page)


def test_a_finished_answer_shows_the_stored_rating_and_comment(client, owner):
    run = make_run(make_session(owner))
    RunFeedback.objects.create(run=run, user=owner, rating=FeedbackRating.DOWN, comment="it was the <b>cache</b>")
    client.force_login(owner)

    page = client.get(f"/?session={run.session_id}").content.decode()

    assert f'data-run="{run.pk}" data-rating="DOWN"' in page
    assert pressed(page) == ["DOWN"]
    assert "it was the &lt;b&gt;cache&lt;/b&gt;</textarea>" in page
    assert "js/feedback.js" in page


def test_an_unrated_answer_offers_both_buttons_and_hides_the_comment(client, owner):
    run = make_run(make_session(owner))
    client.force_login(owner)

    page = client.get(f"/?session={run.session_id}").content.decode()

    assert f'data-run="{run.pk}" data-rating=""' in page
    assert pressed(page) == []
    assert '<div class="feedback-more" hidden>' in page


def test_a_running_run_has_no_form_but_the_page_has_its_template(client, owner):
    run = make_run(make_session(owner), status=RunStatus.RUNNING)
    client.force_login(owner)

    page = client.get(f"/?session={run.session_id}").content.decode()

    assert page.count('<form class="feedback"') == 1  # the template's, for when the run finishes
    assert '<template id="feedback-template"><form class="feedback" data-run=""' in page


def test_a_failed_or_cancelled_run_has_no_answer_to_rate(client, owner):
    run = make_run(make_session(owner), status=RunStatus.FAILED)
    client.force_login(owner)

    page = client.get(f"/?session={run.session_id}").content.decode()

    assert page.count('<form class="feedback"') == 1  # the template's only
    assert f'<form class="feedback" data-run="{run.pk}"' not in page


def test_the_page_reads_feedback_in_one_query_for_any_number_of_runs(client, owner, django_assert_num_queries):
    session = make_session(owner)
    run = make_run(session, steps=0, invocations=0, events=0)
    RunFeedback.objects.create(run=run, user=owner, rating=FeedbackRating.UP)
    client.force_login(owner)
    client.get(f"/?session={session.pk}")  # warm the session and permission caches

    with CaptureQueriesContext(connection) as one:
        client.get(f"/?session={session.pk}")
    for _ in range(5):
        RunFeedback.objects.create(run=make_run(session, steps=0, invocations=0, events=0), user=owner, rating="DOWN")

    with django_assert_num_queries(len(one)):
        page = client.get(f"/?session={session.pk}").content.decode()
    assert len(pressed(page)) == 6
