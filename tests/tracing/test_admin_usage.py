"""The admin run list sorts and filters runs by what they spent, in the query; the run page shows it."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from diagnosis.admin import DiagnosisRunAdmin
from diagnosis.models import DiagnosisRun
from tests.tracing.factories import make_run, make_session

pytestmark = pytest.mark.django_db

RUNS = "/admin/diagnosis/diagnosisrun/"


def spent(run: DiagnosisRun, tokens: int, cost: str | None) -> DiagnosisRun:
    DiagnosisRun.objects.filter(pk=run.pk).update(
        prompt_tokens=tokens - tokens // 10,
        completion_tokens=tokens // 10,
        reasoning_tokens=tokens // 20,
        total_tokens=tokens,
        cost=None if cost is None else Decimal(cost),
    )
    run.refresh_from_db()
    return run


@pytest.fixture
def runs(owner) -> dict[str, DiagnosisRun]:
    session = make_session(owner)
    return {
        "offline": spent(make_run(session, steps=0), 0, "0"),
        "small": spent(make_run(session, steps=0), 4_000, "0.001200"),
        "large": spent(make_run(session, steps=0), 150_000, "1.250000"),
        "unpriced": spent(make_run(session, steps=0), 20_000, None),
    }


def listed(auditor, query: dict[str, str]) -> list[str]:
    client = Client()
    client.force_login(auditor)
    page = client.get(RUNS, query).content.decode()
    ids = [str(run.pk) for run in DiagnosisRun.objects.all()]
    # Each row links to the run's page; their order on the page is the list's order.
    return sorted((id_ for id_ in ids if f"{id_}/change/" in page), key=lambda id_: page.index(f"{id_}/change/"))


@pytest.mark.parametrize(("column", "descending"), [("total_tokens", True), ("cost", False)])
def test_it_sorts_runs_by_tokens_and_cost_in_the_query(auditor, runs, column, descending):
    position = DiagnosisRunAdmin.list_display.index(column)

    with CaptureQueriesContext(connection) as queries:
        order = listed(auditor, {"o": f"{'-' if descending else ''}{position}"})

    expected = sorted(
        (run for run in runs.values() if getattr(run, column) is not None),
        key=lambda run: getattr(run, column),
        reverse=descending,
    )
    # Where NULL sorts (an unpriced run's cost) is the database's choice; the known values must be in order.
    known = {str(run.pk) for run in expected}
    assert [id_ for id_ in order if id_ in known] == [str(run.pk) for run in expected]
    assert any("ORDER BY" in q["sql"] and column in q["sql"].split("ORDER BY")[1] for q in queries.captured_queries)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"tokens": "none"}, {"offline"}),
        ({"tokens": "lt10k"}, {"small"}),
        ({"tokens": "10k-100k"}, {"unpriced"}),
        ({"tokens": "gte100k"}, {"large"}),
        ({"cost": "unpriced"}, {"unpriced"}),
        ({"cost": "free"}, {"offline"}),
        ({"cost": "lt0.01"}, {"small"}),
        ({"cost": "gte1"}, {"large"}),
        ({"cost": "nonsense"}, {"offline", "small", "large", "unpriced"}),
    ],
)
def test_it_filters_runs_by_tokens_and_cost(auditor, runs, query, expected):
    found = set(listed(auditor, query))

    assert found == {str(runs[name].pk) for name in expected}


def test_the_run_page_shows_the_runs_usage_and_cost(auditor, runs):
    client = Client()
    client.force_login(auditor)

    page = client.get(f"{RUNS}{runs['large'].pk}/change/").content.decode()

    for label, value in (("Reasoning tokens", "7500"), ("Total tokens", "150000"), ("Cost", "1.250000")):
        assert label in page and value in page, label
