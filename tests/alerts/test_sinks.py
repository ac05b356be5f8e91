"""The robots' message bodies, without a run: the WeCom content's byte limit whatever the parts' sizes."""

from __future__ import annotations

import json
import re

import pytest

from alerts.messages import RunMessage
from alerts.sinks import ANSWER_BYTES, WECOM_CONTENT_BYTES, dingtalk_body, feishu_body, slack_body, wecom_body


def message(*, base_length: int, title: str, answer: str) -> RunMessage:
    base = "https://superbiz.example.com/" + "a" * base_length
    return RunMessage(
        title=title,
        answer_markdown=answer,
        run_id="r",
        session_id="s",
        outcome="SUCCESS",
        degraded=False,
        effective_verdict="PASS",
        question="why?",
        alertname="A",
        run_url=f"{base}/run",
        trace_url=f"{base}/trace",
    )


@pytest.mark.parametrize("base_length", range(1700, 2000, 13))
def test_the_wecom_content_fits_whatever_the_links_leave_to_the_title_and_answer(base_length):
    """Past the answer's room, the cut's note and then the title give way; the links are kept whole."""
    body = wecom_body(message(base_length=base_length, title="告警" * 100, answer="连接池耗尽。" * 2000))

    content = body["markdown"]["content"]
    assert len(content.encode()) <= WECOM_CONTENT_BYTES
    assert content.startswith("**") and content.endswith("/trace)")
    assert "\ufffd" not in content  # no character cut in half


def test_a_short_message_is_sent_whole():
    content = wecom_body(message(base_length=10, title="告警", answer="连接池耗尽。"))["markdown"]["content"]

    assert content.startswith("**告警**\n\n连接池耗尽。\n\n[Run](")


QUOTED_LINK = "- > GET /\\[Reset password\\](https://evil.example) 200 [c1]"
"""A quoted log line as the fallback writes it: CommonMark escapes, which no chat-ops format honours."""


@pytest.mark.parametrize("body", [wecom_body, dingtalk_body, feishu_body])
def test_a_quoted_link_is_no_link_in_the_robots_markdown(body):
    text = str(body(message(base_length=10, title="A", answer=QUOTED_LINK)))

    assert "](https://evil.example)" not in text and "\\[" not in text
    assert "Reset password］(https://evil.example)" in text and "[c1]" in text


def test_slack_shows_the_answer_unescaped_and_never_cuts_an_escape():
    text = slack_body(message(base_length=10, title="A", answer="pool\\_size=0 \\& more"))["text"]
    assert "pool_size=0 &amp; more" in text

    long = slack_body(message(base_length=10, title="A", answer="x" * (ANSWER_BYTES - 60) + "&" * 100))["text"]
    assert "&amp;" in long and not re.search(r"&(?!amp;|lt;|gt;)", long)


def test_markup_in_a_title_is_shown_not_applied():
    """An alert name is label text: it may not restyle the title, nor add a heading or a quote to it."""
    title = "Diagnosis SUCCESS: DiskFull* _a_ ~b~ `c` # > [d]"
    answer = "The pool is exhausted."

    slack = slack_body(message(base_length=10, title=title, answer=answer))["text"]
    wecom = wecom_body(message(base_length=10, title=title, answer=answer))["markdown"]["content"]
    dingtalk = dingtalk_body(message(base_length=10, title=title, answer=answer))["markdown"]
    feishu = feishu_body(message(base_length=10, title=title, answer=answer))["content"]["text"]

    assert slack.startswith("*Diagnosis SUCCESS: DiskFull＊ ＿a＿ ～b～ ｀c｀ # &gt; [d]*\nThe pool")
    robot_title = "Diagnosis SUCCESS: DiskFull＊ ＿a＿ ～b～ ｀c｀ ＃ ＞ ［d］"
    assert wecom.startswith(f"**{robot_title}**\n\nThe pool") and dingtalk["text"].startswith(f"**{robot_title}**")
    assert dingtalk["title"] == robot_title
    assert feishu.startswith(f"{title}\n\nThe pool")  # plain text: nothing to restyle


@pytest.mark.parametrize("body", [slack_body, wecom_body, dingtalk_body, feishu_body])
def test_a_bare_mention_notifies_no_one(body):
    """Mattermost, Rocket.Chat and Discord's /slack endpoint act on a bare @channel in a Slack body."""
    sent = message(base_length=10, title="Diagnosis SUCCESS: @channel", answer="GET /@here @everyone @all")

    text = json.dumps(body(sent), ensure_ascii=False)

    for name in ("channel", "here", "everyone", "all"):
        assert f"@{name}" not in text and f"@\u200d{name}" in text
