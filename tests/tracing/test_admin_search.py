"""The admin's search on the audit lists: a pasted stack trace is searched by its first words, not a 500."""

from __future__ import annotations

import pytest

from config.readonly_admin import MAX_SEARCH_WORDS
from tests.tracing.factories import make_run, make_session
from tests.tracing.test_admin import RUNS, client_for, run_page


@pytest.mark.parametrize(
    "page",
    [
        RUNS,
        "/admin/diagnosis/chatsession/",
        "/admin/tracing/agentstep/",
        "/admin/tracing/diagnosistraceevent/",
        "/admin/tools/toolinvocation/",
        "/admin/diagnosis/runfeedback/",
        "/admin/alerts/alertnotification/",
    ],
)
def test_a_pasted_stack_trace_searches_its_first_words_and_says_so(auditor, owned_run, page):
    """Each word is a condition of its own: about a thousand took SQLite past its expression depth (a 500)."""
    words = [str(owned_run.pk)] + [f"frame{n}" for n in range(1200)]

    response = client_for(auditor).get(page, {"q": " ".join(words)})

    assert response.status_code == 200
    assert f"Only the first {MAX_SEARCH_WORDS} words of the search were used." in response.content.decode()


def test_a_short_search_is_used_whole_and_says_nothing(auditor, owner, owned_run):
    other = make_run(make_session(owner))

    page = client_for(auditor).get(RUNS, {"q": f"{owned_run.pk}"}).content.decode()

    assert run_page(owned_run) in page and run_page(other) not in page and "words of the search" not in page
