"""When to retry a failed model request, and how long to wait first.

The SDK's own retries are switched off so that the count is ours (``LLM_MAX_RETRIES``), visible in
``ModelReply.attempts`` and testable. Backoff is exponential with "equal jitter" (half fixed, half random)
so that workers failing together do not retry together, yet never retry instantly. A server that names a
short wait (``Retry-After``) is obeyed; one that names a long wait is not retried at all, because the run
would sit idle past any useful answer time and the graph's own retry decides what comes next.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int
    base_delay_seconds: float = 0.5
    max_delay_seconds: float = 8.0
    max_retry_after_seconds: float = 20.0

    def backoff_seconds(self, retry_number: int, rng: random.Random) -> float:
        """The wait before retry ``retry_number`` (1-based): within [ceiling/2, ceiling]."""
        ceiling = min(self.max_delay_seconds, self.base_delay_seconds * 2 ** (retry_number - 1))
        return ceiling / 2 + rng.uniform(0, ceiling / 2)

    def delay_before_retry(self, retries_done: int, retry_after: float | None, rng: random.Random) -> float | None:
        """Seconds to wait before the next retry, or None when the request must not be retried."""
        if retries_done >= self.max_retries:
            return None
        if retry_after is None:
            return self.backoff_seconds(retries_done + 1, rng)
        if retry_after > self.max_retry_after_seconds:
            return None
        return retry_after


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The server's requested wait: OpenAI's ``retry-after-ms`` first, then ``Retry-After`` in seconds.

    The HTTP-date form of ``Retry-After`` is not used by model APIs and is treated as absent, as are
    negative or non-numeric values: the computed backoff applies instead.
    """
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw) / scale
        except ValueError:
            continue
        if math.isfinite(value) and value >= 0:
            return value
    return None
