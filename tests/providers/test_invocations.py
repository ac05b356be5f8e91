"""The real ``{{inv:N}}`` resolver: the N-th tool invocation of this run, by ``seq``."""

from __future__ import annotations

import pytest

from diagnosis.models import ChatSession, DiagnosisRun
from diagnosis.providers.invocations import run_invocation_resolver
from tools.models import InvocationStatus, ToolInvocation


def make_run(owner) -> DiagnosisRun:
    session = ChatSession.objects.create(owner=owner, title="latency")
    return DiagnosisRun.objects.create(session=session, query="why is payment slow?")


def invoke(run: DiagnosisRun, seq: int) -> ToolInvocation:
    return ToolInvocation.objects.create(run=run, seq=seq, tool_name="query_logs", status=InvocationStatus.FAILED)


def test_it_resolves_the_nth_invocation_of_this_run_in_seq_order(owner):
    run, other_run = make_run(owner), make_run(owner)
    invoke(other_run, 1)
    second, first = invoke(run, 2), invoke(run, 1)
    resolve = run_invocation_resolver(run.id)

    assert resolve(1) == str(first.id)
    assert resolve(2) == str(second.id)


def test_it_sees_invocations_recorded_after_it_was_made(owner):
    run = make_run(owner)
    resolve = run_invocation_resolver(run.id)
    with pytest.raises(LookupError, match="fewer than 1"):
        resolve(1)

    recorded = invoke(run, 1)

    assert resolve(1) == str(recorded.id)


def test_it_refuses_a_number_past_the_last_invocation(owner):
    run = make_run(owner)
    invoke(run, 1)

    with pytest.raises(LookupError, match="fewer than 2 tool invocations"):
        run_invocation_resolver(run.id)(2)
