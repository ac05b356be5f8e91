"""What the chat page says of a run's end, in the reader's language, from one catalogue for the history's
cards and the live ones (``diagnosis.views``: failure codes and verdicts), and the question box's limits and
labels."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.utils import timezone, translation

from diagnosis import failures
from diagnosis.models import ChatSession, DiagnosisRun, RunStatus

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}


def finished(session: ChatSession, **fields) -> DiagnosisRun:
    return DiagnosisRun.objects.create(session=session, query="why?", finished_at=timezone.now(), **fields)


def run_texts(body: str) -> dict:
    match = re.search(r'<script id="run-texts" type="application/json">(.*?)</script>', body, re.S)
    assert match, "the page carries no run-texts"
    return json.loads(match.group(1))


def card(body: str, run: DiagnosisRun) -> str:
    start = body.index(f'data-run="{run.pk}"')
    return body[start : body.index("</article>", start)]


def test_a_failed_runs_card_and_the_live_pages_catalogue_say_the_same_in_chinese(client, owner):
    session = ChatSession.objects.create(owner=owner, title="t")
    cancelled = finished(session, status=RunStatus.FAILED, failure_reason="cancelled")
    odd = finished(session, status=RunStatus.FAILED, failure_reason="some_new_code")
    client.force_login(owner)

    body = client.get(f"/?session={session.pk}", **ZH).content.decode()

    assert '<p class="error failure" data-code="cancelled" title="cancelled">运行已取消。</p>' in card(body, cancelled)
    assert "运行失败（some_new_code）。" in card(body, odd)
    assert "The run" not in body
    texts = run_texts(body)
    assert texts["failures"]["cancelled"] == "运行已取消。"
    assert texts["unknown_failure"] == "运行失败（%(code)s）。"


def test_the_verdict_badge_is_translated_and_keeps_its_code(client, owner):
    session = ChatSession.objects.create(owner=owner, title="t")
    sure = finished(session, status=RunStatus.SUCCESS, effective_verdict="PASS", final_answer="ok")
    unsure = finished(session, status=RunStatus.SUCCESS, effective_verdict="LOW_CONFID", final_answer="maybe")
    client.force_login(owner)

    chinese = client.get(f"/?session={session.pk}", **ZH).content.decode()
    english = client.get(f"/?session={session.pk}").content.decode()

    assert '<span class="badge badge-verdict" data-verdict="PASS">结论：通过</span>' in card(chinese, sure)
    assert '<span class="badge badge-verdict" data-verdict="LOW_CONFID">结论：低置信度</span>' in card(chinese, unsure)
    assert "LOW_CONFID</span>" not in chinese
    assert run_texts(chinese)["verdicts"] == {
        "PASS": "结论：通过",
        "LOW_CONFID": "结论：低置信度",
        "REJECT": "结论：驳回",
    }
    assert "verdict: low confidence" in card(english, unsure)


def test_every_failure_code_has_one_sentence_stored_in_english_and_shown_in_the_readers_language():
    """``run_fail`` takes a ``FailureCode`` (mypy holds every caller to the catalogue); each has a sentence,
    translated, and the message stored with the run is that sentence in English even from a Chinese
    request (the broker's refusal is failed in the request that submitted the run)."""
    assert set(failures.TEXTS) == set(failures.FailureCode)
    english = {code: failures.failure_text(code) for code in failures.FailureCode}
    with translation.override("zh-hans"):
        for code in failures.FailureCode:
            assert re.search(r"[\u4e00-\u9fff]", failures.failure_text(code)), code
            assert failures.failure_message(code) == english[code]
        stored = failures.failure_message(failures.FailureCode.KNOWLEDGE_SEARCH_FAILED, "tool_timeout")
    assert stored == "The knowledge base could not be searched; try again later. (tool_timeout)"
    assert failures.failure_text("retired_code") == "The run failed (retired_code)."


def test_the_question_box_counts_instead_of_cutting_and_every_box_has_a_label(client, owner):
    client.force_login(owner)
    session = ChatSession.objects.create(owner=owner, title="t")
    finished(session, status=RunStatus.SUCCESS, final_answer="ok")

    body = client.get(f"/?session={session.pk}", **ZH).content.decode()

    textarea = re.search(r'<textarea id="message"[^>]*>', body).group(0)
    assert "maxlength" not in textarea  # the browser would cut a longer paste without a word
    assert 'data-max-length="8000"' in textarea
    assert '<label for="message" class="visually-hidden">你的问题</label>' in body
    assert re.search(
        r'<label class="feedback-comment"><span class="visually-hidden">对这个回答的备注</span><textarea name="comment"',
        body,
    )
    # Nothing the page runs is inline (a Content-Security-Policy may forbid it): the texts are data.
    scripts = re.findall(r"<script[^>]*>", body)
    assert scripts and all(" src=" in tag or 'type="application/json"' in tag for tag in scripts), scripts


def test_the_knowledge_pages_file_chooser_has_a_label(client, owner):
    client.force_login(owner)

    body = html.unescape(client.get("/knowledge/", **ZH).content.decode())

    assert '<label for="upload-files" class="visually-hidden">要上传的运行手册文件</label>' in body
