"""Migrations apply on the configured database (SQLite in pass 1, MariaDB in pass 2) and are complete."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection

TABLES = {
    "chat_session",
    "diagnosis_run",
    "agent_step",
    "tool_invocation",
    "diagnosis_trace_event",
    "agent_reasoning_audit",
    "knowledge_document",
    "knowledge_chunk",
    "knowledge_index_state",
    "log_record",
    "metric_point",
    "loaded_scenario",
}


@pytest.mark.django_db
def test_it_creates_every_table_of_the_design():
    assert set(connection.introspection.table_names()) >= TABLES


@pytest.mark.django_db
def test_it_creates_the_cache_table_only_for_the_database_cache(settings):
    uses_db_cache = settings.CACHES["default"]["BACKEND"].endswith("DatabaseCache")
    assert ("superbiz_cache" in connection.introspection.table_names()) is uses_db_cache


@pytest.mark.django_db
def test_it_has_no_model_change_without_a_migration():
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


@pytest.mark.django_db
def test_it_creates_the_named_indexes():
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, "diagnosis_run")
    names = set(constraints)
    assert {"run_session_started", "run_status_started", "run_verdict_started"} <= names
