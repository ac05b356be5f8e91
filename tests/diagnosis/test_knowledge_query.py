"""KNOWLEDGE_QUERY: quoted runbook passages, checked by the gatekeeper and the same release policy as a draft."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from diagnosis.execution import run_execute
from diagnosis.models import Intent
from diagnosis.paths.knowledge_query import NO_KNOWLEDGE, NO_KNOWLEDGE_ZH, TEXTS
from diagnosis.rendering import render_answer
from diagnosis.submission import run_create
from tools.knowledge.ingest import ingest_document
from tools.models import DocumentSource
from tracing.models import DiagnosisTraceEvent

pytestmark = pytest.mark.django_db

QUESTION = "How do I restore the connection pool size?"


def ask(owner, question: str = QUESTION):
    run = run_create(user=owner, message=question)
    assert run.intent == Intent.KNOWLEDGE_QUERY
    return run_execute(run.pk, worker="test")


def events(run, kind: str) -> list[DiagnosisTraceEvent]:
    return list(DiagnosisTraceEvent.objects.filter(run=run, kind=kind).order_by("seq"))


def test_it_releases_quotes_that_pass_the_release_policy(owner):
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())

    run = ask(owner)

    assert run.status == "SUCCESS" and run.self_evaluation["released_claim_ids"]
    first = run.self_evaluation["released_claim_ids"][0]
    assert f"[{first}]" in run.final_answer.split("\n> ", 1)[1]  # the marker closes the quote it vouches for
    [release] = events(run, "RELEASE")[:1]
    assert (release.name, release.details["decision"], release.details["rule"]) == (
        "release_decided",
        "released",
        "passed",
    )
    assert run.self_evaluation["release"]["policy_version"] == "release-policy-v1"
    assert run.self_evaluation["release"]["decisions"] == [
        {"attempt": 1, "decision": "released", "rule": "passed", "rules": []}
    ]
    [evidence] = events(run, "EVIDENCE")
    assert evidence.details["passed"] == len(run.self_evaluation["released_claim_ids"])


@pytest.mark.parametrize(
    ("markup", "shown"),
    [
        ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
        (
            "[the pool dashboard](https://grafana.example/d/pool)",
            "[the pool dashboard](https://grafana.example/d/pool)",
        ),
        ("![pool](https://grafana.example/pool.png)", "![pool](https://grafana.example/pool.png)"),
    ],
)
def test_a_passage_holding_markup_is_quoted_as_text_not_withheld(owner, markup, shown):
    """A runbook's link or HTML would render hidden or elsewhere: the passage is shown as it is written, in
    quotation marks, where the policy accepts the escapes. Withheld before, answered "no runbook"."""
    ingest_document(
        title_hint="Pool size runbook",
        filename="pool.md",
        content=f"# Pool size runbook\n\nTo restore the connection pool size, open {markup} and raise "
        "maximumPoolSize to 20.",
        source=DocumentSource.UPLOAD,
    )

    run = ask(owner)

    assert run.status == "SUCCESS" and run.self_evaluation["released_claim_ids"] == ["k1"]
    assert not run.degraded
    html = render_answer(run.final_answer)
    assert shown in html
    assert "<img" not in html and "<a " not in html


@pytest.mark.parametrize(
    ("heading", "shown"),
    [
        ("Pool size <pool> runbook", "Pool size &lt;pool&gt; runbook"),
        ("Pool size [runbook](https://w.example)", "[runbook]"),
    ],
)
def test_a_title_holding_markup_is_quoted_as_text_too(owner, heading, shown):
    ingest_document(
        title_hint="x",
        filename="pool.md",
        content=f"# {heading}\n\nTo restore the connection pool size, raise maximumPoolSize to 20.",
        source=DocumentSource.UPLOAD,
    )

    run = ask(owner)

    assert run.status == "SUCCESS" and run.self_evaluation["released_claim_ids"] == ["k1"]
    html = render_answer(run.final_answer)
    assert shown in html and "<a " not in html


def test_a_passage_the_policy_still_refuses_is_withheld_and_not_called_missing(owner):
    """A word in a script the checks do not read is refused however it is quoted: the reader is told the
    base holds a match that could not be shown, not that it has none."""
    ingest_document(
        title_hint="Pool size runbook",
        filename="pool.md",
        content="# Pool size runbook\n\nTo restore the connection pool size, ask Дмитрий and raise "
        "maximumPoolSize to 20.",
        source=DocumentSource.UPLOAD,
    )

    run = ask(owner)

    assert run.status == "SUCCESS" and run.self_evaluation["released_claim_ids"] == []
    assert "Дмитрий" not in run.final_answer and run.final_answer == TEXTS["en"]["withheld"]
    [release] = events(run, "RELEASE")[:1]
    assert (release.details["decision"], release.details["rule"]) == ("blocked", "foreign_script")
    # Withheld: a safe fallback, recorded as the graph's composer records a blocked draft.
    assert run.degraded and run.outcome == "FALLBACK"
    [decision] = run.self_evaluation["release"]["decisions"]
    assert (decision["decision"], decision["rule"]) == ("blocked", "foreign_script")


def test_a_quoted_runbook_cannot_hide_a_link_from_the_policy_behind_an_invisible_character(owner):
    """The policy reads a quote without its zero-width characters: ``\\`` then escapes the bracket. The
    released answer must be what it read, or a renderer would see ``\\<ZWSP>`` and then a live link."""
    ingest_document(
        title_hint="Pool size runbook",
        filename="pool.md",
        content="# Pool size runbook\n\nTo restore the connection pool size, read "
        '"\\\u200b[the vendor notes](https://evil.example/x)" and raise maximumPoolSize to 20.',
        source=DocumentSource.UPLOAD,
    )

    run = ask(owner)

    assert run.status == "SUCCESS" and run.self_evaluation["released_claim_ids"]
    assert "\u200b" not in run.final_answer
    assert "<a " not in render_answer(run.final_answer)


def test_a_chinese_how_to_question_gets_the_chinese_fixed_texts_and_verbatim_quotes(owner):
    call_command("load_scenario", "broker-disk-full", stdout=StringIO())

    run = ask(owner, "如何确认 RabbitMQ 内存水位")

    assert run.status == "SUCCESS" and run.self_evaluation["released_claim_ids"]
    assert run.final_answer.startswith("知识库中的相关内容如下：")
    assert "Here is what the knowledge base says" not in run.final_answer
    assert run.conclusion.startswith("参见：")


def test_a_chinese_question_nothing_answers_gets_the_chinese_no_knowledge_text(owner):
    run = ask(owner, "如何轮换证书")

    assert run.status == "SUCCESS" and run.self_evaluation["released_claim_ids"] == []
    assert run.final_answer == NO_KNOWLEDGE_ZH


@pytest.mark.parametrize(
    ("body", "cut_number"),
    [
        ("1. " + "重启连接池并确认" * 60, None),  # one space, near the start: a cut there would quote "1."
        ("步骤" * 199 + "1234567" + "确认" * 40, "123"),  # no space at all, a number across the window's end
        ("步骤" * 199 + "3.14159" + "确认" * 40, "3."),  # the window ends on the number's decimal point
    ],
    ids=["one-early-space", "number-at-the-cut", "decimal-point-at-the-cut"],
)
def test_a_long_chinese_section_is_quoted_where_the_gatekeeper_finds_it_whole(owner, body, cut_number):
    ingest_document(
        title_hint="", filename="pool.md", content=f"# 如何重启连接池\n\n{body}\n", source=DocumentSource.UPLOAD
    )

    run = ask(owner, "如何重启连接池")

    assert run.status == "SUCCESS" and run.self_evaluation["released_claim_ids"] == ["k1"]
    if cut_number:  # the quote stops before the number, not inside it
        assert cut_number not in run.final_answer


def test_a_search_that_failed_is_no_answer_that_the_base_has_nothing(owner, settings):
    # An embedder configured without its endpoint: the search cannot run.
    settings.EMBEDDING_MODEL, settings.LLM_BASE_URL = "text-embedding-3-small", None
    ingest_document(
        title_hint="", filename="pool.md", content="# Pool\n\nRestore the pool size.\n", source=DocumentSource.UPLOAD
    )

    run = ask(owner)

    assert (run.status, run.failure_reason) == ("FAILED", "knowledge_search_failed")
    assert run.final_answer != NO_KNOWLEDGE
