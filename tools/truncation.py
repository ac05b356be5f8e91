"""Cutting a payload down to the byte budget without lying about it.

Only trailing items of the payload's main list are dropped, so every ``raw_path`` of a kept item is the
same as before the cut, and the payload's own flag (``truncated``) and count say that it was cut. At least
one item must stay: a cut down to nothing would be a READY result with no evidence that only looks like an
empty answer, so when not even the first item fits the payload is too large (the harness BLOCKS it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tools.store import canonical_json


@dataclass(frozen=True)
class Truncation:
    """How to shorten a payload: drop trailing items of ``list_key``, set ``flag_key`` true and
    ``count_key`` to the items kept. A tool without one is BLOCKED when its payload is over budget."""

    list_key: str
    flag_key: str | None = None
    count_key: str | None = None

    def keep(self, payload: dict[str, Any], count: int) -> dict[str, Any]:
        cut = {**payload, self.list_key: payload[self.list_key][:count]}
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
    """The longest non-empty prefix of the list whose canonical payload fits ``max_bytes``; None if none does."""
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
