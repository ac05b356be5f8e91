"""Every shipped pack's questions, diagnosed end to end by the offline roles through the real harness.

The packs' ``expect_keywords`` name the root cause; the offline provider must reach them from the evidence
alone (it knows no pack), with every citation verified and the verdict PASS.
"""

from __future__ import annotations

import json

import pytest

from diagnosis.management.commands.evaluate import lead, missing_keywords
from tests.providers.offline.loop import diagnose
from tools.scenarios.pack import PACKS_DIR, read_pack

SHIPPED = sorted(path for path in PACKS_DIR.iterdir() if (path / "scenario.json").is_file())


def test_there_are_shipped_packs_to_diagnose():
    assert len(SHIPPED) >= 3


@pytest.mark.parametrize("pack", SHIPPED, ids=lambda path: path.name)
def test_it_names_the_root_cause_of_every_question(pack, models, load_pack, new_harness):
    environment = load_pack(pack)
    for question in read_pack(pack).manifest["questions"]:
        result = diagnose(models, new_harness(question["text"]), question["text"], environment)
        answer = result.answer["answer_markdown"].lower()
        missing = missing_keywords(lead(answer), question["expect_keywords"])
        assert missing == [], f"{pack.name}: {question['text']}"
        assert result.gatekeeper.status.value == "PASS", [item for item in result.gatekeeper.checked if not item.passed]
        assert result.effective_verdict == "PASS"
        assert result.released, (result.policy.findings, result.guard["unsupported"])
        cited = json.dumps(result.executor.output).lower() + answer
        assert "ignore previous instructions" not in cited, "tool data is quoted, never obeyed"
