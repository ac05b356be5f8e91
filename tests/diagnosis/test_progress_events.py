"""The SSE ``status`` event carries, beside the worker's English ``detail``, the values it was written from
(``args``), which the chat page formats in its reader's language; the catalogue the page reads has them."""

from __future__ import annotations

import json
import re

import pytest

from diagnosis.models import ChatSession, DiagnosisRun
from diagnosis.progress import RunProgress
from tests.support.stored_events import payload, stored_events
from tracing.timeline import owned_log

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}


@pytest.mark.parametrize(
    ("values", "detail", "args"),
    [
        ({}, "", {}),
        ({"attempt": 1, "mode": "normal"}, "normal attempt 1", {"attempt": 1, "mode": "normal"}),  # the planner
        ({"attempt": 2}, "attempt 2", {"attempt": 2}),  # the composer and the verifier
        ({"excerpts": 3}, "3 cited excerpts", {"excerpts": 3}),  # the knowledge path
        ({"excerpts": 1}, "1 cited excerpt", {"excerpts": 1}),
    ],
)
def test_a_nodes_status_carries_its_values_and_their_english_line(owner, settings, values, detail, args):
    settings.RUN_EVENT_LINGER_MS = 60_000
    run = DiagnosisRun.objects.create(session=ChatSession.objects.create(owner=owner), query="why?")
    progress = RunProgress(run.pk)
    with owned_log(progress.log):
        progress.status("planner", "started", **values)
        progress.flush()

    [event] = stored_events(run.pk)
    assert payload(event) == {"node": "planner", "phase": "started", "detail": detail, "args": args}


def test_every_status_event_carries_its_values_beside_its_detail(owner, settings):
    settings.RUN_EVENT_LINGER_MS = 60_000
    run = DiagnosisRun.objects.create(session=ChatSession.objects.create(owner=owner), query="why?")
    progress = RunProgress(run.pk)
    with owned_log(progress.log):
        progress.status("planner", "started", attempt=1, mode="normal")
        progress.tool("query_logs", "READY")
        progress.tool("rm -rf /", "BLOCKED")  # a name no tool has is not echoed
        progress.evidence(node="gatekeeper", status="PASS", claims=["c1 verified", "c2 verified"], passed=2)
        progress.semantic(attempt=1, verdict="RELEASE", unsupported=0, guard_version="v1")
        progress.release(
            node="composer", attempt=1, decision="blocked", rule="ungrounded_token", rules=[], policy_version="p"
        )
        progress.node_finished(node="planner", outcome="COMPLETED", reason_code="completed", attempt=1)
        progress.flush()

    events = [payload(event) for event in stored_events(run.pk)]

    assert events == [
        {"node": "planner", "phase": "started", "detail": "normal attempt 1", "args": {"attempt": 1, "mode": "normal"}},
        {
            "node": "executor",
            "phase": "tool",
            "detail": "query_logs READY",
            "args": {"tool": "query_logs", "status": "READY"},
        },
        {
            "node": "executor",
            "phase": "tool",
            "detail": "unknown_tool BLOCKED",
            "args": {"tool": "unknown_tool", "status": "BLOCKED"},
        },
        {
            "node": "gatekeeper",
            "phase": "evidence",
            "detail": "2 of 2 claims verified",
            "args": {"passed": 2, "total": 2},
        },
        {
            "node": "composer",
            "phase": "semantic_guard",
            "detail": "RELEASE",
            "args": {"verdict": "RELEASE", "attempt": 1},
        },
        {
            "node": "composer",
            "phase": "release",
            "detail": "blocked (ungrounded_token)",
            "args": {"decision": "blocked", "rule": "ungrounded_token", "attempt": 1},
        },
        {
            "node": "planner",
            "phase": "finished",
            "detail": "COMPLETED",
            "args": {"outcome": "COMPLETED", "reason_code": "completed", "attempt": 1},
        },
    ]


def catalogue(client, **headers) -> dict[str, object]:
    script = client.get("/jsi18n/", **headers).content.decode()
    match = re.search(r"const newcatalog = (\{.*?\});", script, re.S)
    return json.loads(match.group(1)) if match else {}


def test_the_chinese_javascript_catalogue_has_the_progress_lines_words(client):
    chinese = catalogue(client, **ZH)

    assert chinese["progress phase\x04started"] == "开始"
    assert chinese["planner mode\x04full plan"] == "完整计划"
    assert chinese["%(mode)s, attempt %(attempt)s"] == "%(mode)s，第 %(attempt)s 次尝试"
    assert chinese["tool status\x04ready"] == "就绪"
    assert chinese["%(passed)s of %(total)s claim verified"] == ["已验证 %(passed)s/%(total)s 条论断"]
    assert chinese["node outcome\x04completed"] == "完成"
    assert chinese["Connection lost; reconnecting…"] == "连接已断开，正在重新连接…"
