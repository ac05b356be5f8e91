"""A loopback chat-ops sink: records every JSON body posted to it and answers the statuses it is given."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Sink:
    url: str = ""
    # Answers in order, (status, JSON body); once used up, every request gets ``then``.
    script: list[tuple[int, Any]] = field(default_factory=list)
    then: tuple[int, Any] = (200, {"ok": True})
    received: list[Any] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)

    def wait(self, count: int, timeout: float) -> list[Any]:
        """The bodies once ``count`` have arrived; AssertionError when they did not within ``timeout``."""
        deadline = time.monotonic() + timeout
        while len(self.received) < count and time.monotonic() < deadline:
            self.arrived.wait(0.2)
            self.arrived.clear()
        assert len(self.received) >= count, f"the sink got {len(self.received)} of {count} posts in {timeout}s"
        return list(self.received)


@contextmanager
def running_sink(*script: tuple[int, Any], then: tuple[int, Any] = (200, {"ok": True})) -> Iterator[Sink]:
    """Its URL answers ``script`` in order, then ``then`` to every further post."""
    sink = Sink(script=list(script), then=then)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                sink.received.append(json.loads(raw))
                status, body = sink.script.pop(0) if sink.script else sink.then
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            sink.arrived.set()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    sink.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield sink
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
