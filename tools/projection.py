"""Helpers that keep a tool's view for the model bounded, whatever the payload's size.

The model reads a projection, never the payload: long strings are clipped and items are listed only while
they fit the character budget, with the count of those left out. Every item keeps the ``raw_path`` of the
full value, so an excerpt copied from a clipped string still occurs in the value the Gatekeeper reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

# About 3–4k tokens: room for several projections in one executor turn.
PROJECTION_MAX_CHARS = 12_000
TEXT_MAX_CHARS = 400


def clip(value: Any, limit: int = TEXT_MAX_CHARS) -> Any:
    """``value`` with a long string cut to ``limit`` characters (marked with an ellipsis), at a space when one
    is in its last quarter: a model cites what it is shown, and the gatekeeper refuses an excerpt that ends
    inside a word or a number (``occurs_whole``)."""
    if isinstance(value, str) and len(value) > limit:
        cut = limit - 1
        if value[cut - 1].isalnum() and value[cut].isalnum():
            space = value.rfind(" ", limit * 3 // 4, cut)
            cut = space if space > 0 else cut
        return value[:cut].rstrip() + "…"
    return value


def cited_item(raw_path: str, item: dict[str, Any]) -> dict[str, Any]:
    """An item's view: its ``raw_path`` first, then its fields clipped. A field of the item's own named
    ``raw_path`` (a log label anyone who writes logs sets) is left out: it would replace the path the model
    cites the item by."""
    return {"raw_path": raw_path} | {key: clip(value) for key, value in item.items() if key != "raw_path"}


def warnings_first(payload: dict[str, Any]) -> dict[str, Any]:
    """The backend's warnings (a partial answer), for the top of a view: the model must read the rest
    knowing it."""
    return {"warnings": payload["warnings"]} if payload.get("warnings") else {}


# One encoder for every measure: ``json.dumps`` with options builds a new one per call, and a projection
# measures each of its items.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def size_of(value: Any) -> int:
    return len(_COMPACT.encode(value))


def within_budget(
    items: Sequence[T], budget: int, view: Callable[[T], dict[str, Any]]
) -> tuple[list[dict[str, Any]], int]:
    """The views of the leading ``items`` whose JSON fits in ``budget`` characters, and how many were left
    out. Once one item is left out, so are all after it: only the items shown, and the first one that does
    not fit, are viewed and measured (a 200-record result shows about 40)."""
    kept: list[dict[str, Any]] = []
    used = 0
    for item in items:
        shown = view(item)
        cost = size_of(shown) + 1
        if used + cost > budget:
            break
        kept.append(shown)
        used += cost
    return kept, len(items) - len(kept)


def listing(key: str, items: Sequence[T], budget: int, view: Callable[[T], dict[str, Any]]) -> dict[str, Any]:
    """``{key: [...]}`` within ``budget`` (each item as ``view`` shows it), plus ``omitted`` and a hint when
    some items did not fit."""
    kept, omitted = within_budget(items, budget, view)
    result: dict[str, Any] = {key: kept}
    if omitted:
        result["omitted"] = omitted
        result["note"] = f"{omitted} more {key} are in the payload; narrow the query to see them"
    return result
