"""Issue 16 in a real headless Chromium (Debian's, driven by Playwright): the chat page, its feedback form
and the knowledge page in Chinese for a browser sending ``Accept-Language: zh-CN``, the sparkline and
timeline strip of the demo answer's metric claim, and a sidebar that shows a new session, its spinner and
then its outcome without a reload."""

from __future__ import annotations

import pytest
from django.utils.text import Truncator

from tests.support.browser import PASSWORD, USERNAME, ask, drop_files, send, signed_in_page

pytestmark = pytest.mark.django_db(transaction=True)

CHINESE_QUESTION = "支付服务最近很慢，帮我看看是什么原因"
FINISHED = ".run:not(.live) .run-meta .badge"


def test_it_speaks_chinese_to_a_chinese_browser(demo_user, live_stack, browser):
    page = signed_in_page(browser, live_stack.base, accept_language="zh-CN")

    assert page.get_attribute("html", "lang") == "zh-hans"
    assert page.inner_text("#send") == "发送"
    assert page.get_attribute("#message", "placeholder") == f"问问服务为什么出故障，例如：{CHINESE_QUESTION}"
    assert page.input_value("select[name=language]") == "zh-hans"

    send(page, CHINESE_QUESTION)
    page.wait_for_selector(FINISHED, timeout=120_000)

    assert page.inner_text(f"{FINISHED}") == "成功"
    assert page.inner_text(".run .progress-done summary").startswith("进度：")
    # The progress lines in Chinese; node and tool names and numbers as they are (diagnosis/progress.py).
    progress = page.text_content(".run .progress")
    assert "planner · 开始 · 完整计划，第 1 次尝试" in progress
    assert "executor · 工具 · query_logs 就绪" in progress
    assert "gatekeeper · 证据 · 已验证" in progress
    assert "started" not in progress and "claims verified" not in progress and "READY" not in progress
    verdict = page.inner_text(".run .badge-verdict")  # what a reloaded card says (diagnosis/views.py)
    assert verdict in {"结论：通过", "结论：低置信度", "结论：驳回"}, verdict
    assert page.inner_text(".run details.evidence summary").startswith("证据（")
    assert "首个错误" in page.inner_text(".run .incident-timeline")
    # The feedback form a finished answer gets, and what static/js/feedback.js says once it is saved.
    feedback = ".run form.feedback"
    assert page.inner_text(f"{feedback} .feedback-ask") == "这个回答对吗？"
    assert page.get_attribute(f"{feedback} .feedback-rate[value=DOWN]", "title") == "错误"
    page.click(f"{feedback} .feedback-rate[value=UP]")
    page.wait_for_selector(f"{feedback} .feedback-status:has-text('谢谢，你的反馈已保存。')", timeout=10_000)
    assert page.get_attribute(f"{feedback} textarea", "placeholder") == "哪里错了或缺了什么？（可选）"

    page.reload()
    assert page.inner_text(".run .badge-verdict") == verdict

    page.select_option("select[name=language]", "en")  # the header's switch, over the browser's language
    page.wait_for_selector("html[lang=en]")
    assert page.inner_text("#send") == "Send"
    assert page.inner_text(FINISHED) == "SUCCESS"


def test_the_knowledge_page_speaks_chinese_and_has_the_language_switch(demo_user, live_stack, browser):
    page = signed_in_page(browser, live_stack.base, accept_language="zh-CN")
    page.click("header nav a:has-text('知识库')")
    page.wait_for_selector(".knowledge h1")

    assert page.inner_text(".knowledge h1") == "知识库"
    assert page.inner_text("#documents thead th >> nth=0") == "标题"
    pack_row = page.locator("#documents tbody tr").first
    assert pack_row.locator(".doc-status").inner_text() == "启用"
    assert "场景包 payment-db-pool" in pack_row.inner_text()

    # static/js/knowledge.js reports a refused upload in the page's language.
    drop_files(page, [("slides.pdf", "%PDF-1.7")])
    page.wait_for_selector("#upload-status.error", timeout=20_000)
    assert page.inner_text("#upload-status").startswith("上传被拒绝：")

    page.select_option("select[name=language]", "en")  # the header's switch, on this page too
    page.wait_for_selector("html[lang=en]")
    assert page.url.endswith("/knowledge/")
    assert page.inner_text(".knowledge h1") == "Knowledge base"


def test_it_draws_the_metric_claim_and_the_incident_timeline(demo_user, live_stack, browser):
    page = ask(browser, live_stack.base, demo_user["text"])
    page.wait_for_selector(".run:not(.live) figure.metric-claim svg.sparkline", timeout=120_000)

    def check() -> None:
        figure = page.locator(".run figure.metric-claim")
        assert figure.count() == 1
        assert "db_pool_pending" in figure.inner_text()
        assert figure.locator("svg.sparkline line.onset").count() == 1
        assert figure.locator("svg.sparkline circle.peak").count() == 1
        events = page.locator(".run .incident-timeline .event")
        assert [events.nth(index).get_attribute("class") for index in range(events.count())] == [
            "event event-change",
            "event event-first_error",
            "event event-metric_peak",
        ]
        # The strip opens the answer, and each event links to its claim on the page.
        assert page.evaluate("document.querySelector('.run .answer').firstElementChild.className") == "figures"
        for index in range(events.count()):
            target = events.nth(index).locator("a").get_attribute("href")
            assert page.locator(f".run {target}").count() == 1, target

    check()
    page.click(".run .event-metric_peak a")
    assert page.evaluate("location.hash") == "#" + page.locator(".run figure.metric-claim").get_attribute("id")
    page.reload()  # the finished run is rendered by the server with the same pictures
    check()


def test_the_sidebar_follows_a_new_session_without_a_reload(demo_user, slow_stack, browser):
    page = signed_in_page(browser, slow_stack.base)
    assert page.inner_text("#session-list") == "No sessions yet."
    page.evaluate("window.notReloaded = true")

    send(page, demo_user["text"])
    item = page.locator("#session-list li[data-session]")
    item.locator(".spinner").wait_for(timeout=10_000)  # the planner answers only after 4 s

    assert item.count() == 1
    assert item.locator("a").inner_text() == Truncator(demo_user["text"]).chars(48)  # the first question
    assert "active" in (item.get_attribute("class") or "")
    page.wait_for_selector("#session-list li[data-session] .badge[data-outcome=SUCCESS]", timeout=120_000)
    assert item.locator(".spinner").count() == 0
    assert page.evaluate("window.notReloaded") is True


def test_a_blank_question_is_refused_with_a_word_not_in_silence(demo_user, live_stack, browser):
    page = signed_in_page(browser, live_stack.base, accept_language="zh-CN")
    page.wait_for_selector("#send:not([disabled])", timeout=10_000)

    page.fill("#message", "   \n  ")
    page.click("#send")

    page.wait_for_selector("#form-error:has-text('消息不能为空')", timeout=10_000)
    assert page.query_selector(".run") is None


def test_the_headers_forms_still_post_after_signing_in_again_in_another_tab(demo_user, live_stack, browser):
    """Signing in rotates the CSRF token: the forms of a page rendered before it send the cookie's."""
    page = signed_in_page(browser, live_stack.base)
    other = page.context.new_page()
    other.goto(f"{live_stack.base}/")
    other.click("form[action='/accounts/logout/'] button[type=submit]")
    other.fill("input[name=username]", USERNAME)
    other.fill("input[name=password]", PASSWORD)
    other.click("form[action='/accounts/login/'] button[type=submit]")
    other.wait_for_selector("#chat-form")

    page.select_option("select[name=language]", "zh-hans")  # the language switch posts at once
    page.wait_for_selector("html[lang=zh-hans]")
    page.click("form[action='/accounts/logout/'] button[type=submit]")
    page.wait_for_selector("input[name=username]")

    assert page.url.endswith("/accounts/login/")


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)], ids=["desktop", "phone"])
def test_a_long_unbroken_word_and_a_phone_screen_keep_the_page_within_the_screen(
    demo_user, live_stack, browser, width, height
):
    """A question with a 600-character token (a stack trace, a URL) made the page 6 000 px wide; a phone
    showed the header squeezed and the conversation off the screen."""
    page = signed_in_page(browser, live_stack.base, accept_language="zh-CN", width=width, height=height)

    send(page, demo_user["text"] + " trace: " + "x" * 600 + " https://example.com/" + "a/" * 200)
    page.wait_for_selector(FINISHED, timeout=120_000)

    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.locator("#transcript").bounding_box()["x"] >= 0
    page.goto(f"{live_stack.base}/knowledge/")
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_a_second_tab_lists_the_session_another_tab_started_once_it_is_shown(demo_user, live_stack, browser):
    shown_later = signed_in_page(browser, live_stack.base)
    first = shown_later.context.new_page()
    first.goto(f"{live_stack.base}/")
    first.wait_for_load_state("load")

    send(first, demo_user["text"])
    first.wait_for_selector(FINISHED, timeout=120_000)
    assert shown_later.locator("#session-list li[data-session]").count() == 0  # nothing asked it yet
    # What a browser does when the tab is brought back (headless pages are never hidden).
    shown_later.evaluate("document.dispatchEvent(new Event('visibilitychange'))")

    shown_later.wait_for_selector("#session-list li[data-session]", timeout=10_000)


def test_a_send_after_signing_out_elsewhere_offers_the_way_back(demo_user, live_stack, browser):
    page = signed_in_page(browser, live_stack.base)
    page.wait_for_selector("#send:not([disabled])", timeout=10_000)
    other = page.context.new_page()
    other.goto(f"{live_stack.base}/")
    other.click("form[action='/accounts/logout/'] button[type=submit]")
    other.wait_for_selector("input[name=username]")

    send(page, demo_user["text"])

    page.wait_for_selector("#form-error a:has-text('Reload the page to sign in again.')", timeout=10_000)
    assert page.query_selector(".run") is None


def test_a_rating_the_server_cannot_receive_says_so_in_the_readers_language(demo_user, live_stack, browser):
    """Not the browser's own words ("Failed to fetch"), nor called a refusal."""
    page = signed_in_page(browser, live_stack.base, accept_language="zh-CN")
    send(page, demo_user["text"])
    page.wait_for_selector(FINISHED, timeout=120_000)

    page.context.set_offline(True)
    page.click(".run form.feedback .feedback-rate[value=UP]")

    page.wait_for_selector(".run .feedback-status:has-text('反馈未能保存：无法连接服务器。')", timeout=10_000)
