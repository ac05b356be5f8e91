"""Open, idle streams hold no database connection in the server (real uvicorn, real streams).

Each stream used to read storage on a thread of its own, which kept a connection open for as long as the
page stayed open: N pages were N connections (past MariaDB's ``max_connections`` soon enough). The server's
connections are counted from outside: SQLite files, or TCP connections to MariaDB's port, among its open
file descriptors.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from diagnosis import sse
from diagnosis.models import ChatSession, DiagnosisRun
from tests.support.clients import login

pytestmark = pytest.mark.django_db(transaction=True)

STREAMS = 30


def database_connections(pid: int) -> int:
    """Open connections of process ``pid`` to this test run's database."""
    fds = Path(f"/proc/{pid}/fd")
    targets = [os.readlink(fd) for fd in fds.iterdir()]
    settings = connection.settings_dict
    if settings["ENGINE"].endswith("sqlite3"):
        return sum(target == str(settings["NAME"]) for target in targets)
    sockets = {target.removeprefix("socket:[").removesuffix("]") for target in targets if target.startswith("socket:")}
    port = f"{int(settings['PORT'] or 3306):04X}"
    count = 0
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[2].endswith(f":{port}") and fields[9] in sockets:
                count += 1
    return count


def open_stream(base: str, path: str, token_header: dict[str, str]) -> socket.socket:
    """An SSE request on a raw socket, read until the stream has opened, then left open and idle."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    auth = token_header["Authorization"]
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: {auth}\r\n\r\n".encode())
    received = b""
    while b"event: stream-open" not in received:
        chunk = sock.recv(65536)
        assert chunk, f"the server closed the stream: {received[:300]!r}"
        received += chunk
    return sock


def test_open_idle_streams_hold_no_database_connection(module_stack):
    _, headers = login("idle-pages")
    owner = get_user_model().objects.get(username="idle-pages")
    # Running runs nobody executes: their streams stay open and idle.
    session = ChatSession.objects.create(owner=owner)
    runs = [DiagnosisRun.objects.create(session=session, query=f"idle {n}") for n in range(3)]

    streams = [open_stream(module_stack.base, sse.events_url(runs[n % 3].pk), headers) for n in range(STREAMS)]
    try:
        held = database_connections(module_stack.server.pid)
    finally:
        for stream in streams:
            stream.close()

    # The process's own connections (the read thread's, between reads none; the embedded runner's) remain.
    assert held <= 3, f"{held} database connections for {STREAMS} idle streams"
