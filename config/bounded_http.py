"""One HTTP exchange within a total deadline, from connecting to the body's last byte.

httpx's timeouts bound each connect, write and read: a peer (or a proxy) trickling its answer a byte at a
time trips none of them and holds the caller for as long as it likes. The exchange runs instead on an event
loop of its own under ``asyncio.timeout``, as the OpenAI-compatible provider's requests do. Used by the
observability backends (``tools.backends.http_json``) and the alert sinks (``alerts.delivery``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import httpx


def request_within(
    seconds: float, method: str, url: str, *, client: Mapping[str, Any] | None = None, **request: Any
) -> httpx.Response:
    """The response to ``method url`` (``request`` as for ``httpx.request``, ``client`` as for
    ``httpx.AsyncClient``), its body read; ``TimeoutError`` when that takes more than ``seconds`` in all, and
    httpx's errors as they come. Not for a thread running an event loop (``asyncio.run`` starts one)."""
    return asyncio.run(_exchange(seconds, method, url, dict(client or {}), request))


async def _exchange(
    seconds: float, method: str, url: str, client: dict[str, Any], request: dict[str, Any]
) -> httpx.Response:
    async with httpx.AsyncClient(timeout=seconds, **client) as http, asyncio.timeout(seconds):
        return await http.request(method, url, **request)
