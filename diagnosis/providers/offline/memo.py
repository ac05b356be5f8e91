"""One run's memory of what the offline executor already read, so a later turn does not read it again.

The executor decides each turn from the whole conversation (``executor.py``), so without a memory every
turn would parse every tool result of the run again and analyse the same sets of results again: a run of
twenty calls over five turns read each log record about six times. A ``RunMemo`` keeps, for one run,

- each tool message's JSON, by its text;
- what each analysis read out of one tool result (its log records, series, chunks, rows), by the tool's
  name and the result's text (``ToolExchange.memo_key``);
- the findings of each set of results, by everything they depend on.

Keys hold the texts themselves, never an id alone, so the memo can only ever answer with what the same
input would have computed: it changes how often the analyses run, never what they say. It lives on the
run's executor model (``provider.build_models`` makes one per run) and dies with it: no module-global
state, so runs on other threads never meet, and its size is bounded by one run's tool results.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, ParamSpec, Protocol, TypeVar

T = TypeVar("T")
P = ParamSpec("P")


class Memo(Protocol):
    def get(self, key: Hashable | None, compute: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``compute(*args, **kwargs)``, remembered by ``key``; a None key (an input that cannot be named) is
        never remembered."""
        ...


class RunMemo:
    """Values computed once per run, by a key that names everything they depend on."""

    def __init__(self) -> None:
        self._values: dict[Hashable, Any] = {}

    def get(self, key: Hashable | None, compute: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        if key is None:
            return compute(*args, **kwargs)
        if key in self._values:
            value: T = self._values[key]
            return value
        value = self._values[key] = compute(*args, **kwargs)
        return value


class NoMemo:
    """Computes every time: for callers outside a run (tests, one-off analyses). Holds nothing."""

    def get(self, key: Hashable | None, compute: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return compute(*args, **kwargs)


NO_MEMO: Memo = NoMemo()
