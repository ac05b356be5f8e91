"""What every management command that reads or writes the project's tables checks first."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor


def require_migrated(database: str = DEFAULT_DB_ALIAS) -> None:
    """``CommandError`` when the database lacks migrations: its first query would otherwise end the command
    with a traceback ("no such table")."""
    executor = MigrationExecutor(connections[database])
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        raise CommandError("the database is not migrated: run `manage.py migrate` first")
