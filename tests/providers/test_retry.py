"""Backoff bounds and ``Retry-After`` reading, without waiting."""

from __future__ import annotations

import random

import pytest

from diagnosis.providers.retry import RetryPolicy, retry_after_seconds


@pytest.mark.parametrize(("retry_number", "low", "high"), [(1, 0.25, 0.5), (2, 0.5, 1.0), (3, 1.0, 2.0), (9, 4.0, 8.0)])
def test_backoff_doubles_with_jitter_up_to_the_cap(retry_number, low, high):
    policy = RetryPolicy(max_retries=10, base_delay_seconds=0.5, max_delay_seconds=8.0)
    rng = random.Random(1)

    delays = [policy.backoff_seconds(retry_number, rng) for _ in range(200)]

    assert all(low <= delay <= high for delay in delays)
    assert len(set(delays)) > 1, "jitter must spread the retries of workers failing together"


def test_no_retry_once_the_budget_is_spent():
    policy = RetryPolicy(max_retries=2)
    rng = random.Random(1)

    assert policy.delay_before_retry(1, None, rng) is not None
    assert policy.delay_before_retry(2, None, rng) is None
    assert policy.delay_before_retry(2, 0.1, rng) is None
    assert RetryPolicy(max_retries=0).delay_before_retry(0, None, rng) is None


def test_retry_after_is_obeyed_up_to_its_cap():
    policy = RetryPolicy(max_retries=3, max_retry_after_seconds=20)
    rng = random.Random(1)

    assert policy.delay_before_retry(0, 20.0, rng) == 20.0
    assert policy.delay_before_retry(0, 0.0, rng) == 0.0
    assert policy.delay_before_retry(0, 20.5, rng) is None


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
