"""What code below the diagnosis app may know of the run its thread executes, without importing that app.

Two things, installed by the run for its whole execution (``run_scope``):

- **Its waits.** A run's progress reports linger in memory for a few milliseconds and are written together
  (``tracing.timeline``). Before the run waits on anything outside its process - a model, Prometheus,
  Loki, an embeddings service or MySQL - they must go out, or the page would learn that a model was asked
  only once it had answered. The code that waits calls ``waiting()``. The embedded SQL statement's child
  process, which answers within a millisecond or two, calls it only once it has not answered within
  ``tools.sql.connection.QUIET_WAIT_SECONDS``.
- **What it reads once.** Facts that change only when an operator loads something (the loaded scenario)
  are read once per run (``read_once``), not at every tool call: a run sees one version of them.

A context variable, so that it follows the run into LangGraph's node contexts and stays out of other
threads' runs; outside a run, ``waiting()`` does nothing and ``read_once`` reads every time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass
class RunScope:
    before_wait: Callable[[], None]
    read: dict[str, Any] = field(default_factory=dict)


_scope: ContextVar[RunScope | None] = ContextVar("run_scope", default=None)


@contextmanager
def run_scope(*, before_wait: Callable[[], None]) -> Iterator[None]:
    """While inside, this thread executes one run: ``waiting()`` calls ``before_wait`` first."""
    token = _scope.set(RunScope(before_wait))
    try:
        yield
    finally:
        _scope.reset(token)


def waiting() -> None:
    """Say that this thread is about to wait outside its process."""
    if (scope := _scope.get()) is not None:
        scope.before_wait()


def read_once(key: str, read: Callable[[], T]) -> T:
    """``read()``, once per run under ``key``; every time outside a run."""
    scope = _scope.get()
    if scope is None:
        return read()
    if key not in scope.read:
        scope.read[key] = read()
    value: T = scope.read[key]
    return value
