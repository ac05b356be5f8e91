"""The knowledge page in a real headless Chromium: drop two new documents on it, see them listed with their
labels, status and uploader, then ask the chat how to do what the new runbook says and find it cited."""

from __future__ import annotations

import pytest

from tests.support.browser import drop_files, signed_in_page

pytestmark = pytest.mark.django_db(transaction=True)

RUNBOOK_TITLE = "Runbook: zephyr-gateway TLS certificate rotation"
RUNBOOK = f"""# {RUNBOOK_TITLE}

## Procedure

Rotate the zephyr-gateway TLS certificate with `zephyrctl cert rotate --drain 30s`, then confirm the new
serial with `zephyrctl cert show`. Never restart all gateway pods at once.
"""
NOTE = "Zephyr gateway on-call contacts: the edge team, channel #edge-oncall."


def test_dropped_documents_are_listed_and_the_new_runbook_is_cited(demo_user, live_stack, browser):
    page = signed_in_page(browser, live_stack.base)
    page.goto(f"{live_stack.base}/knowledge/")
    page.fill("#upload-form input[name=category]", "runbook")
    page.fill("#upload-form input[name=fault_source]", "zephyr-gateway")

    drop_files(page, [("zephyr-cert.md", RUNBOOK), ("zephyr-contacts.txt", NOTE)])
    page.wait_for_selector(f"#documents tr:has-text('{RUNBOOK_TITLE}')", timeout=20_000)

    row = page.inner_text(f"#documents tr:has-text('{RUNBOOK_TITLE}')")
    assert "zephyr-cert.md" in row and "runbook" in row and "zephyr-gateway" in row
    assert "Active" in row and "browser-user" in row
    assert page.is_visible("#documents tr:has-text('zephyr-contacts.txt')")
    assert page.is_visible(f"#documents tr:has-text('{RUNBOOK_TITLE}') button.doc-delete")

    page.fill("input[name=q]", "zephyr")
    page.click(".document-search button")
    page.wait_for_url("**/knowledge/?q=zephyr*")
    assert page.locator("#documents tbody tr").count() == 2  # the demo pack's runbooks are filtered out

    page.goto(f"{live_stack.base}/")
    page.fill("#message", "How do I rotate the zephyr-gateway TLS certificate?")
    page.click("#send")
    page.wait_for_selector(".run:not(.live) .run-meta .badge", timeout=60_000)

    answer = page.inner_text(".run .answer")
    assert RUNBOOK_TITLE in answer
    assert "zephyrctl cert rotate" in answer


def test_a_refused_file_is_reported_and_nothing_is_listed(demo_user, live_stack, browser):
    page = signed_in_page(browser, live_stack.base)
    page.goto(f"{live_stack.base}/knowledge/")

    drop_files(page, [("ok.md", RUNBOOK), ("slides.pdf", "%PDF-1.7")])
    page.wait_for_selector("#upload-status.error", timeout=20_000)

    assert "slides.pdf" in page.inner_text("#upload-status")
    assert page.locator(f"#documents tr:has-text('{RUNBOOK_TITLE}')").count() == 0
    page.reload()
    assert page.locator(f"#documents tr:has-text('{RUNBOOK_TITLE}')").count() == 0


def test_an_uploaded_document_is_archived_then_deleted_from_its_row(demo_user, live_stack, browser):
    page = signed_in_page(browser, live_stack.base)
    page.goto(f"{live_stack.base}/knowledge/")
    drop_files(page, [("zephyr-cert.md", RUNBOOK)])
    row = f"#documents tr:has-text('{RUNBOOK_TITLE}')"
    page.wait_for_selector(row, timeout=20_000)
    refusals: list[str] = []
    page.on("dialog", lambda dialog: (refusals.append(dialog.message), dialog.accept()))

    page.click(f"{row} button.doc-status-change[value=ARCHIVED]")  # PATCH: a JSON reply, then a reload
    page.wait_for_selector(f"{row} button.doc-status-change[value=ACTIVE]", timeout=20_000)
    assert page.inner_text(f"{row} .doc-status") == "Archived"

    page.click(f"{row} button.doc-delete")  # confirmed; DELETE: 204 without a body, then a reload
    page.wait_for_selector(row, state="detached", timeout=20_000)
    assert refusals == ["Delete this document? It is gone from search at once."]
