"""The chat page in a real headless Chromium when a run's stream cannot be read as it should: a proxy's 502,
the library's ``stream-error``, a connection that keeps dropping (the card ends as interrupted, in the reader's
language, and Send is offered again), one that drops and comes back (a note while the browser reconnects, then
the run's end as usual); and the question box's limit and shortcut, and a sidebar whose sign-in expired.

The events are answered by routes in the browser (Playwright's ``page.route``), so the runs behind them are
plain greetings, answered at once by the server."""

from __future__ import annotations

import pytest

from tests.support.browser import send, signed_in_page

pytestmark = pytest.mark.django_db(transaction=True)

EVENTS = "**/events/**"
STREAM = {"Content-Type": "text/event-stream"}
# The reconnection delay the stream asks for: EventSource's own is about 3 s in Chromium.
QUICK_RETRY = "retry: 200\n\n"
FORBIDDEN = (
    'event: stream-error\nid: error\ndata: {"condition": "forbidden", "text": "Permission denied to channels: '
    'run-x", "channels": ["run-x"]}\n\n'
)
STREAM_FAILURES = 6  # static/js/chat.js


def until(page, condition, timeout_ms: int = 10_000) -> None:
    """Wait for ``condition`` of what the test's routes saw: Playwright calls them while the test waits on it."""
    for _ in range(timeout_ms // 100):
        if condition():
            return
        page.wait_for_timeout(100)
    raise AssertionError("the condition never held")


def interrupted(page, index: int):
    card = page.locator(".run").nth(index)
    card.locator(".run-meta .badge-interrupted").wait_for(timeout=20_000)
    assert card.locator(".run-meta .badge-interrupted").inner_text() == "连接中断"
    assert "live" not in (card.get_attribute("class") or "")
    assert card.locator(".stream-ended a").inner_text() == "重新加载页面"
    assert card.locator(".stream-ended a").get_attribute("href").startswith("?session=")
    assert page.is_enabled("#send") and page.locator("button.cancel-run").count() == 0
    return card


def test_the_card_ends_as_interrupted_when_its_stream_cannot_go_on(demo_user, module_stack, browser):
    page = signed_in_page(browser, module_stack.base, accept_language="zh-CN")
    page.evaluate(
        "window.interrupted = []; document.addEventListener('superbiz:run-interrupted', e => "
        "window.interrupted.push(e.detail.run_id))"
    )

    # A proxy's 502: the browser gives up on the stream at once.
    page.route(EVENTS, lambda route: route.fulfill(status=502, body="bad gateway"))
    send(page, "你好")
    card = interrupted(page, 0)
    assert "与服务器的连接已断开，本页已停止跟踪此运行；它可能仍在运行。" in card.locator(".answer").inner_text()

    # The library's stream-error: a sentence for its condition, never its JSON.
    page.unroute(EVENTS)
    page.route(EVENTS, lambda route: route.fulfill(status=200, body=FORBIDDEN, headers=STREAM))
    send(page, "你好")
    card = interrupted(page, 1)
    assert card.locator(".answer").inner_text().startswith("本页已无法继续跟踪此运行：登录可能已失效。")
    assert card.locator(".stream-ended").get_attribute("data-condition") == "forbidden"

    # A connection that keeps dropping: EventSource would try again for ever; the page stops after a few.
    opened = []

    def dropping(route):
        opened.append(route.request.url)
        if len(opened) == 1:
            route.fulfill(status=200, body=QUICK_RETRY, headers=STREAM)
        else:
            route.abort()

    page.unroute(EVENTS)
    page.route(EVENTS, dropping)
    send(page, "你好")
    interrupted(page, 2)
    page.wait_for_timeout(1_500)  # more than the reconnection delay: nothing more is asked
    assert len(opened) == STREAM_FAILURES

    runs = [page.locator(".run").nth(index).get_attribute("data-run") for index in range(3)]
    assert page.evaluate("window.interrupted") == runs  # sidebar.js asks for the list again on each


def test_it_says_it_is_reconnecting_and_carries_on_once_the_stream_is_back(demo_user, module_stack, browser):
    page = signed_in_page(browser, module_stack.base, accept_language="zh-CN")
    routes = []

    def flaky(route):
        routes.append(route)
        if len(routes) == 1:
            route.fulfill(status=200, body=QUICK_RETRY, headers=STREAM)  # ends at once: the browser reconnects
        elif len(routes) > 2:
            route.continue_()
        # The second, the reconnection, waits until the test lets it through.

    page.route(EVENTS, flaky)
    # The run ended meanwhile: Cancel's 409 must not leave its button waiting.
    page.route(
        "**/cancel", lambda route: route.fulfill(status=409, json={"error": {"code": "run_ended", "message": "x"}})
    )
    send(page, "你好")

    note = page.locator(".run.live .stream-note")
    note.wait_for(state="visible", timeout=20_000)
    assert note.inner_text() == "连接已断开，正在重新连接…"
    page.click(".run.live button.cancel-run")
    page.wait_for_selector("button.cancel-run", state="detached", timeout=10_000)
    assert page.locator(".run.live").count() == 1 and page.is_disabled("#send")

    until(page, lambda: len(routes) == 2)  # the reconnection, held
    routes[1].continue_()
    page.wait_for_selector(".run:not(.live) .run-meta .badge[data-outcome=SUCCESS]", timeout=30_000)
    assert page.locator(".run .stream-note").count() == 0
    assert page.locator(".run .badge-interrupted").count() == 0
    assert page.is_enabled("#send")
    assert page.text_content(".run .progress") == "system_chat · 完成"


def test_the_question_box_refuses_a_question_over_the_limit_and_sends_with_ctrl_enter(demo_user, module_stack, browser):
    page = signed_in_page(browser, module_stack.base, accept_language="zh-CN")
    chats = []
    page.on("request", lambda request: request.url.endswith("/api/chat") and chats.append(request))
    assert page.evaluate("document.getElementById('message').labels[0].textContent") == "你的问题"

    page.focus("#message")
    page.evaluate("document.execCommand('insertText', false, 'x'.repeat(8990) + ' 为什么很慢')")
    assert page.input_value("#message").endswith("为什么很慢")  # nothing was cut
    page.wait_for_selector("#message-count.error")
    assert page.inner_text("#message-count") == "8996 / 8000 个字符：太长，无法发送"
    assert page.get_attribute("#message", "aria-invalid") == "true"

    page.keyboard.press("Control+Enter")
    page.wait_for_selector("#form-error:has-text('问题有 8996 个字符，请缩短到 8000 个字符以内。')")
    assert chats == [] and page.locator(".run").count() == 0

    # Counted as the server counts: Python's strip() takes U+0085 off the end, JavaScript's trim() would not.
    page.fill("#message", "x" * 8000 + "\u0085")
    assert "8000 / 8000" in page.inner_text("#message-count")
    assert page.get_attribute("#message", "aria-invalid") is None

    page.fill("#message", "你好")
    assert page.inner_text("#message-count") == "" and page.get_attribute("#message", "aria-invalid") is None
    page.keyboard.press("Control+Enter")
    page.wait_for_selector(".run:not(.live) .run-meta .badge[data-outcome=SUCCESS]", timeout=30_000)
    assert len(chats) == 1 and page.input_value("#message") == ""
    assert (
        page.evaluate("document.querySelector('.run form.feedback textarea').labels[0].textContent")
        == "对这个回答的备注"
    )


def test_the_sidebar_says_the_sign_in_expired_instead_of_showing_the_login_page(demo_user, module_stack, browser):
    page = signed_in_page(browser, module_stack.base, accept_language="zh-CN")

    page.context.clear_cookies()
    page.evaluate("document.dispatchEvent(new CustomEvent('superbiz:run-finished'))")  # the list is asked for

    note = page.locator("#session-list .session-note")
    note.wait_for(timeout=10_000)
    assert note.inner_text().startswith("登录已失效。")
    assert page.locator("#session-list form, #session-list header, #session-list input").count() == 0
    note.locator("a").click()
    page.wait_for_selector("input[name=username]")  # signing in again comes back to this page
