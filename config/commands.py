"""What every management command that reads or writes the project's tables checks first, and how it says
what it is doing."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from django.core.management.base import BaseCommand, CommandError, OutputWrapper
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


def tell(stream: OutputWrapper, text: str) -> None:
    """Write progress or a note to ``stream`` (stderr) if it can be written.

    It is for a person watching; a job run with stderr closed (``2>&-``: Python then has no ``sys.stderr``) or
    full must still get the command's result on stdout and its exit code, not a 1 for a lost progress line.
    """
    with suppress(OSError, ValueError, AttributeError):  # full or broken; closed; no stream at all
        stream.write(text)


class StderrMayFail(BaseCommand):
    """A command whose exit code survives a stderr that cannot be written: Django writes a ``CommandError``'s
    message there before it exits with the error's code, and a full or closed stderr turned a documented 2
    (a bad argument) into a 1."""

    def run_from_argv(self, argv: list[str]) -> None:
        try:
            super().run_from_argv(argv)
        except (OSError, ValueError, AttributeError) as error:
            refused = error.__context__
            if isinstance(refused, CommandError):  # its message could not be said; its exit code still counts
                sys.exit(refused.returncode)
            raise
