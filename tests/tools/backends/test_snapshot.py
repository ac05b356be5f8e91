"""The embedded backends read the loaded scenario's tables once per load, and see every new load."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from config.run_scope import run_scope
from tools.backends import log_backend, metric_backend
from tools.models import LogRecord
from tools.scenarios.loader import load_scenario

pytestmark = pytest.mark.django_db

WINDOW = {"start": datetime(2024, 5, 1, 10, tzinfo=UTC), "end": datetime(2024, 5, 1, 11, tzinfo=UTC)}


def checkout_messages() -> list[str]:
    payload = log_backend(deadline=math.inf).query(
        service="checkout-service", level=None, contains=None, limit=100, **WINDOW
    )
    return [record["message"] for record in payload["records"]]


def checkout_p99() -> list[float]:
    payload = metric_backend(deadline=math.inf).query(
        service="checkout-service", metric="p99_latency_ms", step=60, **WINDOW
    )
    return [point["value"] for point in payload["series"][0]["points"]]


def test_a_loaded_scenario_is_read_from_its_tables_once(loaded, django_assert_num_queries):
    first = checkout_messages(), checkout_p99()

    with django_assert_num_queries(2):  # the loaded scenario's version, once per call outside a run
        assert (checkout_messages(), checkout_p99()) == first
    with run_scope(before_wait=lambda: None), django_assert_num_queries(1):  # inside a run, once per run
        assert (checkout_messages(), checkout_p99()) == first


def test_a_new_load_is_seen_at_the_next_query(loaded, tiny_pack):
    assert "request served in 42ms" in checkout_messages()
    logs = tiny_pack / "logs.jsonl"
    logs.write_text(logs.read_text().replace("request served in 42ms", "request served in 43ms"))

    load_scenario(tiny_pack)

    messages = checkout_messages()
    assert "request served in 43ms" in messages
    assert "request served in 42ms" not in messages


def test_without_a_loaded_scenario_the_tables_are_read_at_every_query(db):
    at = datetime(2024, 5, 1, 10, 5, tzinfo=UTC)
    LogRecord.objects.create(ts=at, service="checkout-service", level="INFO", message="first")
    assert checkout_messages() == ["first"]

    LogRecord.objects.create(ts=at, service="checkout-service", level="INFO", message="second")

    assert checkout_messages() == ["first", "second"]


def test_a_caller_that_changes_its_records_changes_no_one_elses(loaded):
    payload = log_backend(deadline=math.inf).query(
        service="checkout-service", level=None, contains=None, limit=100, **WINDOW
    )
    payload["records"][0]["message"] = "edited"

    assert checkout_messages()[0] != "edited"
