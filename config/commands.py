"""What every management command that reads or writes the project's tables checks first, and how it says
what it is doing."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any, TextIO, cast

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.migrations.executor import MigrationExecutor


def require_migrated(database: str = DEFAULT_DB_ALIAS) -> None:
    """``CommandError`` when the database cannot be reached or lacks migrations: its first query would
    otherwise end the command with a traceback ("no such table", "Can't connect")."""
    try:
        executor = MigrationExecutor(connections[database])
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as error:
        # Down, unknown, refusing the user, locked: said in a line, not a traceback.
        raise CommandError(f"the database cannot be reached: {error}") from error
    if plan:
        raise CommandError("the database is not migrated: run `manage.py migrate` first")


@contextmanager
def database_failures(left: str) -> Iterator[None]:
    """A database error during the command's work (locked past its timeout, a server restarting) as a
    ``CommandError`` (exit 1) that says what the command left behind (``left``), not a traceback."""
    try:
        yield
    except DatabaseError as error:
        raise CommandError(f"the database failed: {error}; {left}") from None


@contextmanager
def terminated_as_interrupted() -> Iterator[None]:
    """SIGTERM (a process manager's stop, ``timeout``) raised as Ctrl-C is, ``KeyboardInterrupt``, while the
    block runs: its transaction rolls back and its ``finally`` runs (a load's staging file was left behind)."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _BestEffort:
    """A stream for a person watching: what cannot be written to it is dropped.

    Progress and notes go to stderr; a job run with stderr closed (``2>&-``: Python then has no ``sys.stderr``)
    or full must still get the command's result on stdout and its exit code, not a 1 for a lost line, and
    Django writes a ``CommandError``'s message to stderr before it exits with the error's code (2 for a bad
    argument).
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        with suppress(OSError, ValueError, AttributeError):  # full or broken; closed; no stream at all
            # Not the stream's count: an ``OutputWrapper`` or a codecs writer answers None.
            self._stream.write(text)
        return len(text)

    def flush(self) -> None:
        with suppress(OSError, ValueError, AttributeError):
            self._stream.flush()

    def isatty(self) -> bool:
        with suppress(OSError, ValueError, AttributeError):
            return bool(self._stream.isatty())
        return False


class StderrMayFail(BaseCommand):
    """A command whose stderr is best effort (``_BestEffort``), whether Django opens it or ``call_command``
    hands it one."""

    def __init__(
        self,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
        no_color: bool = False,
        force_color: bool = False,
    ) -> None:
        super().__init__(stdout, cast(TextIO, _BestEffort(stderr or sys.stderr)), no_color, force_color)

    def execute(self, *args: Any, **options: Any) -> Any:
        if options.get("stderr"):
            options["stderr"] = _BestEffort(options["stderr"])
        return super().execute(*args, **options)
