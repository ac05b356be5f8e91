"""Feedback in a real headless Chromium: rate a streamed answer 👎 with a comment, reload and find it kept,
change it to 👍, reload and find it changed; the Trace API reports what the page shows."""

from __future__ import annotations

import pytest

from tests.support.browser import ask

pytestmark = pytest.mark.django_db(transaction=True)

COMMENT = "The pool was fine; it was the 10:02 deploy. 部署的问题。"


def saved(page, run: str) -> None:
    page.wait_for_selector(f"form.feedback[data-run='{run}'] .feedback-status:has-text('saved')", timeout=10_000)


def rating_shown(page, run: str) -> str:
    form = f"form.feedback[data-run='{run}']"
    page.wait_for_selector(form)
    return page.get_attribute(f"{form} .feedback-rate[aria-pressed=true]", "value") or ""


def test_it_rates_an_answer_and_changes_the_rating(demo_user, live_stack, browser):
    page = ask(browser, live_stack.base, demo_user["text"])
    page.wait_for_selector(".run:not(.live) .run-meta .badge", timeout=120_000)
    run = page.get_attribute(".run", "data-run")
    session = page.get_attribute(".run", "data-session") or page.url.split("session=")[1]
    form = f"form.feedback[data-run='{run}']"
    assert page.is_hidden(f"{form} textarea")  # the comment box opens once a rating is given

    page.click(f"{form} .feedback-rate[value=DOWN]")
    saved(page, run)
    page.fill(f"{form} textarea", COMMENT)
    page.click(f"{form} .feedback-save")
    saved(page, run)

    page.reload()
    assert rating_shown(page, run) == "DOWN"
    assert page.input_value(f"{form} textarea") == COMMENT

    page.click(f"{form} .feedback-rate[value=UP]")
    saved(page, run)
    page.reload()
    assert rating_shown(page, run) == "UP"
    assert page.input_value(f"{form} textarea") == COMMENT

    trace = page.request.get(f"{live_stack.base}/api/diagnosis/{session}/trace?runId={run}").json()
    assert [(entry["user"], entry["rating"], entry["comment"]) for entry in trace["feedback"]] == [
        ("browser-user", "UP", COMMENT)
    ]
