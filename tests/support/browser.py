"""Debian's Chromium driven by Playwright (never a downloaded browser): the browser tests and
``scripts/screenshots.py`` sign in and ask questions through these same steps."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from tests.services import CHROMIUM_PATH

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# A DataTransfer of ``[[name, text], ...]``, to dispatch as a ``drop`` event (Playwright cannot drag files from
# the disk).
_DATA_TRANSFER = """([files]) => {
  const transfer = new DataTransfer();
  for (const [name, text] of files) transfer.items.add(new File([text], name, { type: "text/plain" }));
  return transfer;
}"""
USERNAME = "browser-user"
PASSWORD = "browser-pass-123"


@contextmanager
def chromium() -> Iterator[Browser]:
    """Headless ``/usr/bin/chromium``. Playwright's sync API runs an event loop in this thread, and Django
    refuses ORM calls while one runs: write to the database before entering."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


def signed_in_page(
    browser: Browser, base: str, *, accept_language: str | None = None, width: int = 1280, height: int = 900
) -> Page:
    """A page of a fresh browser context signed in as the test user; ``accept_language`` is sent with every
    request, as a browser set to that language does."""
    headers = {"Accept-Language": accept_language} if accept_language else {}
    page = browser.new_context(extra_http_headers=headers, viewport={"width": width, "height": height}).new_page()
    page.goto(f"{base}/")
    page.fill("input[name=username]", USERNAME)
    page.fill("input[name=password]", PASSWORD)
    page.click("form[action='/accounts/login/'] button[type=submit]")
    page.wait_for_selector("#chat-form")
    # The form exists before the page's deferred scripts have run: a test that acts through their listeners
    # (an event dispatched to the sidebar) must not act before them.
    page.wait_for_load_state("load")
    return page


def send(page: Page, question: str) -> None:
    page.fill("#message", question)
    page.click("#send")


def ask(browser: Browser, base: str, question: str) -> Page:
    """Sign in as the test user, send ``question`` and return the page."""
    page = signed_in_page(browser, base)
    send(page, question)
    return page


def drop_files(page: Page, files: list[tuple[str, str]]) -> None:
    """Drop text files (name, text) on the knowledge page's upload form, once its script serves it (the page
    renders the file chooser disabled until then)."""
    page.wait_for_selector("#upload-files:enabled")
    transfer = page.evaluate_handle(_DATA_TRANSFER, [[list(file) for file in files]])
    page.dispatch_event("#upload-form", "drop", {"dataTransfer": transfer})
