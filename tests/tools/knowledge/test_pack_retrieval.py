"""Retrieval quality: every question of every scenario pack finds its runbook in lookup_knowledge's top 3.

Each question names its runbook with ``"expect_document": "<knowledge file name>"``; without it, the pack's
first knowledge file whose name starts with ``runbook`` is expected. The shipped packs are read from
``tools/scenarios/packs/``, and ``fixtures/packs/`` holds a small pack that exercises both conventions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tools.knowledge.ingest import prepare_documents, replace_scenario_documents
from tools.knowledge.search import search_knowledge
from tools.models import KnowledgeDocument

TOP = 3
PACKS = sorted(path.parent for path in (ROOT / "tools" / "scenarios" / "packs").glob("*/scenario.json"))
FIXTURE_PACKS = sorted(path.parent for path in (Path(__file__).parent / "fixtures" / "packs").glob("*/scenario.json"))


def _expected_document(question: dict, knowledge: list[Path]) -> str:
    if "expect_document" in question:
        return question["expect_document"]
    runbooks = [path.name for path in knowledge if path.name.startswith("runbook")]
    assert runbooks, f"question {question['text']!r} names no expect_document and the pack has no runbook*.md"
    return runbooks[0]


@pytest.mark.django_db
@pytest.mark.parametrize("pack", PACKS + FIXTURE_PACKS, ids=lambda pack: pack.name)
def test_it_finds_each_question_s_runbook_in_the_top_3(pack):
    manifest = json.loads((pack / "scenario.json").read_text(encoding="utf-8"))
    questions = manifest.get("questions") or []
    assert questions, f"{pack.name}: scenario.json has no questions"
    knowledge = sorted((pack / "knowledge").glob("*.md"))
    replace_scenario_documents(
        manifest["name"], prepare_documents([(path.name, path.read_text(encoding="utf-8")) for path in knowledge])
    )
    ids = {filename: str(pk) for filename, pk in KnowledgeDocument.objects.values_list("filename", "id")}
    misses = []
    for question in questions:
        expected = _expected_document(question, knowledge)
        assert expected in ids, f"{pack.name}: expect_document {expected!r} is not a knowledge file of the pack"
        found = search_knowledge(question["text"], top_k=TOP)["chunks"]
        if ids[expected] not in [chunk["document_id"] for chunk in found]:
            misses.append(f"{question['text']!r}: expected {expected}, got {[chunk['title'] for chunk in found]}")
    assert not misses, f"{pack.name}: runbook not in the top {TOP}:\n" + "\n".join(misses)
