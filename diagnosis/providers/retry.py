"""When to retry a failed model request, and how long to wait first: the policy, run by ``tenacity``.

``RetryPolicy.retrying()`` is a ``tenacity.Retrying``: it retries a ``ProviderError`` of kind
RETRYABLE_FAILED up to ``LLM_MAX_RETRIES`` times, and the provider reads the attempt number from it, so the
count is visible in ``ModelReply.attempts`` / ``ProviderError.attempts`` and testable (the sleep is
injected). Backoff is exponential with "equal jitter" (half fixed, half random) so that workers failing
together do not retry together, yet never retry instantly. A server that names a short wait
(``Retry-After``) is obeyed; one that names a long wait is not retried at all, because the run would sit
idle past any useful answer time and the graph's own retry decides what comes next.

The ``openai`` SDK's own retries stay off (``max_retries=0``): they would also retry 409 and whatever a
server marks ``x-should-retry``, wait out a ``Retry-After`` of up to two minutes, sleep through a
``time.sleep`` no caller can replace, and tell the attempts of a failed call only through a request
header it adds (``x-stainless-retry-count``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import tenacity

from diagnosis.providers.base import FailureKind, ProviderError


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

    def retrying(
        self,
        *,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        within: float | None = None,
    ) -> tenacity.Retrying:
        """The retry loop of one request: ``for attempt in policy.retrying(): with attempt: ...``.

        After the last allowed attempt, or on an error that must not be retried, the error itself is
        raised (``reraise``), never tenacity's ``RetryError``; an exception that is not a ``ProviderError``
        is never retried. ``within``: the seconds left of the run's model budget; no retry starts whose
        wait would end past them (tenacity's ``stop_before_delay``), so backoff never eats the fallback's time.
        """
        jitter = rng or random.Random()

        def wait(state: tenacity.RetryCallState) -> float:
            retry_after = _retry_after(state)
            return self.backoff_seconds(state.attempt_number, jitter) if retry_after is None else retry_after

        stop: tenacity.stop.stop_base = tenacity.stop_after_attempt(self.max_retries + 1)
        if within is not None:
            stop = stop | tenacity.stop_before_delay(within)
        return tenacity.Retrying(
            retry=tenacity.retry_if_exception(self._worth_retrying), stop=stop, wait=wait, sleep=sleep, reraise=True
        )

    def _worth_retrying(self, error: BaseException) -> bool:
        if not isinstance(error, ProviderError) or error.kind is not FailureKind.RETRYABLE_FAILED:
            return False
        return error.retry_after is None or error.retry_after <= self.max_retry_after_seconds


def _retry_after(state: tenacity.RetryCallState) -> float | None:
    error = state.outcome.exception() if state.outcome is not None else None
    return error.retry_after if isinstance(error, ProviderError) else None


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
