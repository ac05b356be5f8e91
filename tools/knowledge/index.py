"""The in-memory BM25 index over every knowledge chunk: one per process, rebuilt when the revision moves.

Rebuilding is cheap (a few thousand chunks index in well under a second; each chunk's terms were stored
at ingest, and its vector is kept by its text's digest, so only new text is embedded) and happens only
after a knowledge write, so the index is rebuilt whole instead of being patched: there is no incremental
state that could drift from the database. Each search first reads the revision tag
(``revision.current_tag``, one primary-key query); a web process that ingested a document and a Celery
worker that searches next therefore agree at once, whatever process wrote.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
from dataclasses import dataclass
from typing import TypeVar

import bm25s
import numpy as np

from tools.knowledge import revision
from tools.knowledge.dense import EMBED_BATCH_SIZE, Embedder, EmbeddingCut
from tools.knowledge.glossary import FILLER, Gloss, chinese_words
from tools.knowledge.tokenize import TERMS_VERSION, indexed_text, is_han_character, tokenize
from tools.models import DocumentStatus, KnowledgeChunk

K = TypeVar("K")
V = TypeVar("V")

# bm25s sets its own logger to DEBUG on import, which would print a line on every rebuild.
logging.getLogger("bm25s").setLevel(logging.WARNING)


@dataclass(frozen=True)
class IndexedChunk:
    chunk_id: str
    document_id: str
    title: str  # the heading path, document title first
    text: str
    text_sha256: str

    @property
    def indexed_text(self) -> str:
        return indexed_text(self.title, self.text)


@dataclass(frozen=True)
class _Word:
    """A word of a query: the terms a document may hold it by, and whether it weighs in the coverage."""

    forms: tuple[str, ...]
    weighs: bool = True
    unknown: bool = False
    """A word the base cannot hold that still weighs as one it never saw (``Snapshot._words``)."""


@dataclass(frozen=True)
class LexicalMatch:
    """Per chunk, for one query: its BM25 score, and what its document holds of the query.

    ``coverage`` is the share of the query's idf weight whose terms occur in the chunk's document (1.0 when
    the runbook holds every term, near 0 when it shares only words that are everywhere); ``matched_terms``
    counts those terms. Both are per document, not per chunk, so the "Mitigation" section of the runbook that
    matches the question qualifies although the symptoms the question names sit in another section.
    """

    scores: np.ndarray
    coverage: np.ndarray
    matched_terms: np.ndarray


class Snapshot:
    """The index of the chunks committed at one revision tag; immutable, so searches share it without locks."""

    def __init__(
        self,
        tag: revision.RevisionTag,
        chunks: list[IndexedChunk],
        chunk_terms: list[list[str]],
        vectors: np.ndarray | None,
        embedder_name: str,
    ) -> None:
        """``chunk_terms``: each chunk's ``indexed_text`` tokenised, in the order of ``chunks``."""
        self.tag = tag
        self.chunks = chunks
        self.vectors = vectors
        self.embedder_name = embedder_name
        document_ids = list(dict.fromkeys(chunk.document_id for chunk in chunks))
        number_of = {document_id: number for number, document_id in enumerate(document_ids)}
        self._document_of_chunk = np.asarray([number_of[chunk.document_id] for chunk in chunks], dtype=np.int64)
        self._document_count = len(document_ids)
        self._count = len(chunks)
        self._bm25 = bm25s.BM25(method="lucene")
        # bm25s cannot index a corpus without a term (documents in a script the tokeniser drops): with no term
        # to match, every search finds nothing anyway (``lexical``).
        if any(chunk_terms):
            self._bm25.index(chunk_terms, show_progress=False)
            # Its score matrix, a column per term (compressed sparse columns): a term's chunks are its column's
            # rows, read for a query's terms only. Counting every term of every chunk in Python instead took
            # most of a 50 000-chunk rebuild's 20 s.
            self._columns = {term: column for term, column in self._bm25.vocab_dict.items() if term}
            self._rows = np.asarray(self._bm25.scores["indices"])
            self._starts = np.asarray(self._bm25.scores["indptr"])
        else:
            self._columns = {}
        # The vocabulary's Chinese terms, read once: every chunk's terms are counted against them below.
        chinese_terms = {term for term in self._columns if _has_han(term)}
        # The Chinese characters the corpus holds inside its words ("满" of "写满"): see ``lexical``.
        self._han_in_words = {
            char for term in chinese_terms if len(term) > 1 for char in term if is_han_character(char)
        }
        self._holds_han = bool(chinese_terms)
        # Whether the base is mostly English (fewer than half of its documents are Chinese, a third of their terms
        # or more: an English runbook's Chinese quick reference does not make it one): a Chinese question is then
        # read in English too (``_words``), beside the Chinese words the base holds.
        han: dict[str, list[int]] = {}
        for chunk, found in zip(chunks, chunk_terms, strict=True):
            counts = han.setdefault(chunk.document_id, [0, 0])
            counts[0] += sum(map(chinese_terms.__contains__, found))
            counts[1] += len(found)
        chinese = sum(1 for held, total in han.values() if total and 3 * held >= total)
        self._reads_english = 2 * chinese < self._document_count
        self._unseen_idf = _idf(self._count, 0)

    def lexical(self, terms: list[str], glossed: Gloss | None = None) -> LexicalMatch:
        """BM25 scores for distinct query ``terms``, and how much of the query each chunk's document holds;
        ``glossed``, the query as the glossary reads it (``glossary.gloss``)."""
        words = self._words(terms, glossed)
        known = list(dict.fromkeys(form for word in words for form in word.forms if form in self._columns))
        # Unseen terms weigh most, except those with a digit (incident specifics no runbook repeats) and a lone
        # Chinese character the corpus holds inside a word: jieba keeps "写满" whole in a runbook, so the "满"
        # of "磁盘满了" is a term no chunk holds, and weighed it kept the disk runbook below the coverage it
        # matches. A character the corpus never holds at all ("狗" of "狗的告警") still weighs: off topic. In a
        # knowledge base with no Chinese at all, Chinese words weigh nothing either: they could never match, and
        # "如何处理 payment-service 连接池耗尽" is about the payment-service runbook whatever language asks it;
        # there the glossary's words count as their English terms (``_words``).
        chunks_with = {term: self._chunks_with(term) for term in known}
        # Lucene's BM25 idf over chunks, the one bm25s scores with; a term the corpus never saw weighs as df 0.
        idf = {term: _idf(self._count, len(found)) for term, found in chunks_with.items()}
        total = 0.0
        covered = np.zeros(self._document_count)
        matched = np.zeros(self._document_count, dtype=np.int64)
        for word in words:
            if not word.weighs:
                continue
            present = [form for form in word.forms if form in self._columns]
            if not present:
                total += self._unseen_idf if word.unknown or not self._unmatchable(word.forms[0]) else 0.0
                continue
            # A word read as several English terms is one word of the query: it weighs, and counts as matched,
            # once, by the best of its terms that a document holds.
            total += max(idf[form] for form in present)
            best = np.zeros(self._document_count)
            for form in present:
                documents = np.unique(self._document_of_chunk[chunks_with[form]])
                best[documents] = np.maximum(best[documents], idf[form])
            covered += best
            matched += best > 0
        if not known or not total:
            count = len(self.chunks)
            return LexicalMatch(np.zeros(count), np.zeros(count), np.zeros(count, dtype=np.int64))
        return LexicalMatch(
            scores=np.asarray(self._bm25.get_scores(known), dtype=np.float64),
            coverage=covered[self._document_of_chunk] / total,
            matched_terms=matched[self._document_of_chunk],
        )

    def _chunks_with(self, term: str) -> np.ndarray:
        """The positions of the chunks that hold ``term`` (a known one)."""
        column = self._columns[term]
        return self._rows[self._starts[column] : self._starts[column + 1]]

    def _words(self, terms: list[str], glossed: Gloss | None) -> list[_Word]:
        """The query's words as this base matches them (``glossary``).

        In a base that is mostly English, each of the glossary's words is one word of the question, matched by
        its English terms that the base holds (each term counted once: an English word of the question first,
        then words of what an incident is about, then common ones) or by the word itself or its jieba parts of
        two characters or more where a Chinese document holds them; a word read into nothing weighs as one the
        base never saw. The question's other Chinese words (``Gloss.unread``) match by their jieba parts a
        document holds, or weigh as unseen: in a base holding no Chinese, only once a word of what an incident
        is about is read; in one holding a few Chinese documents, always, and a lone character too, as a
        Chinese base weighs one. Common words weigh only when no word weighs as unseen. A base that is mostly
        Chinese matches every Chinese word as it is: a word it lacks is one it could have said."""
        if not self._reads_english:
            return (
                self._read_in_chinese(terms)
                if self._holds_han and glossed is not None
                else [_Word((t,)) for t in terms]
            )
        if glossed is None or not glossed.readings:
            return [_Word((term,)) for term in terms]
        chinese = [term for term in terms if is_han_character(term[0]) and len(term) > 1]
        words = [_Word((term,)) for term in terms if not is_han_character(term[0])]
        english = [
            (reading, [*(term for term in chinese if term in reading.word), *reading.terms])
            for reading in glossed.readings
        ]
        english = [(reading, [form for form in forms if form in self._columns]) for reading, forms in english]
        unknown = [reading.word for reading, forms in english if not forms and not reading.common]
        if self._holds_han:  # a lone character it lacks, as a Chinese base weighs one ("狗" of "狗的告警")
            unknown += [
                term
                for term in terms
                if len(term) == 1 and is_han_character(term)
                and not (term in self._columns or term in self._han_in_words or term in FILLER)
            ]  # fmt: skip
        for word in glossed.unread:  # the question's other words, matched by their jieba parts a document holds
            forms = [form for form in (word, *(term for term in chinese if term in word)) if form in self._columns]
            if forms:
                words.append(_Word(tuple(dict.fromkeys(forms))))
            else:
                unknown.append(word)
        claimed = {term for word in words for term in word.forms}
        for reading, forms in sorted(english, key=lambda pair: pair[0].common):
            unclaimed = tuple(dict.fromkeys(form for form in forms if form not in claimed))
            if unclaimed:
                words.append(_Word(unclaimed, weighs=not reading.common or not unknown))
                claimed.update(unclaimed)
        if self._holds_han or any(forms and not reading.common for reading, forms in english):
            words += [_Word((word,), unknown=True) for word in dict.fromkeys(unknown)]
        return words

    def _read_in_chinese(self, terms: list[str]) -> list[_Word]:
        """A mostly Chinese base's reading of a question's English words: an English word the base does not hold
        is matched by the glossary's Chinese words for it that the base holds ("pool" by 连接池, 线程池), each
        Chinese word counted once; one with none weighs as unseen, as before (an alert's English text against
        Chinese runbooks). A word only common words read ("fix", "error") weighs only when no other does as
        unseen, as in an English base ("printer failure fix" finds nothing)."""
        words = [_Word((term,)) for term in terms if term in self._columns or is_han_character(term[0])]
        claimed = {term for word in words for term in word.forms}
        read: list[tuple[str, tuple[str, ...], bool]] = []
        for term in terms:
            if term in self._columns or is_han_character(term[0]):
                continue
            readings = chinese_words(term)
            held = [reading.word for reading in readings if reading.word in self._columns]
            forms = tuple(form for form in held if form not in claimed)
            if forms or not held:  # a word whose Chinese words an earlier one took is that word again
                read.append((term, forms, bool(forms) and all(reading.common for reading in readings)))
                claimed.update(forms)
        unseen = any(not forms and not self._unmatchable(term) for term, forms, _ in read)
        return words + [_Word(forms or (term,), weighs=not common or not unseen) for term, forms, common in read]

    def _unmatchable(self, term: str) -> bool:
        """An unseen term no runbook could be expected to hold: a number, a Chinese character that the corpus
        holds inside its words, a Chinese word when the corpus holds no Chinese."""
        return _has_digit(term) or term in self._han_in_words or (not self._holds_han and _has_han(term))

    def similarities(self, query_vector: np.ndarray) -> np.ndarray:
        """Cosine similarity of every chunk to the query (both unit length)."""
        if self.vectors is None or not self.chunks:
            return np.zeros(len(self.chunks), dtype=np.float64)
        return self.vectors @ query_vector


def _has_han(term: str) -> bool:
    return any(is_han_character(char) for char in term)


def _has_digit(term: str) -> bool:
    return any(character.isdigit() for character in term)


def _idf(count: int, document_frequency: int) -> float:
    return math.log(1 + (count - document_frequency + 0.5) / (document_frequency + 0.5))


class KnowledgeIndex:
    """The process's current snapshot, swapped whole under a lock when the revision tag changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snapshot: Snapshot | None = None
        # Chunk vectors by embedder and text digest, and by text digest the terms of chunks stored without
        # current ones: a rebuild embeds and tokenises only the chunks that are new. Tokenising would be most of
        # a rebuild (jieba reads a megabyte of Chinese in one to a few seconds), and archiving then restoring
        # a document would otherwise pay it again, each time.
        self._vectors: dict[tuple[str, str], np.ndarray] = {}
        self._batch_size = EMBED_BATCH_SIZE
        self._terms: dict[str, list[str]] = {}

    def snapshot(self, embedder: Embedder | None, *, deadline: float | None = None) -> Snapshot:
        """The snapshot of the committed knowledge base, rebuilt first when another write happened since
        (``ToolTimeout`` when the chunks' embeddings are not all in by ``deadline``: the next call goes on)."""
        embedder_name = embedder.name if embedder else ""
        current = self._snapshot
        if current is not None and (current.tag, current.embedder_name) == (revision.current_tag(), embedder_name):
            return current
        with self._lock:
            # Another thread may have rebuilt while this one waited; read the tag again to know.
            tag = revision.current_tag()
            current = self._snapshot
            if current is None or (current.tag, current.embedder_name) != (tag, embedder_name):
                current = self._build(tag, embedder, deadline)
                self._snapshot = current
            return current

    def _build(self, tag: revision.RevisionTag, embedder: Embedder | None, deadline: float | None) -> Snapshot:
        # Chunks are read after the tag, so they are at least as new as it: a write landing in between
        # makes the next search rebuild again, never serve stale chunks under a new tag.
        # Archived documents are kept and listed, not searched; changing a status bumps the revision too.
        rows = (
            KnowledgeChunk.objects.filter(document__status=DocumentStatus.ACTIVE)
            .order_by("document__created_at", "document_id", "ordinal")
            .values_list("id", "document_id", "heading", "text", "text_sha256", "terms", "terms_version")
        )
        chunks: list[IndexedChunk] = []
        stored: list[list[str] | None] = []
        for chunk_id, document_id, heading, text, digest, terms, version in rows:
            chunks.append(IndexedChunk(str(chunk_id), str(document_id), heading, text, digest))
            stored.append(terms.split() if version == TERMS_VERSION else None)
        digests = [hashlib.sha256(chunk.indexed_text.encode()).hexdigest() for chunk in chunks]
        vectors = self._embed(chunks, digests, embedder, deadline) if embedder and chunks else None
        chunk_terms = self._tokenised(chunks, digests, stored)
        return Snapshot(tag, chunks, chunk_terms, vectors, embedder.name if embedder else "")

    def _tokenised(
        self, chunks: list[IndexedChunk], digests: list[str], stored: list[list[str] | None]
    ) -> list[list[str]]:
        """The chunks' terms: as stored at ingest, else (``None``: a chunk stored before terms were, or by
        another tokeniser) as this process tokenised its text, once per text."""
        stale = [digest for digest, terms in zip(digests, stored, strict=True) if terms is None]
        for chunk, digest, terms in zip(chunks, digests, stored, strict=True):
            if terms is None and digest not in self._terms:
                self._terms[digest] = tokenize(chunk.indexed_text)
        self._terms = _bounded(self._terms, stale)
        return [self._terms[digest] if terms is None else terms for digest, terms in zip(digests, stored, strict=True)]

    def _embed(
        self, chunks: list[IndexedChunk], digests: list[str], embedder: Embedder, deadline: float | None
    ) -> np.ndarray:
        keys = [(embedder.name, digest) for digest in digests]
        missing = [position for position, key in enumerate(keys) if key not in self._vectors]
        # Kept batch by batch: a first search of a large base may not embed it all within one call's time,
        # and the next call goes on from where this one stopped. A call whose first request was cut halves
        # the batch until the base is embedded: an embedder slower per batch than a call may take progresses.
        done = 0
        while done < len(missing):
            batch = missing[done : done + self._batch_size]
            try:
                fresh = embedder.embed([chunks[position].indexed_text for position in batch], deadline=deadline)
            except EmbeddingCut:
                if done == 0:
                    self._batch_size = max(1, self._batch_size // 2)
                raise
            for position, vector in zip(batch, fresh, strict=True):
                self._vectors[keys[position]] = vector
            done += len(batch)
        self._batch_size = EMBED_BATCH_SIZE
        found = np.vstack([self._vectors[key] for key in keys])
        self._vectors = _bounded(self._vectors, keys)
        return found


def _bounded(cache: dict[K, V], current: list[K]) -> dict[K, V]:
    """``cache`` as it is while it holds at most twice the current chunks (and a thousand more), else only
    theirs: an archived document's entries outlive its archiving (a restore reads nothing again), and deleted
    and replaced texts do not pile up for ever."""
    if len(cache) <= 2 * len(current) + 1000:
        return cache
    return {key: cache[key] for key in current}


INDEX = KnowledgeIndex()
