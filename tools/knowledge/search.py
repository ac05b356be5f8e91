"""``search_knowledge``: the canonical ``lookup_knowledge`` payload for a query.

Evidence threshold. A chunk is evidence when its BM25 score is positive and its document holds enough of the
query: query terms carrying at least ``MIN_QUERY_COVERAGE`` of the query's idf weight, or, when at least
``MANY_MATCHED_TERMS`` distinct query terms occur in it, ``MIN_COVERAGE_WITH_MANY_MATCHES``. A term the
corpus never saw weighs most, so "zookeeper session expired" against a knowledge base that only knows Oracle
sessions is ``no_evidence``; a long question in natural words ("why are product pages served ... returning
504") is mostly unseen filler, and its many matched terms say that the runbook is about it. A raw BM25 score
cannot be the threshold: it is unbounded and its scale moves with the corpus, while coverage means the same
at ten chunks and at ten thousand. The values are calibrated on the shipped scenario packs (their questions
and off-topic ones, see ``docs/knowledge.md``).

With dense scores on, a chunk is also evidence when its cosine similarity reaches
``dense.MIN_DENSE_SIMILARITY``; the lexical and dense rankings are fused by RRF. When nothing clears, the
answer is ``no_evidence`` with no chunks: a normal answer, not an error.

Payload: ``{"evidence_status": "ok"|"no_evidence", "chunks": [{"document_id", "chunk_id", "title", "text",
"score"}]}``, best first, at most ``top_k`` (clamped to 1..``MAX_TOP_K``) chunks, one per distinct text
(``text_sha256``: a paragraph pasted into two runbooks is returned once, from the better-ranked chunk).
``title`` is the chunk's heading path, document title first; ``score`` is the BM25 score, or the RRF score
when dense scores are on, rounded to ``SCORE_DECIMALS``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from config.run_scope import read_once
from tools.knowledge import dense
from tools.knowledge.glossary import gloss
from tools.knowledge.index import INDEX, Snapshot
from tools.knowledge.tokenize import query_terms

MAX_TOP_K = 10
MIN_QUERY_COVERAGE = 0.3
MANY_MATCHED_TERMS = 3
MIN_COVERAGE_WITH_MANY_MATCHES = 0.15
MAX_QUERY_CHARS = 2000
SCORE_DECIMALS = 4


def search_knowledge(query: str, top_k: int, *, deadline: float | None = None) -> dict[str, Any]:
    """The best distinct chunks for ``query``, or ``no_evidence``; reads the committed knowledge base.
    ``ToolTimeout`` when an embedding request would run past ``deadline`` (the tool call's)."""
    top_k = min(max(top_k, 1), MAX_TOP_K)
    # A lone surrogate (a ``\ud800`` escape in a model's JSON) is no character: no embedding request carries it.
    query = query.encode("utf-8", "ignore").decode().strip()[:MAX_QUERY_CHARS]
    if not query:
        return _payload([])
    embedder = dense.configured_embedder()
    # A run searches one version of the knowledge base: its revision is asked at its first search only.
    snapshot = read_once(
        f"knowledge:{embedder.name if embedder else ''}", lambda: INDEX.snapshot(embedder, deadline=deadline)
    )
    chunks: list[dict[str, Any]] = []
    seen_texts: set[str] = set()
    for position, score in _ranked(snapshot, query, embedder, deadline):
        chunk = snapshot.chunks[position]
        if chunk.text_sha256 in seen_texts:
            continue
        seen_texts.add(chunk.text_sha256)
        chunks.append(
            {
                "document_id": chunk.document_id,
                "chunk_id": chunk.chunk_id,
                "title": chunk.title,
                "text": chunk.text,
                "score": round(score, SCORE_DECIMALS),
            }
        )
        if len(chunks) == top_k:
            break
    return _payload(chunks)


def _payload(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"evidence_status": "ok" if chunks else "no_evidence", "chunks": chunks}


def _ranked(
    snapshot: Snapshot, query: str, embedder: dense.Embedder | None, deadline: float | None
) -> list[tuple[int, float]]:
    """Positions of the chunks that clear the threshold with their scores, best first."""
    if not snapshot.chunks:
        return []
    match = snapshot.lexical(query_terms(query), gloss(query))
    clears = (match.scores > 0) & (
        (match.coverage >= MIN_QUERY_COVERAGE)
        | ((match.matched_terms >= MANY_MATCHED_TERMS) & (match.coverage >= MIN_COVERAGE_WITH_MANY_MATCHES))
    )
    order = np.argsort(-match.scores, kind="stable")
    lexical = [int(i) for i in order if clears[i]]
    if embedder is None:
        return [(position, float(match.scores[position])) for position in lexical]
    similarities = snapshot.similarities(embedder.embed([query], deadline=deadline)[0])
    order = np.argsort(-similarities, kind="stable")
    semantic = [int(i) for i in order if similarities[i] >= dense.MIN_DENSE_SIMILARITY]
    return dense.reciprocal_rank_fusion([lexical, semantic])
