"""The cap on request bodies, ahead of Django: an ASGI application that records what reached it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from config.body_limit import RequestBodyLimit

LIMIT = 100


class Recorder:
    """An application that reads the whole body, as Django does first, then answers 200."""

    def __init__(self) -> None:
        self.body = b""
        self.aborted = False
        self.headers: dict[bytes, bytes] | None = None

    async def __call__(self, scope, receive, send) -> None:
        self.headers = dict(scope["headers"])
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                self.aborted = True
                return
            self.body += message.get("body", b"")
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def request(
    chunks: list[bytes],
    *,
    length: int | None = None,
    language: str | None = None,
    expect: bool = False,
    waits_after_body: bool = False,
) -> tuple[Recorder, list[dict[str, Any]], int]:
    """Send ``chunks`` as one request through the cap; the application, what went out, and how many of the
    client's messages were read."""
    app = Recorder()
    headers = [(b"host", b"127.0.0.1")]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    else:
        headers.append((b"transfer-encoding", b"chunked"))
    if language:
        headers.append((b"accept-language", language.encode()))
    if expect:
        headers.append((b"expect", b"100-continue"))
    scope = {"type": "http", "method": "POST", "path": "/api/chat", "headers": headers, "query_string": b""}
    messages = [
        {"type": "http.request", "body": chunk, "more_body": index < len(chunks) - 1}
        for index, chunk in enumerate(chunks)
    ]
    read = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        read += 1
        if read > len(messages) and waits_after_body:
            await asyncio.sleep(3600)  # as a server does until the client goes away
        return messages[read - 1] if read <= len(messages) else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(asyncio.wait_for(RequestBodyLimit(app, LIMIT)(scope, receive, send), timeout=5))
    return app, sent, read


def answer(sent: list[dict[str, Any]]) -> tuple[int, dict[str, str], dict[str, Any]]:
    start, body = sent
    headers = {name.decode(): value.decode() for name, value in start["headers"]}
    return start["status"], headers, json.loads(body["body"])


def test_a_body_within_the_limit_reaches_the_application_whole():
    app, sent, _ = request([b"a" * 60, b"b" * 40], length=100)

    assert app.body == b"a" * 60 + b"b" * 40
    assert sent[0]["status"] == 200


def test_an_announced_length_over_the_limit_is_refused_without_the_application():
    """The body is read and dropped first: a client reads the answer only once it has sent its body."""
    app, sent, read = request([b"a" * 101], length=101)

    assert (app.body, app.aborted) == (b"", False), "the application never ran"
    assert read == 1
    status, headers, body = answer(sent)
    assert status == 413
    assert headers["content-type"] == "application/json" and headers["connection"] == "close"
    assert headers["content-length"] == str(len(sent[1]["body"]))
    assert body == {"error": {"code": "request_too_large", "message": "the request body is over 100 bytes"}}


def test_a_client_that_waits_for_a_go_ahead_is_refused_before_it_sends():
    app, sent, read = request([b"a" * 101], length=101, expect=True)

    assert (read, app.body) == (0, b"")
    assert answer(sent)[0] == 413


def test_a_body_without_a_length_is_refused_where_it_passes_the_limit():
    """A chunked body announces nothing: it is read here, and past the cap the application never sees it."""
    app, sent, read = request([b"a" * 60, b"b" * 60, b"c" * 60])

    assert app.headers is None, "the application never ran"
    assert read == 3, "the rest was read and dropped before the answer"
    status, _, body = answer(sent)
    assert status == 413 and body["error"]["code"] == "request_too_large"


def test_a_chunked_body_within_the_limit_reaches_the_application_with_its_length():
    """DRF reads a request without a Content-Length as one without a body."""
    app, sent, _ = request([b"a" * 30, b"b" * 30])

    assert app.body == b"a" * 30 + b"b" * 30
    assert app.headers[b"content-length"] == b"60" and b"transfer-encoding" not in app.headers
    assert sent[0]["status"] == 200


@pytest.mark.parametrize("length", [None, 101])
def test_a_body_whose_last_part_passes_the_limit_is_answered_at_once(length):
    """Nothing more will come: reading on would wait for a client that waits for the answer."""
    _, sent, _ = request([b"a" * 60, b"b" * 41], length=length, waits_after_body=True)

    assert answer(sent)[0] == 413


def test_no_more_than_another_limit_of_a_body_is_dropped_before_the_answer():
    _, sent, read = request([b"a" * 60] * 10)

    assert read == 4, "two chunks to pass the limit, two more dropped, then the answer"
    assert answer(sent)[0] == 413


def test_the_refusal_is_in_the_language_the_client_asks_for():
    _, sent, _ = request([b"a" * 200], length=200, language="zh-CN,zh;q=0.9")

    message = answer(sent)[2]["error"]["message"]
    assert "100" in message and "request body" not in message


@pytest.mark.parametrize("scope_type", ["lifespan", "websocket"])
def test_other_connections_pass_through(scope_type):
    seen = []

    async def app(scope, receive, send) -> None:
        seen.append(scope["type"])

    asyncio.run(RequestBodyLimit(app, LIMIT)({"type": scope_type}, None, None))
    assert seen == [scope_type]
