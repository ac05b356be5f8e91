"""The retry policy through its tenacity loop: backoff bounds, budget, ``Retry-After``, without waiting."""

from __future__ import annotations

import random

import pytest

from diagnosis.providers.base import ErrorCode, ProviderError
from diagnosis.providers.retry import RetryPolicy, retry_after_seconds


@pytest.mark.parametrize(("retry_number", "low", "high"), [(1, 0.25, 0.5), (2, 0.5, 1.0), (3, 1.0, 2.0), (9, 4.0, 8.0)])
def test_backoff_doubles_with_jitter_up_to_the_cap(retry_number, low, high):
    policy = RetryPolicy(max_retries=10, base_delay_seconds=0.5, max_delay_seconds=8.0)
    rng = random.Random(1)

    delays = [policy.backoff_seconds(retry_number, rng) for _ in range(200)]

    assert all(low <= delay <= high for delay in delays)
    assert len(set(delays)) > 1, "jitter must spread the retries of workers failing together"


def attempt_all(
    policy: RetryPolicy, outcomes: list[object], *, within: float | None = None
) -> tuple[object, int, list[float]]:
    """Run ``policy``'s loop over scripted outcomes (an exception is raised, anything else returned).

    Returns what came out (the value, or the exception that escaped), the attempts made and the waits.
    """
    sleeps: list[float] = []
    attempts = 0
    script = iter(outcomes)
    try:
        for attempt in policy.retrying(sleep=sleeps.append, rng=random.Random(1), within=within):
            with attempt:
                attempts = attempt.retry_state.attempt_number
                outcome = next(script)
                if isinstance(outcome, BaseException):
                    raise outcome
                result: object = outcome
    except Exception as escaped:
        return escaped, attempts, sleeps
    return result, attempts, sleeps


def limited(retry_after: float | None = None) -> ProviderError:
    return ProviderError(ErrorCode.RATE_LIMIT, "slow down", retry_after=retry_after)


def test_it_retries_a_retryable_error_and_returns_the_first_success():
    result, attempts, sleeps = attempt_all(RetryPolicy(max_retries=2), [limited(), limited(), "reply"])

    assert (result, attempts) == ("reply", 3)
    first, second = sleeps
    assert 0.25 <= first <= 0.5 and 0.5 <= second <= 1.0


def test_no_retry_once_the_budget_is_spent():
    errors = [limited(), limited(), limited(), "never reached"]

    result, attempts, sleeps = attempt_all(RetryPolicy(max_retries=2), errors)

    assert result is errors[2], "the last error itself escapes, not tenacity's RetryError"
    assert (attempts, len(sleeps)) == (3, 2)
    assert attempt_all(RetryPolicy(max_retries=0), errors)[1:] == (1, [])


def test_retry_after_is_obeyed_up_to_its_cap():
    policy = RetryPolicy(max_retries=3, max_retry_after_seconds=20)

    assert attempt_all(policy, [limited(20.0), "ok"]) == ("ok", 2, [20.0])
    assert attempt_all(policy, [limited(0.0), "ok"]) == ("ok", 2, [0.0])
    too_long = limited(20.5)
    assert attempt_all(policy, [too_long, "never reached"]) == (too_long, 1, [])


def test_no_retry_starts_whose_wait_would_outlast_the_run_budget():
    policy = RetryPolicy(max_retries=3, max_retry_after_seconds=20)

    assert attempt_all(policy, [limited(2.0), "ok"], within=5) == ("ok", 2, [2.0])
    past_budget = limited(6.0)
    assert attempt_all(policy, [past_budget, "never reached"], within=5) == (past_budget, 1, [])


@pytest.mark.parametrize(
    "error",
    [
        ProviderError(ErrorCode.BAD_REQUEST, "no"),
        ProviderError(ErrorCode.AUTH, "no"),
        ProviderError(ErrorCode.MALFORMED_RESPONSE, "html"),
        ValueError("a bug, not a provider failure"),
    ],
    ids=["bad_request", "auth", "malformed", "not-a-provider-error"],
)
def test_it_never_retries_what_is_not_retryable(error):
    assert attempt_all(RetryPolicy(max_retries=3), [error, "never reached"]) == (error, 1, [])


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"retry-after": "2"}, 2.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after-ms": "250", "retry-after": "7"}, 0.25),
        ({"retry-after-ms": "soon", "retry-after": "7"}, 7.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, None),
        ({"retry-after": "-3"}, None),
        ({"retry-after": "nan"}, None),
    ],
)
def test_retry_after_seconds(headers, expected):
    assert retry_after_seconds(headers) == expected
