"""What a run installs for the code below it (``config.run_scope``): it is told before every wait outside
its process, and reads what operators change once per run."""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

from config.run_scope import read_once, run_scope, waiting
from tests.support.live import closed_port
from tools.backends.http_json import HttpEndpoint, request_json
from tools.errors import ToolError
from tools.knowledge.dense import EmbeddingUnavailable, configured_embedder
from tools.models import InvocationStatus


class Waits:
    """A run's ``before_wait`` that counts what it was told."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> None:
        self.count += 1


def test_outside_a_run_nothing_is_told_and_everything_is_read_each_time():
    waiting()
    reads: list[int] = []
    assert [read_once("fact", lambda: reads.append(1) or len(reads)) for _ in range(2)] == [1, 2]


def test_within_a_run_a_fact_is_read_once_and_runs_do_not_share_it():
    reads: list[str] = []

    def read() -> str:
        reads.append("read")
        return f"version {len(reads)}"

    with run_scope(before_wait=Waits()):
        assert [read_once("fact", read) for _ in range(3)] == ["version 1"] * 3
    with run_scope(before_wait=Waits()):
        assert read_once("fact", read) == "version 2"


def test_the_run_is_told_before_it_asks_an_http_backend():
    waits = Waits()
    endpoint = HttpEndpoint(name="prometheus", base_url=f"http://127.0.0.1:{closed_port()}")
    with run_scope(before_wait=waits), pytest.raises(ToolError):
        request_json(endpoint, "GET", "/api/v1/query", deadline=time.monotonic() + 5)
    assert waits.count == 1


@override_settings(
    EMBEDDING_MODEL="nomic-embed-text", LLM_BASE_URL=f"http://127.0.0.1:{closed_port()}/v1", EMBEDDING_TIMEOUT_SECONDS=2
)
def test_the_run_is_told_before_it_asks_for_embeddings():
    embedder = configured_embedder()
    assert embedder is not None
    waits = Waits()
    with run_scope(before_wait=waits), pytest.raises(EmbeddingUnavailable):
        embedder.embed(["connection pool exhausted"])
    assert waits.count == 1


@pytest.mark.django_db
def test_query_mysql_reads_the_scenario_once_and_tells_the_run_only_of_a_slow_statement(harness, loaded):
    # The embedded statement's child answers these at once: the run is told only once a statement has kept
    # it waiting (tests/tools/sql/test_connection.py); MySQL's statements always tell it first.
    harness.call("query_mysql", {"sql": "SELECT 1"})  # a warm child, as after a run's first statement
    waits = Waits()
    with run_scope(before_wait=waits), CaptureQueriesContext(connection) as captured:
        results = [harness.call("query_mysql", {"sql": "SELECT order_no FROM orders"}) for _ in range(2)]

    assert [result.status for result in results] == [InvocationStatus.READY] * 2
    assert waits.count == 0
    assert sum("loaded_scenario" in query["sql"] for query in captured.captured_queries) == 1
