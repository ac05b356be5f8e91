"""The harness within a node attempt: the calls' rows and store entries are written together at its end."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.tools.test_harness import harness_with
from tools.models import InvocationStatus, ToolInvocation
from tools.store import load_verified_payload

pytestmark = pytest.mark.django_db

INSERT_INVOCATION = re.compile(r"INSERT INTO [`\"]tool_invocation[`\"]")


def invocation_inserts(captured: CaptureQueriesContext) -> int:
    return sum(bool(INSERT_INVOCATION.match(query["sql"])) for query in captured.captured_queries)


def test_it_writes_an_attempts_rows_in_one_insert_when_the_attempt_ends(run):
    reported = []
    harness = harness_with(run, on_call=lambda name, status: reported.append((name, status)))

    with CaptureQueriesContext(connection) as captured, harness.attempt():
        results = [harness.call("items", {"n": n}) for n in (1, 2, 3)]
        assert not ToolInvocation.objects.filter(run=run).exists()
        assert reported == [("items", "READY")] * 3  # the progress of each call is not held back

    assert invocation_inserts(captured) == 1
    rows = ToolInvocation.objects.filter(run=run).order_by("seq")
    assert [(row.pk, row.seq) for row in rows] == [(result.invocation_id, seq) for seq, result in enumerate(results, 1)]
    assert [load_verified_payload(run.id, result.invocation_id).ok for result in results] == [True] * 3


def test_it_writes_the_rows_of_an_attempt_that_raised(run):
    harness = harness_with(run)

    with pytest.raises(RuntimeError), harness.attempt():
        harness.call("items", {"n": 1})
        raise RuntimeError("the node failed")

    assert ToolInvocation.objects.filter(run=run).count() == 1


def test_flush_writes_what_the_attempt_kept_so_far_and_it_goes_on_keeping(run):
    harness = harness_with(run)

    with harness.attempt():
        harness.call("items", {"n": 1})
        harness.flush()
        assert ToolInvocation.objects.filter(run=run).count() == 1
        harness.call("items", {"n": 2})
        assert ToolInvocation.objects.filter(run=run).count() == 1

    assert list(ToolInvocation.objects.filter(run=run).order_by("seq").values_list("seq", flat=True)) == [1, 2]


def test_the_budget_counts_the_calls_not_written_yet(run, settings):
    settings.TOOL_MAX_CALLS_PER_RUN = 2
    harness = harness_with(run)

    with harness.attempt():
        statuses = [harness.call("items", {"n": 1}).status for _ in range(3)]

    assert statuses == [InvocationStatus.READY, InvocationStatus.READY, InvocationStatus.BLOCKED]
    assert ToolInvocation.objects.filter(run=run).count() == 3


def test_outside_an_attempt_each_call_is_written_before_it_returns(run):
    result = harness_with(run).call("items", {"n": 1})

    assert ToolInvocation.objects.filter(pk=result.invocation_id).exists()
