"""A loopback OpenAI-compatible server for tests (chat completions; any other POST path, e.g. embeddings, too).

Tests must never reach a real model, yet the ``openai`` provider has to be exercised through the real SDK
and real HTTP (status codes, headers, slow bodies, broken JSON). This server binds 127.0.0.1 on an
ephemeral port, answers ``POST .../chat/completions`` from a queue of scripted responses, one per request,
and records every request so tests can assert what the client sent. An exhausted queue answers 599 so a
test that makes one call too many fails loudly instead of hanging. A response may also trickle its body
after the headers (``trickle_seconds``), as a stalled model or a slow-loris proxy does, echo the
request back in an error (``echo_request``), as some gateways do, or generate a degenerate reply token by
token, streaming it as it goes, until the request's output cap stops it (``runaway``) - or, when the
request carries no cap, until the client gives up, as a small local model repeating itself does.

Usage::

    with FakeOpenAIServer() as server:
        server.enqueue(FakeResponse(status=429), FakeResponse(body=chat_completion(content="hi")))
        ... OpenAI(base_url=server.base_url, ...) ...
        assert len(server.requests) == 2
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

JsonBody = dict[str, Any] | list[Any]


@dataclass(frozen=True)
class FakeResponse:
    """One scripted answer. ``body`` as bytes is sent verbatim (for broken JSON); else it is JSON-encoded."""

    status: int = 200
    body: JsonBody | bytes = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    delay_seconds: float = 0.0
    trickle_seconds: float = 0.0
    """When set, the headers go out at once and then the body one byte per this many seconds."""
    stream: Callable[[], Iterator[bytes]] | None = None
    """When set, the body is generated while it is sent: these chunks, ``chunk_seconds`` apart, with no
    ``Content-Length`` (the body ends when the connection closes), for as long as the generator yields."""
    chunk_seconds: float = 0.001


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    json: Any


def chat_completion(
    *,
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    reasoning_content: str | None = None,
    prompt_tokens: int = 11,
    completion_tokens: int = 7,
    reasoning_tokens: int | None = None,
    model: str = "fake-model",
) -> dict[str, Any]:
    """A well-formed chat completion body; ``reasoning_content`` is added only when given (DeepSeek style),
    and so is ``usage.completion_tokens_details.reasoning_tokens`` (OpenAI style)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{index}", "type": "function", "function": call} for index, call in enumerate(tool_calls, 1)
        ]
    if reasoning_content is not None:
        message["reasoning_content"] = reasoning_content
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if reasoning_tokens is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": usage,
    }


Responder = Callable[[RecordedRequest], FakeResponse]


def echo_request(status: int = 400) -> Responder:
    """An error that quotes the request it refuses, headers (the ``Authorization`` key) first, then the body."""

    def respond(request: RecordedRequest) -> FakeResponse:
        echoed = f"invalid request; headers={request.headers} body={json.dumps(request.json)}"
        return FakeResponse(status=status, body={"error": {"message": echoed, "type": "invalid_request_error"}})

    return respond


def trickle(*, seconds_per_byte: float = 0.5) -> FakeResponse:
    """A valid completion whose headers come at once and whose body then drips, for minutes in all."""
    return FakeResponse(body=chat_completion(content="too late"), trickle_seconds=seconds_per_byte)


def runaway(*, word: str = "again ", prompt_tokens: int = 40, seconds_per_token: float = 0.001) -> Responder:
    """A model that repeats ``word`` (one token) until the request's cap - ``max_tokens`` or
    ``max_completion_tokens`` - stops it, streaming each token as it is generated; then it reports
    ``finish_reason: "length"`` and the tokens it spent. Without a cap it never stops by itself."""

    def respond(request: RecordedRequest) -> FakeResponse:
        cap = (request.json or {}).get("max_tokens") or (request.json or {}).get("max_completion_tokens")

        def chunks() -> Iterator[bytes]:
            yield b'{"id": "chatcmpl-runaway", "object": "chat.completion", "created": 1700000000, '
            yield b'"model": "fake-model", "choices": [{"index": 0, "message": {"role": "assistant", "content": "'
            generated = 0
            while cap is None or generated < cap:
                yield word.encode()
                generated += 1
            usage = {"prompt_tokens": prompt_tokens, "completion_tokens": generated}
            yield f'"}}, "finish_reason": "length"}}], "usage": {json.dumps(usage)}}}'.encode()

        return FakeResponse(stream=chunks, chunk_seconds=seconds_per_token)

    return respond


class FakeOpenAIServer:
    """Threaded loopback server; use as a context manager so it always stops."""

    EXHAUSTED_STATUS = 599

    def __init__(self) -> None:
        self._responses: deque[FakeResponse | Responder] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.requests: list[RecordedRequest] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        # A short poll keeps shutdown (once per test) from waiting out the default half second.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-openai", daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_port}/v1"

    def enqueue(self, *responses: FakeResponse | Responder) -> None:
        """Queue answers; a ``Responder`` builds its answer from the request (e.g. to cite a tool result)."""
        with self._lock:
            self._responses.extend(responses)

    def __enter__(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        # Wake handlers sleeping on a scripted delay first, so shutdown never waits for them.
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _next_response(self, request: RecordedRequest) -> FakeResponse:
        with self._lock:
            self.requests.append(request)
            if self._responses:
                response = self._responses.popleft()
                return response(request) if callable(response) else response
        return FakeResponse(status=self.EXHAUSTED_STATUS, body={"error": {"message": "fake server: no response left"}})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                recorded = RecordedRequest(
                    method="POST",
                    path=self.path,
                    headers={key.lower(): value for key, value in self.headers.items()},
                    json=json.loads(raw) if raw else None,
                )
                response = server._next_response(recorded)
                if response.delay_seconds and server._stopping.wait(response.delay_seconds):
                    return
                if response.stream is not None:
                    self._stream(response)
                    return
                body = response.body if isinstance(response.body, bytes) else json.dumps(response.body).encode()
                try:
                    self.send_response(response.status)
                    self.send_header("Content-Type", response.content_type)
                    self.send_header("Content-Length", str(len(body)))
                    for name, value in response.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    if not response.trickle_seconds:
                        self.wfile.write(body)
                        return
                    self.wfile.flush()
                    for index in range(len(body)):
                        if server._stopping.wait(response.trickle_seconds):
                            return
                        self.wfile.write(body[index : index + 1])
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    # The client gave up first (its timeout is shorter than our delay): nothing to answer.
                    return

            def _stream(self, response: FakeResponse) -> None:
                assert response.stream is not None
                self.close_connection = True
                try:
                    self.send_response(response.status)
                    self.send_header("Content-Type", response.content_type)
                    self.end_headers()
                    for chunk in response.stream():
                        if server._stopping.wait(response.chunk_seconds):
                            return
                        self.wfile.write(chunk)
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client stopped reading (its deadline): the model stops generating

            def log_message(self, format: str, *args: Any) -> None:
                """Keep test output clean; requests are recorded in ``server.requests`` instead."""

        return Handler
