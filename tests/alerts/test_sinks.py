"""The robots' message bodies, without a run: the WeCom content's byte limit whatever the parts' sizes."""

from __future__ import annotations

import pytest

from alerts.messages import RunMessage
from alerts.sinks import WECOM_CONTENT_BYTES, wecom_body


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
