"""Fixtures for provider tests: a loopback OpenAI-compatible server and models pointed at it."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator
from typing import Any

import openai
import pytest

from diagnosis.providers.deadline import Deadline
from diagnosis.providers.openai_provider import OpenAIChatModel
from diagnosis.providers.retry import RetryPolicy
from tests.support.fake_openai import FakeOpenAIServer

TEST_API_KEY = "sk-test-provider-key"
TEST_MODEL = "fake-model"


class RecordingSleep:
    """Stands in for ``time.sleep``: records each backoff so tests assert it without waiting."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def sleep() -> RecordingSleep:
    return RecordingSleep()


@pytest.fixture
def make_model(fake_openai: FakeOpenAIServer, sleep: RecordingSleep) -> Callable[..., OpenAIChatModel]:
    def make(
        *,
        max_retries: int = 2,
        timeout: float = 2.0,
        retry_after_cap: float = 20.0,
        deadline: Deadline | None = None,
        base_url: str = fake_openai.base_url,
        **budgets: Any,
    ) -> OpenAIChatModel:
        """``budgets``: the output cap, its parameter name, the prompt bound and the token budget, if any."""
        new_client = functools.partial(openai.AsyncOpenAI, base_url=base_url, api_key=TEST_API_KEY, max_retries=0)
        policy = RetryPolicy(max_retries=max_retries, max_retry_after_seconds=retry_after_cap)
        return OpenAIChatModel(
            new_client,
            model=TEST_MODEL,
            retry=policy,
            timeout_seconds=timeout,
            deadline=deadline,
            sleep=sleep,
            rng=random.Random(7),
            **budgets,
        )

    return make
