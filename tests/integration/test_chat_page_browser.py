"""The chat page in a real headless Chromium (Debian's, driven by Playwright): log in, ask the demo
pack's first question, watch node-by-node progress, and read the cited answer with its evidence; or
cancel a run from its card while its (scripted, slow) planner is still working."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

import pytest
from django.conf import global_settings, settings
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tests.integration.conftest import start_stack
from tests.services import CHROMIUM_PATH, require
from tests.support.held_runs import delayed_script

pytestmark = pytest.mark.django_db(transaction=True)

DEMO_PACK = Path(settings.BASE_DIR) / "tools" / "scenarios" / "packs" / "payment-db-pool"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture
def demo_user(settings):
    """The demo pack loaded and a user to log in as, set up before the browser starts.

    Playwright's sync API runs an event loop in this thread, and Django refuses ORM calls while one runs,
    so every database write happens here, first.
    """
    # The login is checked by the server process, which knows only the real password hashers.
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS
    call_command("load_scenario", str(DEMO_PACK), verbosity=0)
    get_user_model().objects.create_user("browser-user", password="browser-pass-123")
    return json.loads((DEMO_PACK / "scenario.json").read_text())["questions"][0]


@pytest.fixture
def slow_stack(static_root, tmp_path):
    """A live stack whose runs' planner answers after a pause (the scripted provider): time to press Cancel."""
    with ExitStack() as stack:
        script = delayed_script(tmp_path, planner=4)
        yield start_stack(stack, static_root, LLM_PROVIDER="scripted", LLM_SCRIPT_PATH=str(script))


@pytest.fixture
def browser(demo_user):
    """Chromium, started after the database writes (``demo_user``) and the stack the test asks for first."""
    require("chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


def ask(browser, base: str, question: str):
    """Sign in as the demo user, send ``question`` and return the page (``browser``: or a context of it)."""
    page = browser.new_page()
    page.goto(f"{base}/")
    page.fill("input[name=username]", "browser-user")
    page.fill("input[name=password]", "browser-pass-123")
    page.click("button[type=submit]")
    page.wait_for_selector("#chat-form")
    page.fill("#message", question)
    page.click("#send")
    return page


def test_it_answers_the_demo_question_with_progress_and_evidence(demo_user, live_stack, browser):
    question = demo_user
    page = ask(browser, live_stack.base, question["text"])
    page.wait_for_selector(".run .progress li", timeout=30_000)
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


def test_it_cancels_a_running_diagnosis_from_its_card(demo_user, slow_stack, browser):
    page = ask(browser, slow_stack.base, demo_user["text"])
    page.wait_for_selector(".run.live .progress li:has-text('planner · started')", timeout=30_000)

    page.click(".run.live button.cancel-run")
    page.wait_for_selector(".run:not(.live) .run-meta .badge", timeout=60_000)

    assert page.inner_text(".run .run-meta .badge") == "FAILED"
    assert "The run failed: The run was cancelled. (cancelled)" in page.inner_text(".run .answer")
    assert "executor" not in page.text_content(".run .progress")  # it stopped after the planner
    assert page.query_selector("button.cancel-run") is None

    page.reload()  # the server renders the cancelled run like any failure, with nothing to cancel
    assert page.inner_text(".run .run-meta .badge") == "FAILED"
    assert "The run failed (cancelled)." in page.inner_text(".run .answer")
    assert page.query_selector("button.cancel-run") is None


def test_the_page_does_not_reconnect_once_the_server_has_ended_the_stream(demo_user, live_stack, browser):
    # The server ends a run's stream after ``done`` (tests/integration/test_stream_end.py); EventSource
    # reconnects to a stream that ends unless the page has closed it, which it does on ``done``.
    context = browser.new_context()
    opened = []
    context.on("request", lambda request: "/events/" in request.url and opened.append(request.url))
    page = ask(context, live_stack.base, "hi")

    page.wait_for_selector(".run:not(.live) .run-meta .badge", timeout=60_000)
    page.wait_for_timeout(5_000)  # longer than EventSource's reconnection delay (about 3 s in Chromium)

    assert len(opened) == 1, opened
    assert page.inner_text(".run .run-meta .badge") == "SUCCESS"
    context.close()
