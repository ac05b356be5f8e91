"""A loopback HTTP server answering Loki's documented JSON, recording every request it gets (the Prometheus
client's tests use it too, for answers no real Prometheus gives).

No Loki server can be installed on these machines (docs/decisions.md), so the Loki client is tested against
the shapes Loki's HTTP API reference documents: ``streams`` and ``vector`` results, its error JSON, and the
``/loki/api/v1/push`` body it accepts.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Received:
    method: str
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    body: Any


@dataclass
class LokiStub:
    url: str = ""
    # path -> (status, JSON body) or (status, JSON body, headers); a path not listed answers 404.
    answers: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)

    def queries(self) -> list[str]:
        return [request.params["query"] for request in self.received if "query" in request.params]


def streams(*streams: tuple[dict[str, str], list[tuple[int, str]]]) -> dict[str, Any]:
    """A successful ``query_range`` answer of log streams, as Loki documents it."""
    result = [{"stream": labels, "values": [[str(ns), line] for ns, line in values]} for labels, values in streams]
    return {"status": "success", "data": {"resultType": "streams", "result": result}}


def count(total: int | None) -> dict[str, Any]:
    """A successful instant ``query`` answer of ``sum(count_over_time(...))`` (no sample when nothing matched)."""
    result = [] if total is None else [{"metric": {}, "value": [1700000000, str(total)]}]
    return {"status": "success", "data": {"resultType": "vector", "result": result}}


def _body(raw: bytes, content_type: str) -> Any:
    """A JSON body (Loki's push) as JSON, a form (a Prometheus-style POST query) as its fields."""
    if not raw:
        return None
    if content_type.startswith("application/x-www-form-urlencoded"):
        return {key: values[-1] for key, values in parse_qs(raw.decode()).items()}
    return json.loads(raw)


@contextmanager
def running_loki_stub() -> Iterator[LokiStub]:
    stub = LokiStub()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, method: str) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            stub.received.append(
                Received(
                    method,
                    parts.path,
                    {key: values[-1] for key, values in parse_qs(parts.query).items()},
                    {key.lower(): value for key, value in self.headers.items()},
                    _body(raw, self.headers.get("Content-Type") or ""),
                )
            )
            status, body, *headers = stub.answers.get(parts.path, (404, {"status": "error", "error": "not found"}))
            encoded = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
            self.send_response(status)
            for name, value in (headers[0] if headers else {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(encoded)))
            self.end_headers()
            self.wfile.write(encoded)

        def do_GET(self) -> None:
            self._answer("GET")

        def do_POST(self) -> None:
            self._answer("POST")

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads ``received``, not a log."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
