"""The environment catalog: what exists, from the loaded pack, or a default window without one."""

from __future__ import annotations

from datetime import datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command

from tools.catalog import environment

pytestmark = pytest.mark.django_db


def test_it_describes_the_loaded_pack():
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())

    env = environment()

    assert env["window"] == {"start": "2026-10-14T09:30:00Z", "end": "2026-10-14T10:45:00Z"}
    assert "payment-service" in env["services"]
    assert "db_pool_pending" in env["metrics"]["payment-service"]
    assert "config_key" in env["business_tables"]["service_config"]
    assert env["tools"] == ["lookup_knowledge", "query_logs", "query_metrics", "query_mysql"]
    assert env["tool_calls_per_run"] == 24  # TOOL_MAX_CALLS_PER_RUN: the harness's budget, told the models


def test_it_offers_the_last_hour_without_a_pack():
    env = environment()

    start, end = (datetime.fromisoformat(env["window"][key].replace("Z", "+00:00")) for key in ("start", "end"))
    assert env["window"]["end"].endswith("Z")
    assert end - start == timedelta(hours=1)
    assert env["services"] == [] and env["business_tables"] == {}
