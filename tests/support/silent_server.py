"""Loopback servers that hang a backend: one that never answers, one that trickles its answer."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def running_silent_server() -> Iterator[str]:
    """Its ``http://127.0.0.1:port`` URL; every connection it accepted is closed on exit."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue

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
def running_trickling_server(byte_seconds: float = 0.05) -> Iterator[str]:
    """Its URL: every request is answered 200 at once, then its body one byte per ``byte_seconds``, for as
    long as the client reads (a slow-loris answer no read timeout ever trips)."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    stop = threading.Event()

    def answer(connection: socket.socket) -> None:
        with connection:
            connection.recv(65536)
            try:
                connection.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"
                )
                while not stop.is_set():
                    connection.sendall(b" ")
                    stop.wait(byte_seconds)
            except OSError:  # the client gave up
                return

    def accept() -> None:
        while not stop.is_set():
            try:
                connection = listener.accept()[0]
            except TimeoutError:
                continue
            threading.Thread(target=answer, args=(connection,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        listener.close()
