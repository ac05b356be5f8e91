"""lookup_knowledge through the harness: the wrapper around the knowledge base's search."""

from __future__ import annotations

import time

import pytest

from tools.jsonpath import resolve
from tools.models import InvocationStatus, ToolInvocation
from tools.store import load_verified_payload
from tools.tool import CallContext

CHUNKS = [
    {
        "document_id": "d1",
        "chunk_id": f"c{index}",
        "title": "Runbook",
        "text": f"chunk {index} " + "x" * 2000,
        "score": 1.5,
    }
    for index in range(3)
]


@pytest.fixture
def searches(monkeypatch) -> list[tuple[str, int]]:
    calls: list[tuple[str, int]] = []

    def search_knowledge(query: str, top_k: int, *, deadline: float | None = None) -> dict:
        calls.append((query, top_k))
        chunks = CHUNKS[:top_k] if "pool" in query else []
        return {"evidence_status": "ok" if chunks else "no_evidence", "chunks": chunks}

    monkeypatch.setattr("tools.knowledge.search.search_knowledge", search_knowledge)
    return calls


@pytest.mark.parametrize(
    "arguments",
    [{"query": "", "top_k": 3}, {"query": "pool", "top_k": 0}, {"query": "pool", "top_k": 11}, {"query": "pool"}],
)
def test_it_blocks_arguments_outside_the_schema(harness, searches, arguments):
    result = harness.call("lookup_knowledge", arguments)

    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, "invalid_arguments")
    assert searches == []


def test_it_passes_query_and_top_k_to_the_search(harness, run, searches):
    result = harness.call("lookup_knowledge", {"query": "connection pool", "top_k": 2})

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert searches == [("connection pool", 2)]
    assert payload == {"evidence_status": "ok", "chunks": CHUNKS[:2]}
    assert ToolInvocation.objects.get(pk=result.invocation_id).row_count == 2


def test_it_projects_chunks_with_the_path_of_their_text(harness, run, searches):
    result = harness.call("lookup_knowledge", {"query": "pool", "top_k": 3})

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert result.projection["evidence_status"] == "ok"
    for view in result.projection["chunks"]:
        full_text = resolve(payload, view["raw_path"])
        assert full_text.startswith(view["text"].rstrip("…"))
        assert len(view["text"]) == 1200


def test_it_returns_no_evidence_as_a_normal_answer(harness, searches):
    result = harness.call("lookup_knowledge", {"query": "quantum flux", "top_k": 3})

    assert result.status == InvocationStatus.READY
    assert result.projection["evidence_status"] == "no_evidence"
    assert result.projection["chunks"] == []


def test_it_drops_the_weakest_chunks_to_fit_the_byte_budget(harness, run, searches, settings):
    settings.TOOL_MAX_PAYLOAD_BYTES = 5000

    result = harness.call("lookup_knowledge", {"query": "pool", "top_k": 3})

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert payload["chunks"] == CHUNKS[:2]


def test_it_fails_the_call_when_the_configured_embedding_model_cannot_answer(monkeypatch):
    from tools.definitions.knowledge import handle
    from tools.errors import ToolBackendError
    from tools.knowledge import search
    from tools.knowledge.dense import EmbeddingUnavailable

    def unavailable(query, top_k, *, deadline):
        raise EmbeddingUnavailable("connection refused")

    monkeypatch.setattr(search, "search_knowledge", unavailable)

    with pytest.raises(ToolBackendError) as error:
        handle({"query": "pool", "top_k": 3}, CallContext(deadline=time.monotonic() + 10, max_rows=200))

    assert error.value.code == "embedding_unavailable"
