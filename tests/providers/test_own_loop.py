"""A request cut at its deadline returns then, even while its host name is still resolving.

``getaddrinfo`` runs in a thread of the event loop's executor and cannot be cancelled; ``asyncio.run`` would
join that thread on its way out and hold the caller until the resolver answered. ``run_on_own_loop`` (the
loop of the model provider, the bounded HTTP exchanges and the embedder) closes the loop without waiting.
Here a patched ``socket.getaddrinfo`` blocks for one host name until the test ends.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from config.bounded_http import request_within, run_on_own_loop
from diagnosis.providers.base import ErrorCode, ProviderError
from tools.knowledge.dense import EmbeddingUnavailable, OpenAICompatibleEmbedder

SLOW_HOST = "slow-dns.test"
DEADLINE = 0.3
HELD_FOR = 10.0
"""How long the resolver would hold a caller that waited for it: far past any deadline in these tests."""


@pytest.fixture
def slow_dns(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``SLOW_HOST`` resolves only when the test is over (or after ``HELD_FOR``), then not at all."""
    released = threading.Event()
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host in (SLOW_HOST, SLOW_HOST.encode()):
            released.wait(HELD_FOR)
            raise socket.gaierror(socket.EAI_AGAIN, "temporary failure in name resolution")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield
    released.set()  # the leftover resolver threads end now rather than at interpreter exit


def seconds_to_fail(call: Callable[[], object], error: type[BaseException]) -> float:
    started = time.monotonic()
    with pytest.raises(error):
        call()
    return time.monotonic() - started


def test_a_model_request_returns_its_timeout_at_the_deadline(slow_dns, make_model):
    model = make_model(max_retries=0, timeout=DEADLINE, base_url=f"http://{SLOW_HOST}:9/v1")
    started = time.monotonic()

    with pytest.raises(ProviderError) as caught:
        model.complete([{"role": "user", "content": "why is payment slow?"}])

    assert caught.value.code is ErrorCode.TIMEOUT
    assert time.monotonic() - started < DEADLINE + 1.5


def test_a_bounded_http_exchange_returns_its_timeout_at_the_deadline(slow_dns):
    waited = seconds_to_fail(
        lambda: request_within(DEADLINE, "GET", f"http://{SLOW_HOST}:9/", max_bytes=1024), TimeoutError
    )

    assert waited < DEADLINE + 1.5


def test_an_embeddings_request_fails_at_its_deadline(slow_dns):
    embedder = OpenAICompatibleEmbedder(model="m", base_url=f"http://{SLOW_HOST}:9/v1", api_key="", timeout=DEADLINE)

    waited = seconds_to_fail(lambda: embedder.embed(["pool exhausted"]), EmbeddingUnavailable)

    assert waited < DEADLINE + 1.5


def test_tasks_left_behind_are_cancelled_before_the_loop_closes():
    left: list[asyncio.Task[None]] = []

    async def main() -> str:
        left.append(asyncio.get_running_loop().create_task(asyncio.sleep(HELD_FOR)))
        return "done"

    assert run_on_own_loop(main()) == "done"
    assert left[0].cancelled()
