"""The moment a run's model calls must have ended by: its model budget, on the monotonic clock.

One ``Deadline`` is fixed when the run starts executing and shared by everything that waits on a model in
that run: each request is cut at whichever comes first, its own ``LLM_TIMEOUT_SECONDS`` or this deadline,
the retry loop does not start a wait it could not finish before it, and the executor stops running tools
whose results no model call could read any more. Past it, a model call fails at once as a ``timeout``,
which the graph already routes to its fallback.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Deadline:
    at: float
    """A ``time.monotonic()`` reading."""

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds)

    def remaining(self) -> float:
        """Seconds left, never negative."""
        return max(0.0, self.at - time.monotonic())

    @property
    def expired(self) -> bool:
        return self.remaining() == 0.0
