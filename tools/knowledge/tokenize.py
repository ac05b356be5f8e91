"""Tokenisation for the BM25 index: one function, used for chunks and queries alike, for Chinese and English.

How text becomes terms:

1. NFKC normalisation and lower case, so full-width ``ＡＢＣ１２３`` and ``abc123`` are the same term and
   Chinese punctuation turns into ASCII punctuation.
2. The text is cut into runs of Han characters (CJK ideographs and kana) and runs of Latin letters and digits.
   Everything else (spaces, punctuation, emoji) only separates runs.
3. A Han run has no spaces to split on, so jieba segments it in "search" mode: ``数据库连接池`` gives
   ``数据 数据库 连接 连接池``, so a query for either the long or the short word finds it. jieba is loaded
   lazily, once per process, with its start-up logging silenced.
4. A Latin run that joins alphanumeric parts with ``- _ . : /`` is an identifier (``payment-service``,
   ``ORA-00020``, ``HikariPool-1``, ``10.0.3.7``, ``orders_db``). The whole identifier is kept as one term, so
   an exact search is precise, and so are its parts (``payment``, ``service``), so "payment service" finds it
   too. Parts that are only digits (``10`` and ``05`` of ``10:05``) are not terms of their own: a bare number
   matches unrelated numbers everywhere. Identifiers are never stemmed; ``p99`` and ``5xx`` stay whole.
5. A plain English word is reduced by a light stemmer (plurals, ``-ed``, ``-ing``, ``-ion`` after s/t, a final
   silent ``e``) so that ``connections``, ``connection`` and ``connected`` meet. It is deliberately smaller
   than Porter's: it must never merge two ops words that mean different things.
6. Stopwords (English function and question words, Chinese particles and question words) and one-character
   Latin terms are dropped: they match everything and carry no evidence. The lists are short on purpose:
   ops words that general-purpose lists drop, such as ``上升`` (rise), ``严重`` (severe) or ``down``, are kept.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import unicodedata
import uuid
from pathlib import Path

import jieba

_HAN = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_RUN = re.compile(rf"[{_HAN}]+|[0-9a-z\u00c0-\u024f]+(?:[-_.:/][0-9a-z\u00c0-\u024f]+)*")
_HAN_RUN = re.compile(rf"[{_HAN}]")


def is_han_character(term: str) -> bool:
    """``term`` is one Chinese (or Japanese kana) character."""
    return len(term) == 1 and _HAN_RUN.match(term) is not None


_IDENTIFIER_PART = re.compile(r"[-_.:/]")

ENGLISH_STOPWORDS = frozenset(
    [
        "a",
        "about",
        "again",
        "ago",
        "all",
        "also",
        "an",
        "and",
        "any",
        "anything",
        "are",
        "around",
        "as",
        "at",
        "be",
        "been",
        "being",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "else",
        "for",
        "from",
        "had",
        "has",
        "have",
        "having",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "just",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "please",
        "shall",
        "should",
        "since",
        "so",
        "some",
        "something",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "too",
        "us",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
CHINESE_STOPWORDS = frozenset(
    [
        "的",
        "了",
        "是",
        "在",
        "和",
        "与",
        "及",
        "或",
        "吗",
        "呢",
        "吧",
        "啊",
        "呀",
        "哦",
        "嘛",
        "么",
        "着",
        "过",
        "把",
        "被",
        "给",
        "让",
        "就",
        "都",
        "也",
        "还",
        "又",
        "而",
        "但",
        "并",
        "则",
        "即",
        "之",
        "其",
        "此",
        "该",
        "我",
        "我们",
        "你",
        "你们",
        "他",
        "她",
        "它",
        "他们",
        "这",
        "那",
        "这个",
        "那个",
        "这些",
        "那些",
        "一个",
        "请",
        "请问",
        "怎么",
        "怎么办",
        "怎样",
        "如何",
        "什么",
        "为什么",
        "为何",
        "哪",
        "哪些",
        "哪个",
        "是否",
        "能否",
        "可以",
        "应该",
        "需要",
        "有",
        "没有",
        "会",
        "能",
        "要",
        "对",
        "从",
        "向",
        "到",
        "于",
        "以",
        "为",
        "等",
    ]
)

# Suffix rules of the light stemmer, applied to plain alphabetic words of four letters or more.
_PLURAL_RULES = (("sses", "ss"), ("ies", "y"), ("ied", "y"))
_KEEP_FINAL_S = ("ss", "us", "is")


# What a chunk's stored terms were computed with (``KnowledgeChunk.terms_version``): jieba's version, the
# Unicode tables NFKC reads and this module's own text, so that any change to one of them (a new dictionary,
# a stopword, a stemming rule) marks every stored term list stale instead of mixing two tokenisers in an index.
UNDATED_PREFIX = "no-source-"


def _source_digest() -> str:
    """This module's text, digested. Without its source (a deployment of bytecode only) this process cannot
    tell its tokeniser from another's: a version of its own, which no other process trusts, and it none."""
    try:
        return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
    except OSError:
        return f"{UNDATED_PREFIX}{uuid.uuid4().hex}"


TERMS_VERSION = f"jieba-{jieba.__version__}:unicode-{unicodedata.unidata_version}:{_source_digest()}"

_jieba_lock = threading.Lock()
_jieba_tokenizer: jieba.Tokenizer | None = None


def _segmenter() -> jieba.Tokenizer:
    """The process's jieba tokenizer, built on first use: loading its dictionary takes about a second."""
    global _jieba_tokenizer
    if _jieba_tokenizer is None:
        with _jieba_lock:
            if _jieba_tokenizer is None:
                jieba.setLogLevel(logging.WARNING)
                tokenizer = jieba.Tokenizer()
                tokenizer.initialize()
                _jieba_tokenizer = tokenizer
    return _jieba_tokenizer


def stem(word: str) -> str:
    """Light English stemmer: ``caches``/``cached``/``caching``/``cache`` → ``cach``; identifiers unchanged."""
    if len(word) < 4 or not word.isalpha() or not word.isascii():
        return word
    for suffix, replacement in _PLURAL_RULES:
        if word.endswith(suffix):
            word = word[: -len(suffix)] + replacement
            break
    else:
        if word.endswith("s") and not word.endswith(_KEEP_FINAL_S):
            word = word[:-1]
    for suffix in ("ing", "ed"):
        stem_part = word[: -len(suffix)]
        if word.endswith(suffix) and not word.endswith("eed") and len(stem_part) >= 3 and _has_vowel(stem_part):
            word = stem_part
            if word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # running -> run, but keep "install", "pass"
            break
    if word.endswith("ion") and len(word) >= 7 and word[-4] in "st":
        word = word[:-3]  # connection -> connect, exhaustion -> exhaust, eviction -> evict
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


def _informative_part(part: str) -> bool:
    """A part of an identifier worth its own term: ``10`` of ``10:05`` or ``0`` of ``10.0.3.7`` is not."""
    return len(part) > 1 and not part.isdigit() and part not in ENGLISH_STOPWORDS


def _has_vowel(text: str) -> bool:
    return any(letter in "aeiouy" for letter in text)


def tokenize(text: str) -> list[str]:
    """Terms of ``text`` in order, with repeats (BM25 counts them)."""
    terms: list[str] = []
    for run in _RUN.findall(unicodedata.normalize("NFKC", text).lower()):
        if _HAN_RUN.match(run):
            terms.extend(word for word in _segmenter().cut_for_search(run) if word not in CHINESE_STOPWORDS)
        elif _IDENTIFIER_PART.search(run):
            terms.append(run)
            parts = _IDENTIFIER_PART.split(run)
            terms.extend(stem(part) for part in parts if _informative_part(part))
        elif len(run) > 1 and run not in ENGLISH_STOPWORDS:
            terms.append(stem(run))
    return terms


def indexed_text(heading: str, text: str) -> str:
    """What is scored of a chunk: its heading path counts, so a "Mitigation" section of the pool runbook says
    "pool"."""
    return f"{heading}\n{text}"


def stored_terms(heading: str, text: str) -> str:
    """A chunk's terms as ``KnowledgeChunk.terms`` keeps them: no term holds a space, so spaces join them."""
    return " ".join(tokenize(indexed_text(heading, text)))


def query_terms(query: str) -> list[str]:
    """The distinct terms of a query, in first-seen order: repeating a word must not weigh it twice."""
    return list(dict.fromkeys(tokenize(query)))
