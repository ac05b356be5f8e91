"""Dense scores: RRF fusion, a deterministic fake embedder through search, the OpenAI-compatible client and its
deadline against the loopback fake server."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

import numpy as np
import pytest
from django.test import override_settings

from tests.support.fake_openai import FakeOpenAIServer, FakeResponse, RecordedRequest, trickle
from tests.tools.knowledge.conftest import CACHE_RUNBOOK
from tools.knowledge import dense
from tools.knowledge.dense import (
    ENVELOPE_BYTES,
    RESPONSE_BYTES_PER_TEXT,
    EmbeddingUnavailable,
    reciprocal_rank_fusion,
    unit_rows,
)
from tools.knowledge.index import INDEX
from tools.knowledge.search import search_knowledge
from tools.models import InvocationStatus, ToolInvocation

OUTAGE_RUNBOOK = "# Checkout outage\n\nWhen the checkout API is down, fail over to the standby region.\n"
# "the checkout service is down": no word in common with the runbook, nor one the glossary reads in English.
CHINESE_OUTAGE_QUERY = "结账服务挂了"


class ConceptEmbedder:
    """A deterministic stand-in for an embedding model: one dimension per concept, in any language."""

    name = "concepts"
    CONCEPTS = (
        ("down", "outage", "宕机", "不可用", "挂了"),
        ("checkout", "结算", "结账"),
        ("evict", "maxmemory", "驱逐"),
        ("disk", "磁盘"),
    )

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str], *, deadline: float | None = None) -> np.ndarray:
        self.calls.append(list(texts))
        rows = [[sum(text.lower().count(word) for word in words) for words in self.CONCEPTS] for text in texts]
        return unit_rows(np.asarray(rows, dtype=np.float32))


@pytest.fixture
def embedder(monkeypatch) -> ConceptEmbedder:
    """The fake model, with none of its vectors kept by the process's index from another test."""
    fake = ConceptEmbedder()
    monkeypatch.setattr(dense, "configured_embedder", lambda: fake)
    monkeypatch.setattr(INDEX, "_vectors", {})
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


@override_settings(
    EMBEDDING_MODEL="nomic-embed-text", LLM_BASE_URL="http://127.0.0.1:9/v1", EMBEDDING_TIMEOUT_SECONDS=2
)
def test_it_refuses_a_model_it_cannot_reach_with_a_configuration_error(ingest):
    ingest(OUTAGE_RUNBOOK)
    with pytest.raises(
        EmbeddingUnavailable, match=r"^EMBEDDING_MODEL: nomic-embed-text@http://127\.0\.0\.1:9/v1 cannot"
    ):
        search_knowledge("outage", top_k=3)


def concept_embeddings(request: RecordedRequest) -> FakeResponse:
    """An OpenAI-compatible ``/v1/embeddings`` answer, computed by the concept embedder."""
    assert request.path == "/v1/embeddings"
    vectors = ConceptEmbedder().embed(request.json["input"])
    data = [
        {"object": "embedding", "index": index, "embedding": vector.tolist()} for index, vector in enumerate(vectors)
    ]
    usage = {"prompt_tokens": 1, "total_tokens": 1}
    return FakeResponse(body={"object": "list", "model": request.json["model"], "data": data, "usage": usage})


@pytest.fixture
def endpoint() -> Iterator[FakeOpenAIServer]:
    """The loopback OpenAI-compatible server, configured as the embedding model's endpoint."""
    with (
        FakeOpenAIServer() as server,
        override_settings(EMBEDDING_MODEL="concepts", LLM_BASE_URL=server.base_url, LLM_API_KEY=""),
    ):
        yield server


@pytest.fixture
def short_deadline(settings) -> None:
    settings.EMBEDDING_TIMEOUT_SECONDS = 0.5


def test_it_fuses_dense_scores_from_an_openai_compatible_endpoint(ingest, endpoint):
    document = ingest(OUTAGE_RUNBOOK)
    ingest(CACHE_RUNBOOK)
    endpoint.enqueue(concept_embeddings, concept_embeddings)  # the chunks, then the query
    payload = search_knowledge(CHINESE_OUTAGE_QUERY, top_k=3)
    assert [chunk["document_id"] for chunk in payload["chunks"]] == [str(document.id)]
    assert [request.json["input"] for request in endpoint.requests][1] == [CHINESE_OUTAGE_QUERY]


def test_it_retries_a_failed_request_once_within_its_deadline(ingest, endpoint):
    ingest(OUTAGE_RUNBOOK)
    # The SDK obeys the server's short retry-after-ms instead of its own backoff of about half a second.
    unavailable = FakeResponse(status=503, headers={"retry-after-ms": "10"})
    endpoint.enqueue(unavailable, concept_embeddings, concept_embeddings)
    assert search_knowledge(CHINESE_OUTAGE_QUERY, top_k=3)["evidence_status"] == "ok"
    assert len(endpoint.requests) == 3


def ragged_embeddings(request: RecordedRequest) -> FakeResponse:
    """Vectors of two lengths: an endpoint serving two models behind one name, or a broken one."""
    data = [
        {"object": "embedding", "index": index, "embedding": [1.0] * (3 + index % 2)}
        for index in range(len(request.json["input"]))
    ]
    return FakeResponse(body={"object": "list", "model": request.json["model"], "data": data, "usage": {}})


def test_vectors_of_different_dimensions_are_an_unavailable_embedder_not_a_crash(ingest, endpoint):
    ingest(OUTAGE_RUNBOOK)
    ingest(CACHE_RUNBOOK)
    endpoint.enqueue(ragged_embeddings)

    with pytest.raises(EmbeddingUnavailable, match="returned vectors of different dimensions"):
        search_knowledge("outage", top_k=3)


STALLS = {
    "no answer": FakeResponse(delay_seconds=600),
    # Headers at once, then a byte every 0.1 s: the HTTP client's read timeout never fires.
    "a trickled body": trickle(seconds_per_byte=0.1),
}


# The test's own bound, far above the deadline: without one the SDK would wait minutes, or for ever.
@pytest.mark.timeout(30)
@pytest.mark.parametrize("stall", STALLS.values(), ids=STALLS.keys())
def test_it_gives_up_on_a_stalled_endpoint_at_its_deadline(ingest, endpoint, short_deadline, stall):
    ingest(OUTAGE_RUNBOOK)
    endpoint.enqueue(stall, stall)
    expected = r"cannot embed: no whole response within 0\.5 s \(EMBEDDING_TIMEOUT_SECONDS\)$"
    with pytest.raises(
        EmbeddingUnavailable, match=r"^EMBEDDING_MODEL: concepts@http://127\.0\.0\.1:\d+/v1 " + expected
    ):
        search_knowledge("outage", top_k=3)


@pytest.mark.timeout(30)
def test_it_fails_the_lookup_call_rather_than_answer_bm25_only_when_the_endpoint_stalls(
    ingest, endpoint, short_deadline, harness
):
    """By design a configured embedding model that cannot answer fails the tool call (the run goes on and the
    model reads why), instead of quietly returning lexical hits the operator did not ask for."""
    ingest(OUTAGE_RUNBOOK)
    endpoint.enqueue(STALLS["no answer"])

    result = harness.call("lookup_knowledge", {"query": "checkout outage", "top_k": 3})

    invocation = ToolInvocation.objects.get(pk=result.invocation_id)
    assert (invocation.status, invocation.error_code) == (InvocationStatus.FAILED, "embedding_unavailable")
    assert (invocation.payload_bytes, invocation.row_count) == (0, 0)
    assert "no whole response within 0.5 s" in result.projection["error"]
    assert "chunks" not in result.projection


def slow_concept_embeddings(request: RecordedRequest) -> FakeResponse:
    return replace(concept_embeddings(request), delay_seconds=0.6)


@pytest.mark.timeout(60)
def test_a_first_search_of_a_large_base_stops_at_the_calls_deadline_and_the_next_goes_on(
    ingest, endpoint, harness, settings, monkeypatch
):
    """A fresh process embeds every section first: past the tool call's time, the call times out (the run's
    fallback reserve assumes no call outlasts ``TOOL_TIMEOUT_SECONDS``), keeping the batches it has."""
    monkeypatch.setattr(INDEX, "_batch_size", 64)
    # Margins of 0.4 s either way: a loaded machine (both test passes at once) must not move a batch across.
    settings.TOOL_TIMEOUT_SECONDS = 1.0
    sections = "\n\n".join(f"## Step {index}\n\nThe checkout outage note number {index}." for index in range(200))
    ingest(f"# Checkout outage\n\n{sections}\n")
    endpoint.enqueue(*[slow_concept_embeddings] * 20)

    first = harness.call("lookup_knowledge", {"query": "checkout outage", "top_k": 3})

    # One batch of 64 sections answered in 0.6 s, the next one cut at the call's 1 s: not all four batches.
    assert (first.status, first.error_code) == (InvocationStatus.FAILED, "timeout")
    assert ToolInvocation.objects.get(pk=first.invocation_id).latency_ms < 2000
    assert [len(request.json["input"]) for request in endpoint.requests] == [64, 64]
    later = [harness.call("lookup_knowledge", {"query": "checkout outage", "top_k": 3}) for _ in range(4)]
    # Each later call goes on from the batches kept: 64, 64, 8 sections, then the query alone.
    assert [result.status for result in later][-1] == InvocationStatus.READY


def test_a_lone_surrogate_in_the_query_reaches_no_embedding_request(ingest, endpoint):
    ingest(OUTAGE_RUNBOOK)
    endpoint.enqueue(concept_embeddings, concept_embeddings)

    payload = search_knowledge("checkout \ud800outage", top_k=3)

    assert payload["evidence_status"] == "ok"
    assert endpoint.requests[-1].json["input"] == ["checkout outage"]


def embeddings_at_10ms_a_text(request: RecordedRequest) -> FakeResponse:
    return replace(concept_embeddings(request), delay_seconds=0.01 * len(request.json["input"]))


@pytest.mark.timeout(60)
def test_an_embedder_slower_per_batch_than_a_call_may_take_still_gets_the_base_embedded(
    ingest, endpoint, harness, settings, monkeypatch
):
    """64 sections take 0.64 s, a call 0.5 s: a call cut before its first batch halves the next one's."""
    monkeypatch.setattr(INDEX, "_batch_size", 64)
    settings.TOOL_TIMEOUT_SECONDS = 0.5
    sections = "\n\n".join(f"## Step {index}\n\nThe checkout outage note number {index}." for index in range(64))
    ingest(f"# Checkout outage\n\n{sections}\n")
    endpoint.enqueue(*[embeddings_at_10ms_a_text] * 20)

    results = [harness.call("lookup_knowledge", {"query": "checkout outage", "top_k": 3}) for _ in range(4)]

    assert results[0].error_code == "timeout"
    assert results[-1].status == InvocationStatus.READY
    assert INDEX._batch_size == 64  # the base embedded, the next rebuild's batches are whole again


def test_an_answer_past_what_its_vectors_can_fill_is_an_unavailable_embedder_not_a_full_memory(ingest, endpoint):
    """A proxy's dump or a broken server: read on, it would fill the worker's memory."""
    ingest(OUTAGE_RUNBOOK)
    endpoint.enqueue(FakeResponse(body=b'{"data": [' + b" " * (RESPONSE_BYTES_PER_TEXT + ENVELOPE_BYTES) + b"]}"))

    with pytest.raises(EmbeddingUnavailable, match="over"):
        search_knowledge("outage", top_k=3)

    assert endpoint.requests[0].headers["accept-encoding"] == "identity"
