"""One HTTP exchange within a total deadline, from connecting to the body's last byte.

httpx's timeouts bound each connect, write and read: a peer (or a proxy) trickling its answer a byte at a
time trips none of them and holds the caller for as long as it likes. The exchange runs instead on an event
loop of its own under ``asyncio.timeout``, as the OpenAI-compatible provider's requests and the embedder's
do (``run_on_own_loop``). Used by the observability backends (``tools.backends.http_json``) and the alert
sinks (``alerts.delivery``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine, Mapping
from typing import Any, TypeVar

import httpx
import httpx2
import openai

T = TypeVar("T")


class ResponseRefused(Exception):
    """The body is not read to its end: over the caller's bound (a wrong URL serving a dump), or compressed
    though none was asked for (httpx would inflate each chunk without a bound before it could be counted: a
    kilobyte of nested gzip is gigabytes)."""


# Asked of every bounded exchange: a compressed body cannot be counted before it is inflated.
UNCOMPRESSED = {"Accept-Encoding": "identity"}


def _refuse_compressed(headers: Mapping[str, str]) -> None:
    encoding = headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise ResponseRefused(f"the response is compressed ({encoding}) though it was asked for uncompressed")


async def _read_bounded(response: httpx.Response, max_bytes: int) -> bytes:
    """The body of ``response`` as it came, or ``ResponseRefused`` past ``max_bytes`` or compressed."""
    _refuse_compressed(response.headers)
    body = bytearray()
    async for chunk in response.aiter_raw():
        body += chunk
        if len(body) > max_bytes:
            raise ResponseRefused(f"the response body is over {max_bytes} bytes")
    return bytes(body)


def bounded_sdk_client(max_bytes: int) -> httpx2.AsyncClient:
    """The ``openai`` SDK's default HTTP client (its own copy of httpx: proxies from the environment, TLS,
    pooling as the SDK sets them) with every answer asked for uncompressed and read to ``max_bytes``: the
    SDK reads an error's body itself, before its caller could bound it (a 500 inflating to 300 MB doubled a
    worker's memory). Its transports are wrapped after it made them, since httpx takes no proxies from the
    environment for a client given a transport; ``openai`` pins the httpx it ships, whose attributes these are."""
    client = openai.DefaultAsyncHttpxClient()
    client._transport = _BoundedTransport(client._transport, max_bytes)
    client._mounts = {
        pattern: None if transport is None else _BoundedTransport(transport, max_bytes)
        for pattern, transport in client._mounts.items()
    }
    return client


class _BoundedTransport(httpx2.AsyncBaseTransport):
    """A compressed answer raises ``ResponseRefused`` at its headers (the SDK lets it through to its caller);
    a body past the bound raises it where it is read, or, for an error, is cut there, so that the SDK still
    raises the error its status says (a 429 stays retryable)."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, max_bytes: int) -> None:
        self._inner = inner
        self._max_bytes = max_bytes

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        request.headers.update(UNCOMPRESSED)
        response = await self._inner.handle_async_request(request)
        try:
            _refuse_compressed(response.headers)
        except ResponseRefused:
            await response.aclose()
            raise
        stream = _BoundedStream(response.stream, self._max_bytes, cut=response.status_code >= 400)  # type: ignore[arg-type]
        return httpx2.Response(
            response.status_code, headers=response.headers, stream=stream, extensions=response.extensions
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


class _BoundedStream(httpx2.AsyncByteStream):
    def __init__(self, stream: httpx2.AsyncByteStream, max_bytes: int, *, cut: bool) -> None:
        self._stream = stream
        self._max_bytes = max_bytes
        self._cut = cut

    async def __aiter__(self) -> AsyncIterator[bytes]:
        read = 0
        async for chunk in self._stream:
            if read + len(chunk) > self._max_bytes:
                if not self._cut:
                    raise ResponseRefused(f"the response body is over {self._max_bytes} bytes")
                yield chunk[: self._max_bytes - read]
                return
            read += len(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


def request_within(
    seconds: float, method: str, url: str, *, max_bytes: int, client: Mapping[str, Any] | None = None, **request: Any
) -> httpx.Response:
    """The response to ``method url`` (``request`` as for ``httpx.request``, ``client`` as for
    ``httpx.AsyncClient``), its body read up to ``max_bytes``, asked for uncompressed; ``TimeoutError`` when that
    takes more than ``seconds`` in all, ``ResponseRefused`` past ``max_bytes`` or for a compressed body, and
    httpx's errors as they come. Not for a thread running an event loop (``run_on_own_loop`` starts one)."""
    return run_on_own_loop(_exchange(seconds, method, url, dict(client or {}), request, max_bytes))


def run_on_own_loop(main: Coroutine[Any, Any, T]) -> T:
    """``main``'s result on a new event loop, like ``asyncio.run`` but never waiting for the loop's threads.

    ``asyncio.run`` ends by joining the threads of the loop's default executor, where the loop resolves host
    names (``getaddrinfo`` blocks, and cannot be cancelled): a resolver that does not answer (glibc waits 5 s
    a try) would hold the caller well past a deadline that had already cancelled the exchange. Closing the
    loop instead shuts the executor down without waiting; the thread ends alone when the resolver answers,
    and its result, for a cancelled future, is dropped.
    """
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(main)
    finally:
        try:
            _cancel_leftover_tasks(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()


def _cancel_leftover_tasks(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel the tasks ``main`` left behind and let them unwind, so none is destroyed while pending."""
    tasks = asyncio.all_tasks(loop)
    if not tasks:
        return  # gather() of nothing would make its future on another loop
    for task in tasks:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))


async def _exchange(
    seconds: float, method: str, url: str, client: dict[str, Any], request: dict[str, Any], max_bytes: int
) -> httpx.Response:
    """The exchange, its body counted as it is read, as it came (uncompressed, or refused)."""
    headers = {**dict(request.pop("headers", None) or {}), **UNCOMPRESSED}
    async with (
        httpx.AsyncClient(timeout=seconds, **client) as http,
        asyncio.timeout(seconds),
        http.stream(method, url, headers=headers, **request) as response,
    ):
        body = await _read_bounded(response, max_bytes)
        # The body as read, whole: the headers that described its transfer go.
        kept = [(name, value) for name, value in response.headers.multi_items() if name.lower() not in _TRANSFER]
        return httpx.Response(
            response.status_code, headers=kept, content=body, request=response.request, extensions=response.extensions
        )


_TRANSFER = frozenset({"content-length", "transfer-encoding"})
