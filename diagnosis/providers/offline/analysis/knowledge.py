"""Knowledge analysis: the runbook passage that explains the observed errors, and its remediation steps.

The search tool ranks chunks against whatever query was sent; here chunks are re-ranked against the
*evidence* (the root-cause error templates and the service that logged them), because the passage worth
citing is the one that describes what the logs show, not the one that best echoes the question. Within a
chunk, the sentences sharing most terms with the evidence are cited. Remediation comes from the same
document: the sentences that open with a remediation verb.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from diagnosis.providers.offline.conversation import ToolExchange, result_items
from diagnosis.providers.offline.memo import NO_MEMO, Memo
from diagnosis.providers.offline.text import looks_like_instruction, sentences, terms
from diagnosis.providers.offline.vocabulary import REMEDIATION_TITLE, is_mitigation
from tools.names import ToolName

MIN_EXCERPT_CHARS = 12
MAX_EXCERPT_CHARS = 480
MAX_CAUSE_SENTENCES = 2
MAX_MITIGATION_SENTENCES = 3


@dataclass(frozen=True)
class Chunk:
    invocation_id: str
    raw_path: str
    """Path of the chunk's text, as the projection gave it."""
    title: str
    document_id: str
    text: str
    """The visible text; a clipped tail is dropped, so every sentence of it is in the stored value."""


@dataclass(frozen=True)
class Passage:
    chunk: Chunk
    sentences: list[str]


def chunks_of(exchanges: Iterable[ToolExchange], memo: Memo = NO_MEMO) -> list[Chunk]:
    """Distinct chunks of READY ``lookup_knowledge`` results, in the order they were first returned (each
    result read once per run, ``memo``)."""
    seen: set[tuple[str, str]] = set()
    chunks: list[Chunk] = []
    for exchange in exchanges:
        for chunk in memo.get(exchange.memo_key("chunks"), _chunks_in, exchange):
            if (chunk.document_id, chunk.text) not in seen:
                seen.add((chunk.document_id, chunk.text))
                chunks.append(chunk)
    return chunks


def _chunks_in(exchange: ToolExchange) -> list[Chunk]:
    found = (
        _chunk(exchange.invocation_id, item)
        for _, item in result_items([exchange], ToolName.LOOKUP_KNOWLEDGE, "chunks")
    )
    return [chunk for chunk in found if chunk is not None]


def _chunk(invocation_id: str, item: dict[str, Any]) -> Chunk | None:
    raw_path, title, document_id, text = (item.get(key) for key in ("raw_path", "title", "document_id", "text"))
    if not (
        isinstance(raw_path, str) and isinstance(title, str) and isinstance(document_id, str) and isinstance(text, str)
    ):
        return None
    if text.endswith("…"):
        # Clipped by the projection: the last sentence may be cut, so it is dropped rather than cited.
        text = text[: text.rstrip("…").rfind("\n")] if "\n" in text else ""
    return Chunk(invocation_id, raw_path, title, document_id, text)


def explanation(chunks: list[Chunk], evidence_terms: set[str]) -> Passage | None:
    """The chunk sharing most terms with the evidence and its best sentences; None if none shares any."""
    scored = [
        (len(terms(chunk.title + " " + chunk.text) & evidence_terms), -index, chunk)
        for index, chunk in enumerate(chunks)
    ]
    scored = [item for item in scored if item[0] > 0]
    if not scored:
        return None
    chunk = max(scored, key=lambda item: item[:2])[2]
    candidates = [sentence for sentence in _citable(chunk) if terms(sentence) & evidence_terms]
    ranked = sorted(candidates, key=lambda sentence: -len(terms(sentence) & evidence_terms))
    chosen = ranked[:MAX_CAUSE_SENTENCES]
    return Passage(chunk, [sentence for sentence in _citable(chunk) if sentence in chosen])


def remediation(chunks: list[Chunk], document_id: str) -> Passage | None:
    """Remediation steps of ``document_id``: from its fix section when one was returned, else any chunk.

    A "How to confirm" section also opens sentences with verbs, so a chunk titled as a fix section wins.
    """
    own = [chunk for chunk in chunks if chunk.document_id == document_id]
    for chunk in sorted(own, key=lambda chunk: REMEDIATION_TITLE.search(chunk.title.rpartition(">")[2]) is None):
        steps = [sentence for sentence in _citable(chunk) if is_mitigation(sentence)]
        if steps:
            return Passage(chunk, steps[:MAX_MITIGATION_SENTENCES])
    return None


def _citable(chunk: Chunk) -> list[str]:
    return [
        sentence
        for sentence in sentences(chunk.text)
        if MIN_EXCERPT_CHARS <= len(sentence) <= MAX_EXCERPT_CHARS and not looks_like_instruction(sentence)
    ]
