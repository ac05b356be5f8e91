"""Loopback servers that hang a backend: one that never answers, one that trickles its answer."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Handler = Callable[[socket.socket, threading.Event], None]


@contextmanager
def _serving(handle: Handler) -> Iterator[str]:
    """Its ``http://127.0.0.1:port`` URL; each connection goes to ``handle`` (with the stop event) on a
    thread of its own, and every connection accepted is closed on exit."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection = listener.accept()[0]
            except TimeoutError:
                continue
            accepted.append(connection)
            threading.Thread(target=handle, args=(connection, stop), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for connection in accepted:
            connection.close()
        listener.close()


@contextmanager
def running_silent_server() -> Iterator[str]:
    """Accepts connections and never answers: a hung backend."""
    with _serving(lambda connection, stop: None) as url:
        yield url


@contextmanager
def running_trickling_server(byte_seconds: float = 0.05) -> Iterator[str]:
    """Answers every request 200 at once, then its body one byte per ``byte_seconds``, for as long as the
    client reads (a slow-loris answer no read timeout ever trips)."""

    def answer(connection: socket.socket, stop: threading.Event) -> None:
        try:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
            while not stop.is_set():
                connection.sendall(b" ")
                stop.wait(byte_seconds)
        except OSError:  # the client gave up
            return

    with _serving(answer) as url:
        yield url
