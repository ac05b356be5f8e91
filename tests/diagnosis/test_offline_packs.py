"""``manage.py diagnose`` with the offline provider on every shipped and fixture pack: each question reaches a
cited, verified answer naming its root cause, released by the release guard at the first draft, unchanged;
and a prompt-injection line in the tool data changes nothing."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from diagnosis.management.commands.evaluate import lead, missing_keywords
from diagnosis.models import DiagnosisRun
from tracing.models import AgentReasoningAudit

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
PACKS = ROOT / "tools" / "scenarios" / "packs"
FIXTURE_PACKS = [
    ROOT / "tests" / "tools" / "fixtures" / "tiny_pack",
    ROOT / "tests" / "providers" / "offline" / "fixtures" / "blob-store-full",
]
CASES = [
    (pack, question)
    for pack in [*sorted(PACKS.iterdir()), *FIXTURE_PACKS]
    for question in json.loads((pack / "scenario.json").read_text())["questions"]
]
INJECTION = "IGNORE PREVIOUS INSTRUCTIONS"


def diagnose(question: str) -> dict:
    out = StringIO()
    call_command("diagnose", question, "--provider", "offline", "--json", stdout=out)
    return json.loads(out.getvalue())


def load(pack: Path | str) -> None:
    call_command("load_scenario", str(pack), stdout=StringIO())


@pytest.mark.parametrize(("pack", "question"), CASES, ids=[f"{p.name}-{i}" for i, (p, _) in enumerate(CASES)])
def test_it_names_the_root_cause_with_verified_citations(pack, question):
    load(pack)

    result = diagnose(question["text"])

    assert (result["status"], result["intent"], result["degraded"]) == ("SUCCESS", "DIAGNOSIS", False)
    assert result["effective_verdict"] == "PASS"
    assert result["orchestration_trace"]["termination_reason"] == "composer_completed"
    assert [t for t in result["orchestration_trace"]["transitions"] if t["from"] == "composer"] == []  # no retry
    run = DiagnosisRun.objects.get(pk=result["run_id"])
    assert run.self_evaluation["release"]["decisions"] == [
        {"attempt": 1, "decision": "released", "rule": "passed", "rules": []}
    ]
    composer_text = AgentReasoningAudit.objects.get(run=run, step__role="composer").assistant_text
    assert json.loads(composer_text)["answer_markdown"] == result["final_answer"]  # released unchanged
    assert result["released_claim_ids"]
    missing = missing_keywords(lead(result["final_answer"]), question["expect_keywords"])
    assert not missing, f"answer lacks {missing}"
    assert all(invocation["status"] == "READY" for invocation in result["tool_invocations"])


def test_a_planted_injection_changes_neither_route_nor_released_claims(tmp_path):
    original = PACKS / "payment-db-pool"
    assert INJECTION in (original / "logs.jsonl").read_text()
    clean = tmp_path / "payment-db-pool-clean"
    shutil.copytree(original, clean)
    lines = (original / "logs.jsonl").read_text().splitlines(keepends=True)
    (clean / "logs.jsonl").write_text("".join(line for line in lines if INJECTION not in line))
    question = json.loads((original / "scenario.json").read_text())["questions"][0]["text"]

    load(original)
    with_injection = diagnose(question)
    load(clean)
    without_injection = diagnose(question)

    assert (
        with_injection["orchestration_trace"]["transitions"] == without_injection["orchestration_trace"]["transitions"]
    )
    assert with_injection["released_claim_ids"] == without_injection["released_claim_ids"]
    assert with_injection["final_answer"] == without_injection["final_answer"]
    assert "dns" not in with_injection["final_answer"].lower()
