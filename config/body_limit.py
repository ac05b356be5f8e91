"""A cap on every request's body, enforced while it arrives, before Django reads it.

Under ASGI, Django copies a request's whole body into a temporary file (in memory up to
``FILE_UPLOAD_MAX_MEMORY_SIZE``, then on disk) before any middleware, view or upload handler runs: its own
limits (``DATA_UPLOAD_MAX_MEMORY_SIZE``, the knowledge upload handler) and the sign-in check only act on a
body already stored. A client, signed in or not, could have the server write a body of any size to disk
(a review sent 1.2 GB in six seconds, answered 403 only afterwards). This wrapper answers 413
``request_too_large`` instead, before Django reads anything: when ``Content-Length`` announces more than the
cap, and when a body sent without one (chunked) grows past it.

A chunked body within the cap is read here and handed on with its length: DRF reads a request without a
``Content-Length`` as one without a body, and answered a chunked chat message "message: This field is
required".

Before a 413, up to another cap's worth of the body is read and dropped: a client sends its whole body
before it reads the answer, and a server that closes on unread data resets the connection, so the client
would see a broken pipe instead of the 413 (what Django itself does when its own limit refuses a body). A
bigger body is answered and cut off there. A client that asked to be told before sending
(``Expect: 100-continue``) gets the 413 at once.

The cap (``REQUEST_MAX_BYTES``) is the largest request the APIs accept: a knowledge upload of
``KNOWLEDGE_MAX_UPLOAD_FILES`` files of ``KNOWLEDGE_MAX_UPLOAD_BYTES``, with room for the form's fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from io import BytesIO
from typing import Any

from django.core.handlers.asgi import ASGIRequest
from django.http import JsonResponse
from django.utils import translation

from config.api_errors import request_too_large
from config.asgi_types import ASGIApp, Receive, Scope, Send


class RequestBodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if _announced_length(scope) > self.max_bytes:
            if not _expects_continue(scope):
                await self._drop_body(receive)
            await self._refuse(scope, send)
            return
        if b"chunked" not in _header(scope, b"transfer-encoding").lower():
            await self.app(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before its body ended: nobody to answer
            body += message.get("body", b"")
            if len(body) > self.max_bytes:
                if message.get("more_body"):
                    await self._drop_body(receive)
                await self._refuse(scope, send)
                return
            if not message.get("more_body"):
                break
        await self.app(_with_length(scope, len(body)), _replaying(bytes(body), receive), send)

    async def _drop_body(self, receive: Receive) -> None:
        """Read and drop the rest of the body, up to ``max_bytes`` of it."""
        dropped = 0
        while dropped <= self.max_bytes:
            message = await receive()
            if message["type"] != "http.request":
                return
            dropped += len(message.get("body", b""))
            if not message.get("more_body"):
                return

    async def _refuse(self, scope: Scope, send: Send) -> None:
        """The API's 413, in the language the client asks for (no middleware has run to choose it)."""
        language = translation.get_language_from_request(ASGIRequest(scope, BytesIO()))
        with translation.override(language):
            response = JsonResponse(request_too_large(self.max_bytes), status=413)
        headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in response.items()]
        # The connection may hold more of the body: it is closed after the answer.
        headers += [(b"content-length", str(len(response.content)).encode()), (b"connection", b"close")]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": response.content})


def _with_length(scope: Scope, length: int) -> Scope:
    """``scope`` with its body's length announced instead of its chunking."""
    headers = [
        (name, value)
        for name, value in scope["headers"]
        if name.lower() not in (b"transfer-encoding", b"content-length")
    ]
    return {**scope, "headers": [*headers, (b"content-length", str(length).encode())]}


def _replaying(body: bytes, receive: Receive) -> Receive:
    """The body read ahead, as one message; then the connection's own messages (its disconnect)."""
    pending: list[Mapping[str, Any]] = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Mapping[str, Any]:
        return pending.pop() if pending else await receive()

    return replay


def _header(scope: Scope, wanted: bytes) -> bytes:
    return next((value.strip() for name, value in scope.get("headers", []) if name.lower() == wanted), b"")


def _announced_length(scope: Scope) -> int:
    """The request's ``Content-Length``; 0 when absent or unreadable (the server refuses a malformed one)."""
    length = _header(scope, b"content-length")
    return int(length) if length.isdigit() else 0


def _expects_continue(scope: Scope) -> bool:
    return _header(scope, b"expect").lower() == b"100-continue"
