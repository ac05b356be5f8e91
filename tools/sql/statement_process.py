"""Warm ``sqlite_process.py`` children: started once, reused statement after statement, killed at a deadline.

Starting a bare interpreter per statement cost about a fifth of an offline diagnosis. A child now answers
one request per line for as long as it lives; the guarantee that made it a process is kept: a statement
that overruns its deadline has its child killed (wherever SQLite is, even inside one function call) and
the next statement starts a fresh one. A child that exits or breaks the protocol is never reused.

Idle children are kept per process (``os.register_at_fork`` forgets a parent's children in a forked
worker, whose pipes they are not) and close when their stdin does: at exit, or when the parent dies.
"""

from __future__ import annotations

import atexit
import os
import selectors
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path


class StatementProcessTimeout(Exception):
    """The child did not answer before the deadline; it has been killed and reaped."""


class StatementProcessFailed(Exception):
    """The child ended without answering; ``returncode`` is its exit status, ``stderr`` what it wrote."""

    def __init__(self, returncode: int, stderr: bytes) -> None:
        super().__init__(f"exit status {returncode}")
        self.returncode = returncode
        self.stderr = stderr


class StatementProcess:
    """One child, one request at a time: a JSON line in, a JSON line out."""

    def __init__(self, command: Sequence[str], *, cwd: Path) -> None:
        self.command = tuple(command)
        self._process = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env={}
        )

    def ask(
        self, request: bytes, *, deadline: float, when_slow: Callable[[], None] | None = None, after: float = 0.0
    ) -> bytes:
        """The child's reply line to ``request`` (one line, no newline in it).

        ``when_slow`` is called once if the reply has not come within ``after`` seconds. If it raises, the
        child is killed (its reply would be left in the pipe for the next request) and the error propagates."""
        assert self._process.stdin is not None and self._process.stdout is not None
        try:
            self._process.stdin.write(request + b"\n")
            self._process.stdin.flush()
        except BrokenPipeError:
            self._fail()
        descriptor = self._process.stdout.fileno()
        received = bytearray()
        with selectors.DefaultSelector() as selector:
            selector.register(descriptor, selectors.EVENT_READ)
            while not received.endswith(b"\n"):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self.kill()
                    raise StatementProcessTimeout
                if not selector.select(remaining if when_slow is None else min(remaining, after)):
                    if when_slow is not None:
                        self._meanwhile(when_slow)
                        when_slow = None
                    continue
                chunk = os.read(descriptor, 1 << 16)
                if not chunk:
                    self._fail()
                received += chunk
        return bytes(received[:-1])

    def _meanwhile(self, call: Callable[[], None]) -> None:
        try:
            call()
        except BaseException:
            self.kill()
            raise

    @property
    def pid(self) -> int:
        return self._process.pid

    def kill(self) -> None:
        self._process.kill()
        self._process.wait()
        self.close_pipes()

    def close(self) -> None:
        """End an idle child: its loop ends when its stdin does."""
        self.close_pipes()
        try:
            self._process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self.kill()

    def _fail(self) -> None:
        self._process.wait()
        assert self._process.stderr is not None
        stderr = self._process.stderr.read()
        self.close_pipes()
        raise StatementProcessFailed(self._process.returncode, stderr)

    def close_pipes(self) -> None:
        for pipe in (self._process.stdin, self._process.stdout, self._process.stderr):
            if pipe is not None:
                with suppress(BrokenPipeError):
                    pipe.close()


_idle: list[StatementProcess] = []
_idle_lock = threading.Lock()
# A forked worker's copies of its parent's children: pipes closed, objects kept so that none is reaped here.
_inherited: list[StatementProcess] = []


def ask(
    command: Sequence[str],
    request: bytes,
    *,
    deadline: float,
    cwd: Path,
    when_slow: Callable[[], None] | None = None,
    after: float = 0.0,
) -> bytes:
    """``request`` answered by an idle child running ``command``, or by a new one; see the module's note.
    ``when_slow`` and ``after`` as for ``StatementProcess.ask``.

    Concurrent callers each hold their own child, so statements never queue behind one another.
    """
    command = tuple(command)
    with _idle_lock:
        child = next((candidate for candidate in _idle if candidate.command == command), None)
        if child is not None:
            _idle.remove(child)
    if child is None:
        child = StatementProcess(command, cwd=cwd)
    # Raises with the child killed or gone: never back in _idle.
    reply = child.ask(request, deadline=deadline, when_slow=when_slow, after=after)
    with _idle_lock:
        _idle.append(child)
    return reply


def _forget_parent_children() -> None:
    global _idle_lock
    _idle_lock = threading.Lock()  # another thread may have held it at the fork
    for child in _idle:
        child.close_pipes()
    _inherited.extend(_idle)
    _idle.clear()


def _close_idle() -> None:
    with _idle_lock:
        children = list(_idle)
        _idle.clear()
    for child in children:
        child.close()


os.register_at_fork(after_in_child=_forget_parent_children)
atexit.register(_close_idle)
