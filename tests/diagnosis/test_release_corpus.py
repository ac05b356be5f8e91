"""The release guard's invention corpus: scripted composer drafts that invent, and nowhere they may surface.

Each case is one whole chat run (``run_create`` + the ``execute_run`` task, as the chat does) on the
``payment-db-pool`` scenario. The executor cites one real ``query_logs`` result at several paths (message,
timestamp, service, host) and the verifier restates them as facts, so a draft has real numbers, times,
hosts and services to get wrong. The composer's two drafts both invent one thing - a cause, a number, a
unit, a time, a host, a negation, a citation, markup that hides text, in English and in Chinese - and the
release guard (release policy, then the SemanticGuard; offline unless the case scripts one) must block
both, so the run ends in the post-composer fallback.

For every case the invented text must be absent from everything a reader can reach - the run's answer and
conclusion, every stored SSE event (``content`` included), the owner's Trace API and the chat page - and
present in the restricted reasoning audit, which proves the draft really went through the guard. The
timeline records each blocked draft by rule name only.
"""

from __future__ import annotations

import contextlib
import html
import json
from io import StringIO
from typing import NamedTuple

import pytest
from django.core.management import call_command

from diagnosis import submission, tasks
from diagnosis.models import DiagnosisRun
from tests.support.openai_diagnosis import LOGS_ARGS, QUESTION
from tests.support.stored_events import payload, stored_events
from tracing.models import AgentReasoningAudit, AgentStep, DiagnosisTraceEvent

pytestmark = pytest.mark.django_db

# --- The evidence: one query_logs call; its records 0 and 2 are cited (see tools/scenarios/packs/payment-db-pool/logs.jsonl).
LOG_QUERY = LOGS_ARGS
POOL_MESSAGE = "connection pool exhausted (HikariPool-1 active=10/10, waiting=36) error_code=POOL_TIMEOUT"
TIMEOUT_MESSAGE = "HikariPool-1 - Connection is not available, request timed out after 1000ms"
FACTS = {
    "c1": "payment-service host payment-service-84d5b7c9f-m2hxc logged connection pool exhausted "
    "(HikariPool-1 active=10/10, waiting=36) error_code=POOL_TIMEOUT at 2026-10-14T10:05:13.824Z",
    "c2": "payment-service logged HikariPool-1 - Connection is not available, request timed out after 1000ms "
    "at 2026-10-14T10:05:03.102Z",
    "c3": "payment-service 的连接池耗尽，等待连接的请求有 36 个 (HikariPool-1 active=10/10, waiting=36)",
}
BINDINGS = {
    "c1": {
        "$.records[2].message": POOL_MESSAGE,
        "$.records[2].ts": "2026-10-14T10:05:13.824000Z",
        "$.records[2].service": "payment-service",
        "$.records[2].host": "payment-service-84d5b7c9f-m2hxc",
    },
    "c2": {
        "$.records[0].message": TIMEOUT_MESSAGE,
        "$.records[0].ts": "2026-10-14T10:05:03.102000Z",
        "$.records[0].service": "payment-service",
    },
    "c3": {"$.records[2].message": POOL_MESSAGE},
}
HONEST = (
    "payment-service logged connection pool exhausted (HikariPool-1 active=10/10, waiting=36) "
    "error_code=POOL_TIMEOUT at 10:05:13 [c1]. HikariPool-1 requests timed out after 1000ms [c2]."
)
FALLBACK_HEADING = "Verified findings"

BLOCKED, RELEASED = "blocked", "released"
OFFLINE = "offline guard"
GUARD_BLOCKS, GUARD_RELEASES, GUARD_TIMES_OUT = "scripted BLOCK", "scripted RELEASE", "scripted timeout"


class Case(NamedTuple):
    draft: str
    invented: str
    """A substring of the draft that no evidence contains: it must never reach a reader."""
    rule: str
    """The rule that should block the draft (a policy rule, ``semantic_guard_blocked`` or ``..._failed``)."""
    cited: tuple[str, ...] = ("c1",)
    """The draft's ``cited_claim_ids``."""
    guard: str = OFFLINE
    """Who plays the SemanticGuard: the offline guard, or scripted replies (BLOCK, RELEASE, a timeout)."""


# A grounded opening sentence, so that only what follows it invents.
GROUNDED = "The connection pool is exhausted [c1]."
CASES = {
    # Invented content under a real citation.
    "invented-cause": Case(
        "The database host of payment-service caught fire [c1].", "caught fire", "semantic_guard_blocked"
    ),
    "wrong-number": Case("The HikariPool-1 pool size is 50 connections [c1].", "pool size is 50", "ungrounded_token"),
    "wrong-number-full-width": Case(
        "HikariPool-1 had ５０ active connections [c1].", "５０ active", "ungrounded_token"
    ),
    "wrong-unit": Case(
        "HikariPool-1 requests timed out after 1000 s [c2].", "after 1000 s", "ungrounded_token", ("c2",)
    ),
    "unit-added-to-a-count": Case(
        "HikariPool-1 connections were waiting 36 s [c1].", "waiting 36 s", "ungrounded_token"
    ),
    "wrong-time": Case("The pool was exhausted at 10:47:13 [c1].", "10:47:13", "ungrounded_token"),
    "time-of-another-claim": Case(
        "The pool was exhausted at 10:05:03 [c1].", "exhausted at 10:05:03", "ungrounded_token"
    ),
    "wrong-date": Case("The pool was exhausted on 2026-10-15 [c1].", "2026-10-15", "ungrounded_token"),
    "wrong-service": Case(
        "order-service logged connection pool exhausted [c1].", "order-service logged", "ungrounded_token"
    ),
    "wrong-host": Case(
        "payment-service-84d5b7c9f-v7k4s logged connection pool exhausted [c1].", "84d5b7c9f-v7k4s", "ungrounded_token"
    ),
    "negation-flip": Case(
        "The connection pool is not exhausted [c1].", "pool is not exhausted", "semantic_guard_blocked"
    ),
    "negation-flip-beside-a-negated-claim": Case(
        "The connection pool is not exhausted [c1][c2].",
        "pool is not exhausted",
        "semantic_guard_blocked",
        ("c1", "c2"),
    ),
    "dropped-negation": Case(
        "HikariPool-1 connections are available [c2].", "connections are available", "semantic_guard_blocked", ("c2",)
    ),
    "dropped-negation-beside-another-negation": Case(
        "HikariPool-1 connections are available, no error [c2].",
        "connections are available",
        "semantic_guard_blocked",
        ("c2",),
    ),
    "invented-causal-link": Case(
        "The connection pool exhausted because of a slow query [c1].",
        "because of a slow query",
        "semantic_guard_blocked",
    ),
    "causal-link-between-facts": Case(
        "HikariPool-1 requests timed out because the connection pool exhausted [c1][c2].",
        "timed out because the connection pool",
        "semantic_guard_blocked",
        ("c1", "c2"),
    ),
    "invented-quote": Case('The log says "database host on fire" [c1].', "database host on fire", "ungrounded_token"),
    "invented-camel-case-identifier": Case(
        "HikariPool-1 was closed by PoolKillerDaemon [c1].", "PoolKillerDaemon", "ungrounded_token"
    ),
    "wrong-metric": Case(
        "The gc_pause_ms metric shows the connection pool exhausted [c1].",
        "gc_pause_ms metric shows",
        "ungrounded_token",
    ),
    "wrong-table": Case(
        "The deployments table shows the connection pool exhausted [c1].", "deployments table", "ungrounded_token"
    ),
    # Citations that are not what they claim.
    "phantom-marker": Case(
        "HikariPool-1 was restarted by the operator [c7].", "restarted by the operator", "phantom_marker", ("c7",)
    ),
    "markers-differ-from-cited-ids": Case(
        "HikariPool-1 was restarted twice [c1][c2].", "restarted twice", "citations_mismatch"
    ),
    "uncited-identifier": Case(
        f"{GROUNDED} The replica db-replica-03 went down at 10:47.", "db-replica-03", "uncited_finding"
    ),
    "uncited-finding-from-evidence-words": Case(
        f"{GROUNDED} Requests timed out and the pool was exhausted.",
        "Requests timed out and the pool was exhausted",
        "semantic_guard_blocked",
    ),
    "uncited-heading": Case(
        f"# The database host caught fire\n\n{GROUNDED}", "database host caught fire", "semantic_guard_blocked"
    ),
    # Markup that would show text no sentence check ties to a citation.
    "foreign-link": Case(
        f"{GROUNDED} See [the database host caught fire](https://evil.example/fire).",
        "database host caught fire",
        "link",
    ),
    "local-link-target": Case(
        "[The connection pool is exhausted](/diagnosis/the-database-host-caught-fire) [c1].",
        "the-database-host-caught-fire",
        "link",
    ),
    "link-title": Case(
        '[The connection pool is exhausted](/diagnosis "the database host caught fire") [c1].',
        "database host caught fire",
        "link",
    ),
    "inline-html": Case(
        "The connection pool is exhausted <span>because the host caught fire</span> [c1].",
        "because the host caught fire",
        "raw_html",
    ),
    "html-comment": Case(
        f"{GROUNDED}\n\n<!-- the database host caught fire -->", "database host caught fire", "raw_html"
    ),
    "fenced-code-block": Case(
        f"{GROUNDED}\n\n```\nthe database host caught fire\n```", "database host caught fire", "code_block"
    ),
    "indented-code-block": Case(
        f"{GROUNDED}\n\n    the database host caught fire", "database host caught fire", "code_block"
    ),
    "image-alt": Case(
        f"{GROUNDED} ![the database host caught fire](/static/fire.png)", "database host caught fire", "image"
    ),
    "image-src": Case(f"{GROUNDED} ![pool](https://evil.example/caught-fire.png)", "caught-fire.png", "image"),
    "footnote": Case(f"{GROUNDED}[^1]\n\n[^1]: the database host caught fire", "database host caught fire", "footnote"),
    "link-reference-definition": Case(
        f'{GROUNDED} [details][fire]\n\n[fire]: /fire "the database host caught fire"',
        "database host caught fire",
        "link_reference",
    ),
    # The same in Chinese (c3's fact is Chinese, so Chinese prose is not foreign by itself).
    "zh-invented-cause": Case(
        "根本原因是数据库主机着火了 [c3]。", "数据库主机着火了", "semantic_guard_blocked", ("c3",)
    ),
    "zh-wrong-number": Case("HikariPool-1 连接池大小为 50 [c3]。", "连接池大小为 50", "ungrounded_token", ("c3",)),
    "zh-wrong-time": Case("连接池在 10:47 耗尽 [c3]。", "在 10:47 耗尽", "ungrounded_token", ("c3",)),
    "zh-negation": Case("连接池没有耗尽 [c3]。", "连接池没有耗尽", "semantic_guard_blocked", ("c3",)),
    "zh-causal-link": Case("慢查询导致连接池耗尽 [c3]。", "慢查询导致", "semantic_guard_blocked", ("c3",)),
    "zh-invented-quote": Case("日志写着「数据库主机着火」[c3]。", "数据库主机着火", "ungrounded_token", ("c3",)),
    "zh-uncited-identifier": Case(
        "连接池耗尽 (HikariPool-1 active=10/10, waiting=36) [c3]。主机 payment-service-84d5b7c9f-v7k4s 宕机。",
        "84d5b7c9f-v7k4s 宕机",
        "uncited_finding",
        ("c3",),
    ),
    "zh-foreign-link": Case(
        "连接池耗尽 [c3]。详情见 [数据库主机着火了](https://evil.example/fire)。", "数据库主机着火了", "link", ("c3",)
    ),
    "zh-raw-html": Case("连接池耗尽 [c3]。<b>数据库主机着火了</b>", "数据库主机着火了", "raw_html", ("c3",)),
    # A scripted SemanticGuard: it catches what tokens cannot, fails closed, and cannot overrule the policy.
    "scripted-guard-blocks-invented-cause": Case(
        "The database host of payment-service caught fire [c1].",
        "caught fire",
        "semantic_guard_blocked",
        guard=GUARD_BLOCKS,
    ),
    "scripted-guard-blocks-swapped-numbers": Case(
        "HikariPool-1 had 36 active connections and 10 waiting [c1].",
        "36 active connections",
        "semantic_guard_blocked",
        guard=GUARD_BLOCKS,
    ),
    "scripted-guard-blocks-zh-negation": Case(
        "连接池没有耗尽 [c3]。", "连接池没有耗尽", "semantic_guard_blocked", ("c3",), guard=GUARD_BLOCKS
    ),
    "scripted-guard-times-out": Case(
        "The database host of payment-service caught fire [c1].",
        "caught fire",
        "semantic_guard_failed",
        guard=GUARD_TIMES_OUT,
    ),
    "scripted-guard-releases-a-wrong-number": Case(
        "The HikariPool-1 pool size is 50 connections [c1].",
        "pool size is 50",
        "ungrounded_token",
        guard=GUARD_RELEASES,
    ),
}


# --- Scripts.


def draft(markdown: str, cited: tuple[str, ...]) -> str:
    return json.dumps({"answer_markdown": markdown, "cited_claim_ids": list(cited)}, ensure_ascii=False)


def guard_reply(verdict: str, sentence: str = "") -> str:
    unsupported = [{"sentence": sentence, "reason": "not stated by the cited claims"}] if verdict == "BLOCK" else []
    return json.dumps({"verdict": verdict, "unsupported": unsupported}, ensure_ascii=False)


def script(composer: list[str], semantic_guard: list[object] = ()) -> dict:
    report = {
        "schema": "executor_evidence_v2",
        "claims": [
            {
                "claim_id": claim_id,
                "statement": FACTS[claim_id],
                "bindings": [
                    {
                        "source_invocation_id": "{{inv:1}}",
                        "tool_name": "query_logs",
                        "raw_path": path,
                        "evidence_excerpt": excerpt,
                    }
                    for path, excerpt in paths.items()
                ],
            }
            for claim_id, paths in BINDINGS.items()
        ],
        "no_evidence_reason": None,
        "completed_queries": ["query_logs payment-service ERROR HikariPool-1"],
    }
    verdict = {
        "verdict": "PASS",
        "facts_checked": [
            {"claim_id": claim_id, "fact": fact, "verification": "supported"} for claim_id, fact in FACTS.items()
        ],
        "missing_info": [],
        "evidence_gaps": [],
        "recommended_actions": ["Raise the HikariPool-1 pool size of payment-service"],
    }
    plan = {
        "mode": "NORMAL",
        "hypotheses": ["database connection pool exhausted"],
        "steps": [{"tool": "query_logs", "purpose": "pool errors", "args": LOG_QUERY}],
    }
    return {
        "planner": [json.dumps(plan)],
        "executor": [
            {"tool_calls": [{"name": "query_logs", "arguments": LOG_QUERY}]},
            json.dumps(report, ensure_ascii=False),
        ],
        "verifier": [json.dumps(verdict, ensure_ascii=False)],
        "composer": composer,
        "semantic_guard": list(semantic_guard),
    }


def guard_replies(case: Case) -> list[object]:
    return {
        OFFLINE: [],
        GUARD_BLOCKS: [guard_reply("BLOCK", case.draft)] * 2,
        GUARD_RELEASES: [guard_reply("RELEASE")] * 2,
        GUARD_TIMES_OUT: [{"error": "timeout"}] * 2,
    }[case.guard]


# --- Running and reading a run.


@pytest.fixture(autouse=True)
def demo_pack():
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())


@pytest.fixture
def diagnose(owner, tmp_path, django_capture_on_commit_callbacks):
    """Run ``script`` like the chat does; on-commit callbacks run, so the SSE events are stored."""

    def run(script_data: dict) -> DiagnosisRun:
        path = tmp_path / "script.json"
        path.write_text(json.dumps(script_data, ensure_ascii=False), encoding="utf-8")
        with django_capture_on_commit_callbacks(execute=True):
            created = submission.run_create(user=owner, message=QUESTION)
            tasks.execute_run.apply(args=(str(created.pk),), kwargs={"provider": "scripted", "script_path": str(path)})
        return DiagnosisRun.objects.get(pk=created.pk)

    return run


def public_surfaces(run: DiagnosisRun, client, owner) -> dict[str, str]:
    """Everything a reader can reach, as text."""
    client.force_login(owner)
    trace = client.get(f"/api/diagnosis/{run.session_id}/trace?runId={run.pk}")
    page = client.get(f"/?session={run.session_id}")
    assert trace.status_code == 200 and page.status_code == 200
    events = stored_events(run.pk)
    [content] = [event.data for event in events if event.type == "content"]
    return {
        "final_answer": run.final_answer,
        "conclusion": run.conclusion,
        "SSE content event": event_text(content),
        "SSE events": "\n".join(event_text(event.data) for event in events),
        "Trace API": trace.content.decode(),
        "chat page": page.content.decode(),
    }


def event_text(data: str) -> str:
    """A stored event's raw text, and its payload decoded."""
    payload = data
    while isinstance(payload, str):
        try:
            payload = json.loads(payload)
        except ValueError:
            break
    return f"{data}\n{json.dumps(payload, ensure_ascii=False)}"


def event_payload(run: DiagnosisRun, event_type: str) -> dict:
    [event] = [event for event in stored_events(run.pk) if event.type == event_type]
    return payload(event)


def forms(text: str) -> set[str]:
    """``text`` as each surface may encode it (JSON escapes, HTML escapes)."""
    return {
        text,
        json.dumps(text)[1:-1],
        json.dumps(text, ensure_ascii=False)[1:-1],
        html.escape(text),
        html.escape(text, quote=False),
    }


def leaks(surfaces: dict[str, str], text: str) -> list[str]:
    return [name for name, body in surfaces.items() if any(form in body for form in forms(text))]


def composer_audit(run: DiagnosisRun) -> str:
    """The restricted record of the composer's drafts: raw replies, their drafts decoded, and the findings."""
    parts = []
    for audit in AgentReasoningAudit.objects.filter(run=run, step__role="composer"):
        parts += [audit.assistant_text, json.dumps(audit.findings, ensure_ascii=False)]
        with contextlib.suppress(ValueError, TypeError, KeyError):
            parts.append(json.loads(audit.assistant_text)["answer_markdown"])
    return "\n".join(parts)


def release_decisions(run: DiagnosisRun) -> list[dict]:
    events = DiagnosisTraceEvent.objects.filter(run=run, kind="RELEASE", name="release_decided").order_by("seq")
    return [event.details for event in events]


# --- The corpus.


def test_the_corpus_is_large_enough():
    assert len(CASES) >= 30
    assert sum(name.startswith("zh-") for name in CASES) >= 6
    assert all(case.invented in case.draft for case in CASES.values())
    assert not any(
        case.invented in FACTS[claim] or case.invented in HONEST for case in CASES.values() for claim in FACTS
    )


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_an_invented_draft_never_reaches_a_reader(case, diagnose, settings, client, owner):
    settings.SEMANTIC_GUARD_PROVIDER = "offline" if case.guard == OFFLINE else ""
    invented_draft = draft(case.draft, case.cited)

    run = diagnose(script([invented_draft, invented_draft], guard_replies(case)))

    assert run.status == "SUCCESS"
    surfaces = public_surfaces(run, client, owner)
    leaked = leaks(surfaces, case.invented)
    assert not leaked, f"{case.invented!r} reached {leaked}; release decisions: {release_decisions(run)}"
    assert run.degraded is True
    assert run.orchestration_trace["termination_reason"].startswith("fallback_composer_")
    assert FALLBACK_HEADING in run.final_answer and FALLBACK_HEADING in surfaces["chat page"]
    # The blocked drafts are kept, but only in the restricted audit ...
    assert case.invented in composer_audit(run)
    # ... and the timeline says why by rule name, without the draft's words.
    decisions = release_decisions(run)
    assert [details["decision"] for details in decisions] == [BLOCKED, BLOCKED]
    for details in decisions:
        assert set(details) == {"attempt", "decision", "rule", "rules", "policy_version"}
        assert case.rule in (details["rule"], *details["rules"])
        assert not any(form in json.dumps(details, ensure_ascii=False) for form in forms(case.invented))
    if case.guard == GUARD_RELEASES:  # the policy blocked first: the guard's RELEASE was never even asked for
        assert not AgentStep.objects.filter(run=run, role="semantic_guard").exists()


# --- Controls: the guard is not simply blocking everything.


def test_an_honest_draft_is_released_unchanged(diagnose, settings):
    settings.SEMANTIC_GUARD_PROVIDER = "offline"

    run = diagnose(script([draft(HONEST, ("c1", "c2"))]))  # no scripted guard reply: a review is the offline guard's

    assert (run.status, run.degraded) == ("SUCCESS", False)
    assert run.final_answer == HONEST
    assert run.orchestration_trace["termination_reason"] == "composer_completed"
    assert [details["decision"] for details in release_decisions(run)] == [RELEASED]
    assert AgentStep.objects.filter(run=run, role="semantic_guard", outcome="COMPLETED").count() == 1
    content = event_payload(run, "content")
    assert content["markdown"] == HONEST and content["degraded"] is False


def test_a_blocked_first_draft_gives_way_to_an_honest_retry(diagnose, settings, client, owner):
    settings.SEMANTIC_GUARD_PROVIDER = "offline"
    invented = CASES["invented-cause"]

    run = diagnose(script([draft(invented.draft, invented.cited), draft(HONEST, ("c1", "c2"))]))

    assert (run.status, run.degraded, run.final_answer) == ("SUCCESS", False, HONEST)
    assert [details["decision"] for details in release_decisions(run)] == [BLOCKED, RELEASED]
    assert leaks(public_surfaces(run, client, owner), invented.invented) == []
    assert invented.invented in composer_audit(run)
