"""Dense scores: RRF fusion, a deterministic fake embedder through search, the OpenAI-compatible client."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
from django.test import override_settings

from tests.tools.knowledge.conftest import CACHE_RUNBOOK
from tools.knowledge import dense
from tools.knowledge.dense import EmbeddingUnavailable, reciprocal_rank_fusion, unit_rows
from tools.knowledge.search import search_knowledge

OUTAGE_RUNBOOK = "# Checkout outage\n\nWhen the checkout API is down, fail over to the standby region.\n"
CHINESE_OUTAGE_QUERY = "结算服务宕机"  # "the checkout service is down": no word in common with the runbook


class ConceptEmbedder:
    """A deterministic stand-in for an embedding model: one dimension per concept, in any language."""

    name = "concepts"
    CONCEPTS = (
        ("down", "outage", "宕机", "不可用"),
        ("checkout", "结算"),
        ("evict", "maxmemory", "驱逐"),
        ("disk", "磁盘"),
    )

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        rows = [[sum(text.lower().count(word) for word in words) for words in self.CONCEPTS] for text in texts]
        return unit_rows(np.asarray(rows, dtype=np.float32))


@pytest.fixture
def embedder(monkeypatch) -> ConceptEmbedder:
    fake = ConceptEmbedder()
    monkeypatch.setattr(dense, "configured_embedder", lambda: fake)
    return fake


def test_it_fuses_rankings_by_reciprocal_rank():
    fused = reciprocal_rank_fusion([[1, 2, 3], [3, 1]], k=60)
    assert [item for item, _ in fused] == [1, 3, 2]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[1][1] == pytest.approx(1 / 63 + 1 / 61)
    assert fused[2][1] == pytest.approx(1 / 62)


def test_it_ranks_an_item_found_by_both_retrievers_above_one_found_once():
    fused = reciprocal_rank_fusion([[7, 8], [8]])
    assert [item for item, _ in fused] == [8, 7]


def test_it_keeps_first_seen_order_on_ties_and_fuses_nothing_to_nothing():
    assert [item for item, _ in reciprocal_rank_fusion([[4], [5]])] == [4, 5]
    assert reciprocal_rank_fusion([[], []]) == []


def test_it_finds_by_meaning_what_bm25_cannot(ingest):
    document = ingest(OUTAGE_RUNBOOK)
    assert search_knowledge(CHINESE_OUTAGE_QUERY, top_k=3)["evidence_status"] == "no_evidence"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dense, "configured_embedder", ConceptEmbedder)
        payload = search_knowledge(CHINESE_OUTAGE_QUERY, top_k=3)
    assert [chunk["document_id"] for chunk in payload["chunks"]] == [str(document.id)]
    assert payload["chunks"][0]["score"] == round(1 / 61, 4)  # RRF: first in the dense ranking only


def test_it_scores_a_chunk_found_both_ways_with_both_ranks(ingest, embedder):
    ingest(OUTAGE_RUNBOOK)
    ingest(CACHE_RUNBOOK)
    payload = search_knowledge("checkout outage fail over", top_k=3)
    assert payload["chunks"][0]["title"] == "Checkout outage"
    assert payload["chunks"][0]["score"] == round(2 / 61, 4)


def test_it_leaves_out_chunks_below_the_dense_similarity_floor(ingest, embedder):
    ingest(CACHE_RUNBOOK)
    assert search_knowledge(CHINESE_OUTAGE_QUERY, top_k=3)["evidence_status"] == "no_evidence"


def test_it_embeds_only_new_chunks_on_a_rebuild(ingest, embedder):
    ingest(OUTAGE_RUNBOOK)
    search_knowledge("outage", top_k=3)
    ingest(CACHE_RUNBOOK)
    embedder.calls.clear()
    search_knowledge("outage", top_k=3)
    chunk_batch, query_batch = embedder.calls
    assert len(chunk_batch) == 2 and all("maxmemory" in text or "evicted_keys" in text for text in chunk_batch)
    assert query_batch == ["outage"]


@override_settings(EMBEDDING_MODEL="nomic-embed-text", LLM_BASE_URL=None)
def test_it_refuses_a_model_without_an_endpoint(ingest):
    ingest(OUTAGE_RUNBOOK)
    with pytest.raises(EmbeddingUnavailable, match=r"^EMBEDDING_MODEL: needs LLM_BASE_URL"):
        search_knowledge("outage", top_k=3)


@override_settings(EMBEDDING_MODEL="nomic-embed-text", LLM_BASE_URL="http://127.0.0.1:9/v1", LLM_TIMEOUT_SECONDS=2)
def test_it_refuses_a_model_it_cannot_reach_with_a_configuration_error(ingest):
    ingest(OUTAGE_RUNBOOK)
    with pytest.raises(
        EmbeddingUnavailable, match=r"^EMBEDDING_MODEL: nomic-embed-text@http://127\.0\.0\.1:9/v1 cannot"
    ):
        search_knowledge("outage", top_k=3)


@pytest.fixture
def embeddings_server() -> Iterator[str]:
    """A local OpenAI-compatible ``/v1/embeddings`` endpoint answering with the concept embedder."""
    model = ConceptEmbedder()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            vectors = model.embed(request["input"])
            body = json.dumps(
                {
                    "object": "list",
                    "model": request["model"],
                    "data": [
                        {"object": "embedding", "index": index, "embedding": vector.tolist()}
                        for index, vector in enumerate(vectors)
                    ],
                    "usage": {"prompt_tokens": 1, "total_tokens": 1},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            """Quiet: the test output is not the place for access logs."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_it_fuses_dense_scores_from_an_openai_compatible_endpoint(ingest, embeddings_server):
    document = ingest(OUTAGE_RUNBOOK)
    ingest(CACHE_RUNBOOK)
    with override_settings(EMBEDDING_MODEL="concepts", LLM_BASE_URL=embeddings_server, LLM_API_KEY=""):
        payload = search_knowledge(CHINESE_OUTAGE_QUERY, top_k=3)
    assert [chunk["document_id"] for chunk in payload["chunks"]] == [str(document.id)]
