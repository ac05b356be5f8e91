"""The diagnosis path compiles its graph once per process; each run brings its own context."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from diagnosis.paths import diagnosis_graph

pytestmark = pytest.mark.django_db

HONEST = Path(__file__).parent / "scripts" / "honest.json"


def test_it_compiles_the_graph_once_and_runs_two_runs_on_it(monkeypatch):
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    compiled = diagnosis_graph.diagnosis_graph()

    def no_second_compile(*args, **kwargs):
        raise AssertionError("the graph was compiled again")

    monkeypatch.setattr(diagnosis_graph, "build_graph", no_second_compile)
    answers = []
    for _ in range(2):
        out = StringIO()
        call_command(
            "diagnose",
            "payment-service p99 latency tripled since 10:05, why?",
            "--script",
            str(HONEST),
            "--json",
            stdout=out,
        )
        answers.append(json.loads(out.getvalue()))

    assert diagnosis_graph.diagnosis_graph() is compiled
    assert [answer["status"] for answer in answers] == ["SUCCESS", "SUCCESS"]
    assert answers[0]["run_id"] != answers[1]["run_id"]
    invocation_ids = [answer["tool_invocations"][0]["id"] for answer in answers]
    assert invocation_ids[0] != invocation_ids[1]  # each run's context: its own harness and invocations
