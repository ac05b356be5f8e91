"""Loopback ports for the servers tests start."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def reserved_port() -> Iterator[socket.socket]:
    """A loopback port held bound (not listening) until the socket is closed. A port chosen seconds before a
    server binds it (a URL another process must know first) is otherwise free for any bind meanwhile, an
    outgoing connection's own port included: the other test pass, running beside this one, took one."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock


def free_port() -> int:
    """A loopback port free now, for a server started at once."""
    with reserved_port() as sock:
        return int(sock.getsockname()[1])
