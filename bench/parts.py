"""Where a run's time goes, by part: the run's own work (its tools, its model, its checks) against the rest.

The issue that asked for a run within 15x the graph floor was written when a run spent most of its time
talking to the database. ``run_overhead.py --by-part`` times the parts a run cannot do without, whatever it
is stored in: the tools' handlers and projections, the model's turns (the offline provider reasons over the
tool results), the gatekeeper's checks, the release review and the rendering of the answer. Each part's
time is exclusive (a part called inside another counts for itself only, not twice), so the parts add up, and
what is left is the plumbing: persistence, events, the graph engine, the submission, the claim, the finish.
(The tool handlers' part holds the harness's checks before a handler too: the arguments' schema and the
call budget, whose count of the run's calls is read once per executor attempt, a little plumbing in it.)

A part is a function wrapped where it is looked up when called (a module attribute or a class attribute),
only in the bench's process and only with ``--by-part``.
"""

from __future__ import annotations

import functools
import importlib
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Part:
    label: str
    targets: tuple[str, ...]
    """``module:attribute`` or ``module:Class.method``, as the caller looks it up."""
    own_work: bool = True
    """A part of the run's own work; the evidence reads are plumbing timed apart."""


PARTS = (
    Part("tool handlers (query, schema check, fit to budget)", ("tools.harness:ToolHarness._run",)),
    Part("tool projections (the model's view of a result)", ("tools.harness:ToolHarness._project",)),
    Part(
        "model turns (offline provider's reasoning)",
        ("diagnosis.providers.offline.provider:OfflineChatModel.complete",),
    ),
    Part("gatekeeper checks", ("diagnosis.nodes.gatekeeper:gatekeep",)),
    Part("release review (policy; guard's turn counted above)", ("diagnosis.nodes.composer:review_draft",)),
    Part("answer rendering (markdown, sanitising)", ("diagnosis.rendering:render_answer",)),
    Part("evidence reads (payloads from the store)", ("tools.store:load_verified_payloads",), own_work=False),
)


class PartClock:
    """Exclusive time per part, over every call of its targets while installed."""

    def __init__(self, parts: tuple[Part, ...] = PARTS) -> None:
        self.parts = parts
        self.seconds: Counter[str] = Counter()
        self._local = threading.local()

    def _stack(self) -> list[list[Any]]:
        if not hasattr(self._local, "stack"):
            self._local.stack = []
        stack: list[list[Any]] = self._local.stack
        return stack

    def _timed(self, label: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            stack = self._stack()
            now = time.perf_counter()
            if stack:  # the enclosing part stops counting while this one runs
                self.seconds[stack[-1][0]] += now - stack[-1][1]
            stack.append([label, now])
            try:
                return function(*args, **kwargs)
            finally:
                end = time.perf_counter()
                part, since = stack.pop()
                self.seconds[part] += end - since
                if stack:
                    stack[-1][1] = end

        return timed

    @contextmanager
    def installed(self) -> Iterator[PartClock]:
        """Wrap every part's targets, and put the originals back on the way out."""
        restore: list[tuple[Any, str, Any]] = []
        try:
            for part in self.parts:
                for target in part.targets:
                    owner, name = _owner(target)
                    original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
                    restore.append((owner, name, original))
                    timed = self._timed(part.label, getattr(owner, name))
                    setattr(owner, name, staticmethod(timed) if isinstance(original, staticmethod) else timed)
            yield self
        finally:
            for owner, name, original in reversed(restore):
                setattr(owner, name, original)

    def report(self, runs: int, run_ms: float, floor_ms: float) -> str:
        """The parts in ms per run (means over ``runs``), against the mean run ``run_ms`` and the graph floor."""
        from bench.embedded import table

        def row(label: str, ms: float) -> tuple[str, str, str, str]:
            return label, f"{ms:.1f}", f"{100 * ms / run_ms:.0f} %", f"{ms / floor_ms:.1f}x"

        own = [(part.label, 1000 * self.seconds[part.label] / runs) for part in self.parts if part.own_work]
        rest = [(part.label, 1000 * self.seconds[part.label] / runs) for part in self.parts if not part.own_work]
        own_ms = sum(ms for _, ms in own)
        timed_rest = sum(ms for _, ms in rest)
        rows = [row(label, ms) for label, ms in own]
        rows.append(row("the run's own work, in all", own_ms))
        rows += [row(label, ms) for label, ms in rest]
        rows.append(
            row("everything else (persistence, events, graph, submission, finish)", run_ms - own_ms - timed_rest)
        )
        return table(["part", "ms per run", "of a run", "x floor"], rows)


def _owner(target: str) -> tuple[Any, str]:
    module_name, _, path = target.partition(":")
    owner: Any = importlib.import_module(module_name)
    *outer, name = path.split(".")
    for attribute in outer:
        owner = getattr(owner, attribute)
    return owner, name
