"""Chinese questions through ``manage.py diagnose --provider offline``: a symptom question routes to DIAGNOSIS
with or without a service name and gets a Chinese answer released at the first draft; English stays English."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from diagnosis.models import DiagnosisRun

pytestmark = pytest.mark.django_db

ZH_QUESTION = "支付服务最近很慢，帮我看看是什么原因"
EN_QUESTION = "payment-service p99 latency tripled since 10:05, why?"


@pytest.fixture(autouse=True)
def demo_pack():
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())


def diagnose(question: str) -> dict:
    out = StringIO()
    call_command("diagnose", question, "--provider", "offline", "--json", stdout=out)
    return json.loads(out.getvalue())


def released_at_the_first_draft(result: dict) -> bool:
    run = DiagnosisRun.objects.get(pk=result["run_id"])
    return (
        result["orchestration_trace"]["termination_reason"] == "composer_completed"
        and not [t for t in result["orchestration_trace"]["transitions"] if t["from"] == "composer"]
        and run.self_evaluation["release"]["decisions"]
        == [{"attempt": 1, "decision": "released", "rule": "passed", "rules": []}]
    )


def test_a_chinese_symptom_question_without_a_service_name_is_diagnosed_in_chinese():
    result = diagnose(ZH_QUESTION)

    assert (result["status"], result["intent"], result["degraded"]) == ("SUCCESS", "DIAGNOSIS", False)
    assert result["effective_verdict"] == "PASS"
    assert released_at_the_first_draft(result)
    answer = result["final_answer"]
    assert answer.startswith("## 可能的根本原因\n可能的根本原因是故障开始之前的变更：")
    assert "随后故障从 **payment-service** 开始" in answer and "\n## 时间顺序\n" in answer
    assert "知识库在“" in answer and "”中描述了这一故障" in answer
    assert "\n## 证据\n" in answer and "\n## 建议操作\n" in answer
    assert "connection pool exhausted" in answer  # the evidence is quoted verbatim, not translated
    for english in ("Likely root cause", "## Evidence", "Recommended actions", "in time order", " logged at "):
        assert english not in answer


def test_an_english_question_still_gets_the_identical_english_answer():
    result = diagnose(EN_QUESTION)

    assert (result["status"], result["intent"], result["degraded"]) == ("SUCCESS", "DIAGNOSIS", False)
    assert released_at_the_first_draft(result)
    answer = result["final_answer"]
    assert answer.startswith(
        "## Likely root cause\nThe likely root cause is a change shortly before the failure began: "
    )
    assert "The failure then began in **payment-service** [c1]." in answer
    assert "\n\nThe knowledge base describes this failure in " in answer
    assert "\n\n## Evidence\n- [c1] " in answer and "(supported)" in answer
    assert "\n\n## Recommended actions\n- " in answer
    assert not any("\u4e00" <= char <= "\u9fff" for char in answer)


def test_a_chinese_greeting_gets_the_chinese_help_text():
    result = diagnose("你好")

    assert (result["status"], result["intent"]) == ("SUCCESS", "SYSTEM_CHAT")
    assert result["final_answer"].startswith("你好！我根据证据诊断生产故障。")
