"""The chat page in a real headless Chromium (Debian's, driven by Playwright): log in, ask the demo
pack's first question, watch node-by-node progress, and read the cited answer with its evidence; or
cancel a run from its card while its (scripted, slow) planner is still working; or read why a message was
not taken."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.support.browser import ask, send, signed_in_page
from tests.support.sse_client import read_events

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_answers_the_demo_question_with_progress_and_evidence(demo_user, live_stack, browser):
    question = demo_user
    page = ask(browser, live_stack.base, question["text"])
    # Attached, not visible: an offline run can end (and its progress fold away) before the line is seen shown.
    page.wait_for_selector(".run .progress li", state="attached", timeout=30_000)
    page.wait_for_selector(".run:not(.live) .run-meta .badge", timeout=120_000)

    progress = page.text_content(".run .progress")
    answer = page.inner_text(".run .answer").lower()
    assert "planner" in progress and "executor" in progress and "composer" in progress
    assert page.inner_text(".run .run-meta .badge") == "SUCCESS"
    for keyword in question["expect_keywords"]:
        assert keyword.lower() in answer
    assert "evidence" in answer
    assert page.query_selector("button.cancel-run") is None  # offered only while the run is live

    page.reload()  # the finished run is now rendered by the server, in its session
    assert page.inner_text(".run .run-meta .badge") == "SUCCESS"
    assert question["expect_keywords"][0].lower() in page.inner_text(".run .answer").lower()


def test_send_is_offered_only_once_no_card_of_the_page_is_live(demo_user, slow_stack, browser):
    """A page reloaded while its run goes on follows that run again: Send waits for it, as it did before."""
    page = ask(browser, slow_stack.base, demo_user["text"])
    page.wait_for_selector(".run.live .progress li", timeout=30_000)

    page.reload()
    page.wait_for_load_state("load")

    assert page.locator(".run.live").count() == 1 and page.is_disabled("#send")
    page.wait_for_selector(".run:not(.live) .run-meta .badge", timeout=60_000)
    assert page.is_enabled("#send")


def test_it_cancels_a_running_diagnosis_from_its_card(demo_user, slow_stack, browser):
    page = ask(browser, slow_stack.base, demo_user["text"])
    page.wait_for_selector(".run.live .progress li:has-text('planner · started')", timeout=30_000)

    page.click(".run.live button.cancel-run")
    page.wait_for_selector(".run:not(.live) .run-meta .badge", timeout=60_000)

    assert page.inner_text(".run .run-meta .badge") == "FAILED"
    assert page.inner_text(".run .answer .failure") == "The run was cancelled."
    assert page.get_attribute(".run .answer .failure", "data-code") == "cancelled"
    assert "executor" not in page.text_content(".run .progress")  # it stopped after the planner
    assert page.query_selector("button.cancel-run") is None

    page.reload()  # the server renders the cancelled run like any failure, with nothing to cancel
    assert page.inner_text(".run .run-meta .badge") == "FAILED"
    assert page.inner_text(".run .answer .failure") == "The run was cancelled."  # as the live card said
    assert page.query_selector("button.cancel-run") is None


def test_a_question_sent_before_the_page_scripts_have_run_waits_for_them(demo_user, live_stack, browser):
    # Chromium shows the form before the deferred scripts run; a busy server or network widens that gap. A
    # click on a button without chat.js's handler submitted the form natively: a GET of the page with the
    # question in its URL, and no run. Send is rendered disabled, and chat.js enables it once every script of
    # the page has run: sidebar.js, held back here, must hear the new run announced.
    page = signed_in_page(browser, live_stack.base)
    held = []
    page.route("**/js/sidebar*.js", lambda route: held.append(route))  # held until the test lets it through
    page.reload(wait_until="commit")
    page.wait_for_selector("#chat-form")
    page.fill("#message", "hi")

    with pytest.raises(PlaywrightTimeout):
        page.click("#send", timeout=1_500)  # Playwright clicks only an enabled button
    assert held and page.is_disabled("#send")

    held[0].continue_()
    page.click("#send")
    page.wait_for_selector(".run:not(.live) .run-meta .badge", timeout=60_000)
    assert "message=" not in page.url and page.inner_text(".run .run-meta .badge") == "SUCCESS"
    page.wait_for_selector("#session-list li[data-session] .badge[data-outcome=SUCCESS]", timeout=10_000)


def test_it_shows_the_apis_refusal_and_tells_it_from_a_server_it_cannot_reach(demo_user, live_stack, browser):
    page = signed_in_page(browser, live_stack.base)
    page.eval_on_selector("#chat-form", "form => { form.dataset.session = '00000000-0000-4000-8000-000000000000'; }")

    send(page, "hi")  # in a session that does not exist: 404 with the API's JSON error
    page.wait_for_selector("#form-error:has-text('no such chat session')", timeout=20_000)
    assert page.is_enabled("#send") and page.query_selector(".run") is None

    page.route("**/api/chat", lambda route: route.abort())  # the request never gets an answer
    send(page, "hi")
    page.wait_for_selector("#form-error:has-text('The server could not be reached.')", timeout=20_000)
    assert page.is_enabled("#send") and page.query_selector(".run") is None


def test_the_page_does_not_reconnect_once_the_server_has_ended_the_stream(demo_user, live_stack, browser):
    # The server ends a run's stream after ``done`` (tests/integration/test_stream_end.py); EventSource
    # reconnects to a stream that ends unless the page has closed it, which it does on ``done``.
    page = signed_in_page(browser, live_stack.base)
    opened = []
    page.context.on("request", lambda request: "/events/" in request.url and opened.append(request.url))
    send(page, "hi")

    page.wait_for_selector(".run:not(.live) .run-meta .badge", timeout=60_000)
    page.wait_for_timeout(5_000)  # longer than EventSource's reconnection delay (about 3 s in Chromium)

    assert len(opened) == 1, opened
    assert page.inner_text(".run .run-meta .badge") == "SUCCESS"
    page.context.close()


def test_a_run_live_at_load_is_followed_once_every_page_script_listens(demo_user, slow_stack, browser):
    # A run still going when the page is rendered used to be followed as soon as chat.js ran: a `done` that
    # arrived while feedback.js was still loading was announced to nobody, and the card ended without its
    # feedback form until the next reload.
    page = ask(browser, slow_stack.base, demo_user["text"])
    page.wait_for_selector(".run.live .progress li", timeout=30_000)
    held = []
    page.route("**/js/feedback*.js", lambda route: held.append(route))
    page.reload(wait_until="commit")
    page.wait_for_selector(".run.live")

    other = page.context.new_page()  # the same session, to see the run end on the server meanwhile
    other.goto(page.url)
    other.wait_for_selector(".run:not(.live) .run-meta .badge", timeout=60_000)
    other.close()
    assert held and page.locator(".run.live").count() == 1  # not followed before every script has run

    held[0].continue_()
    page.wait_for_selector(".run:not(.live) form.feedback", timeout=30_000)
    assert page.is_enabled(".run form.feedback .feedback-rate")


# The page's visibility as a browser reports it for a background tab (headless Chromium never hides a page).
SET_HIDDEN = """hidden => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => hidden ? "hidden" : "visible" });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_a_hidden_page_holds_no_stream_and_catches_up_exactly_once_when_shown(demo_user, slow_stack, browser):
    """A browser keeps six connections to a server for all of its tabs: two tabs of three live runs each left
    none for Cancel or a page load. A hidden page closes its streams and resumes after its last event."""
    page = signed_in_page(browser, slow_stack.base)
    streams = []
    page.on("request", lambda request: streams.append(request.url) if "/events/" in request.url else None)
    send(page, demo_user["text"])
    page.wait_for_selector(".run.live .progress li:has-text('planner · started')", timeout=30_000)
    shown_before = page.locator(".run .progress li").count()

    page.evaluate(SET_HIDDEN, True)
    page.wait_for_timeout(500)
    closed = page.evaluate(
        "performance.getEntriesByType('resource').filter(e => e.name.includes('/events/') && e.responseEnd > 0).length"
    )
    # The run goes on while the page is hidden: its planner answers (4 s), and the rest follows at once.
    page.wait_for_timeout(6_000)
    assert page.locator(".run .progress li").count() == shown_before and page.locator(".run.live").count() == 1

    page.evaluate(SET_HIDDEN, False)
    page.wait_for_selector(".run:not(.live) .run-meta .badge", timeout=60_000)

    assert closed == 1  # the one stream ended when the page was hidden
    assert len(streams) == 2 and "lastEventId=run-" in streams[1] and not streams[1].endswith("%3A0")
    assert page.inner_text(".run .run-meta .badge") == "SUCCESS"
    assert demo_user["expect_keywords"][0].lower() in page.inner_text(".run .answer").lower()
    # Each of the run's status events applied once, none missed: one progress line each, as the stream has them.
    cookies = {cookie["name"]: cookie["value"] for cookie in page.context.cookies()}
    stored = read_events(streams[0], cookies=cookies)
    assert page.locator(".run .progress li").count() == sum(event.event == "status" for event in stored)
