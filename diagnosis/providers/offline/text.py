"""Plain-text helpers shared by every offline role: whitespace, terms, sentences, instruction-like text.

Everything here is deliberately simple and deterministic: the offline provider must explain each decision
by pointing at words that two texts share, so "terms" are lower-case alphabetic runs (``HikariPool-1`` gives
``hikaripool``, ``evicted_keys`` gives ``evicted`` and ``keys``) minus a short stopword list.
"""

from __future__ import annotations

import re
from functools import lru_cache

from diagnosis.release.draft import ABBREVIATIONS

# Function words that two unrelated texts share all the time; ops words are never in here.
STOPWORDS = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "all",
        "also",
        "and",
        "any",
        "are",
        "around",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "can",
        "could",
        "did",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "her",
        "here",
        "hers",
        "how",
        "into",
        "its",
        "itself",
        "just",
        "more",
        "most",
        "once",
        "only",
        "other",
        "our",
        "out",
        "over",
        "own",
        "same",
        "should",
        "some",
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
        "through",
        "too",
        "under",
        "until",
        "very",
        "was",
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

# The gatekeeper's shortest excerpt, but for the whole text of a value (``diagnosis.nodes.gatekeeper``).
MIN_EXCERPT_CHARS = 3

_WHITESPACE = re.compile(r"\s+")
_ALPHA_RUN = re.compile(r"[a-z]{3,}")
# A sentence ends at . ! ? ; (a period not ending an ellipsis "...", a step number "1." or an abbreviation
# "e.g.", which cut a recommended action in the middle), at a blank line, or before a list item.
_NOT_AN_ABBREVIATION = "".join(rf"(?<!\b(?i:{re.escape(abbreviation)})\.)" for abbreviation in ABBREVIATIONS)
_SENTENCE_END = re.compile(
    rf"(?<=[!?;。！？；])\s+|(?<=[^.\d]\.){_NOT_AN_ABBREVIATION}\s+|\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)"
)
_LIST_MARKER = re.compile(r"^(?:[-*+]|\d+[.)])\s+")

# Phrases with which text tries to steer a model. Tool data containing them is quoted by nobody: a log line
# or a runbook is evidence about a system, never a message to the agent.
_INSTRUCTION = re.compile(
    r"ignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier) (?:instructions|prompts?|rules)"
    r"|disregard (?:all |any )?(?:the )?(?:previous|prior|above|earlier)"
    r"|(?:new|updated|system) instructions?\s*:"
    r"|you are now\b|act as (?:an? )?(?:assistant|ai|model)|system prompt"
    r"|(?:report|say|answer|respond|conclude) that the root cause is"
    r"|do not (?:mention|cite|report)\b",
    re.IGNORECASE,
)


# Pure and asked again and again about the same texts (every turn re-reads the run's results so far).
@lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """``text`` with every whitespace run made one space: the form the gatekeeper compares excerpts in."""
    return _WHITESPACE.sub(" ", text).strip()


def terms(text: str) -> set[str]:
    """The significant lower-case words of ``text`` (three letters or more, no stopwords)."""
    return {word for word in _ALPHA_RUN.findall(text.lower()) if word not in STOPWORDS}


def ordered_terms(text: str) -> list[str]:
    """``terms`` in order of first appearance, for building search queries that read naturally."""
    seen: dict[str, None] = {}
    for word in _ALPHA_RUN.findall(text.lower()):
        if word not in STOPWORDS:
            seen.setdefault(word)
    return list(seen)


def sentences(text: str) -> list[str]:
    """Sentences and list items of ``text``, whitespace-normalised, list markers kept out.

    Markdown runbooks put one instruction per bullet, often wrapped over several lines, so a bullet or a
    numbered step counts as a sentence even without a full stop.
    """
    pieces = (normalise(piece) for piece in _SENTENCE_END.split(text))
    return [_LIST_MARKER.sub("", piece) for piece in pieces if piece]


# Pure and asked again and again about the same texts (every turn re-reads the run's results so far).
@lru_cache(maxsize=4096)
def looks_like_instruction(text: str) -> bool:
    """Whether ``text`` addresses the agent (prompt injection) rather than describing a system."""
    return _INSTRUCTION.search(text) is not None


def clip(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, without an ellipsis.

    Excerpts must occur verbatim in the cited value, so a clipped excerpt is a plain prefix, never
    decorated.
    """
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return cut[:space] if space > limit // 2 else cut
