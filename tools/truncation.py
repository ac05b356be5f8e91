"""Cutting a payload down to the byte budget without lying about it.

Items at one end of the payload's main list are dropped: the trailing ones, or the leading ones of a
payload whose tail is what was asked for (a log query for the newest records). The cut happens before the
payload is stored, so every ``raw_path`` points into the payload as kept; the payload's own flag
(``truncated``) and count say that it was cut. At least one item must stay: a cut down to nothing would be a READY result with no evidence that only looks like an
empty answer, so when not even the first item fits the payload is too large (the harness BLOCKS it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.store import canonical_json


@dataclass(frozen=True)
class Truncation:
    """How to shorten a payload: drop trailing items of ``list_key`` (leading ones when ``keeps_tail`` says
    the payload's tail is what was asked for), set ``flag_key`` true and ``count_key`` to the items kept. A
    tool without one is BLOCKED when its payload is over budget."""

    list_key: str
    flag_key: str | None = None
    count_key: str | None = None
    keeps_tail: Callable[[dict[str, Any]], bool] | None = None

    def keep(self, payload: dict[str, Any], count: int) -> dict[str, Any]:
        items = payload[self.list_key]
        kept = items[len(items) - count :] if self.keeps_tail and self.keeps_tail(payload) else items[:count]
        cut = {**payload, self.list_key: kept}
        if self.flag_key:
            cut[self.flag_key] = True
        if self.count_key:
            cut[self.count_key] = count
        return cut


@dataclass(frozen=True)
class FittedPayload:
    payload: dict[str, Any]
    canonical: bytes
    items: int


def fit_payload(payload: dict[str, Any], truncation: Truncation, max_bytes: int) -> FittedPayload | None:
    """The longest non-empty prefix (or tail) of the list whose canonical payload fits ``max_bytes``; None if none
    does."""
    items = payload[truncation.list_key]
    # Binary search on the kept count (1 to all but one: the whole list is what did not fit); the canonical
    # size only grows with it.
    best: FittedPayload | None = None
    low, high = 1, len(items) - 1
    while low <= high:
        middle = (low + high) // 2
        candidate = truncation.keep(payload, middle)
        canonical = canonical_json(candidate)
        if len(canonical) <= max_bytes:
            best = FittedPayload(candidate, canonical, middle)
            low = middle + 1
        else:
            high = middle - 1
    return best
