"""Helpers that keep a tool's view for the model bounded, whatever the payload's size.

The model reads a projection, never the payload: long strings are clipped and items are listed only while
they fit the character budget, with the count of those left out. Every item keeps the ``raw_path`` of the
full value, so an excerpt copied from a clipped string still occurs in the value the Gatekeeper reads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

# About 3–4k tokens: room for several projections in one executor turn.
PROJECTION_MAX_CHARS = 12_000
TEXT_MAX_CHARS = 400


def clip(value: Any, limit: int = TEXT_MAX_CHARS) -> Any:
    """``value`` with a long string cut to ``limit`` characters (marked with an ellipsis)."""
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - 1] + "…"
    return value


def clip_values(item: dict[str, Any], limit: int = TEXT_MAX_CHARS) -> dict[str, Any]:
    return {key: clip(value, limit) for key, value in item.items()}


# One encoder for every measure: ``json.dumps`` with options builds a new one per call, and a projection
# measures each of its items.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def size_of(value: Any) -> int:
    return len(_COMPACT.encode(value))


def within_budget(items: Iterable[dict[str, Any]], budget: int) -> tuple[list[dict[str, Any]], int]:
    """The leading ``items`` whose JSON fits in ``budget`` characters, and how many were left out."""
    kept: list[dict[str, Any]] = []
    omitted = 0
    used = 0
    for item in items:
        # Once one item is left out, so are all after it: they are counted, never measured.
        cost = 0 if omitted else size_of(item) + 1
        if omitted or used + cost > budget:
            omitted += 1
            continue
        kept.append(item)
        used += cost
    return kept, omitted


def listing(key: str, items: Iterable[dict[str, Any]], budget: int) -> dict[str, Any]:
    """``{key: [...]}`` within ``budget``, plus ``omitted`` and a hint when some items did not fit."""
    kept, omitted = within_budget(items, budget)
    view: dict[str, Any] = {key: kept}
    if omitted:
        view["omitted"] = omitted
        view["note"] = f"{omitted} more {key} are in the payload; narrow the query to see them"
    return view
