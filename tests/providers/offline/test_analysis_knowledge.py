"""Runbook passages: the one that explains the errors, and its remediation steps."""

from __future__ import annotations

from diagnosis.providers.offline.analysis.knowledge import Chunk, chunks_of, explanation, remediation
from diagnosis.providers.offline.conversation import ToolExchange
from diagnosis.providers.offline.text import terms

EVIDENCE = terms("ledger-db FATAL: sorry, too many clients already (max_connections=N)")


def _chunk(index: int, document: str, title: str, text: str) -> Chunk:
    return Chunk("inv", f"$.chunks[{index}].text", title, document, text)


CHUNKS = [
    _chunk(0, "dns", "Runbook: DNS failures > Symptoms", "Lookups fail with NXDOMAIN for every service."),
    _chunk(
        1,
        "db",
        "Runbook: ledger-db connections > How to confirm",
        "1. Open the dashboard first.\n2. ledger-db logs `FATAL: sorry, too many clients already` when max_connections is reached.",
    ),
    _chunk(2, "db", "Runbook: ledger-db connections > How to confirm", "1. Restart nothing yet; read the pool stats."),
    _chunk(
        3,
        "db",
        "Runbook: ledger-db connections > Mitigation",
        "- Roll back the pool change.\n- Scale ledger-api in.\n- Watch it.",
    ),
]


def test_the_explanation_is_the_chunk_sharing_most_words_with_the_errors():
    passage = explanation(CHUNKS, EVIDENCE)
    assert passage is not None and passage.chunk is CHUNKS[1]
    assert passage.sentences == [
        "ledger-db logs `FATAL: sorry, too many clients already` when max_connections is reached."
    ]


def test_no_shared_word_means_no_explanation():
    assert explanation(CHUNKS[:1], EVIDENCE) is None


def test_remediation_prefers_the_documents_fix_section():
    passage = remediation(CHUNKS, "db")
    assert passage is not None and passage.chunk is CHUNKS[3]
    assert passage.sentences == ["Roll back the pool change.", "Scale ledger-api in."]


def test_a_clipped_chunk_loses_its_cut_sentence():
    result = {
        "invocation_id": "inv",
        "status": "READY",
        "chunks": [
            {
                "raw_path": "$.chunks[0].text",
                "title": "T",
                "document_id": "d",
                "text": "Whole line.\nCut off in the mid…",
            }
        ],
    }
    [chunk] = chunks_of([ToolExchange("call_1", "lookup_knowledge", {}, result)])
    assert chunk.text == "Whole line."
