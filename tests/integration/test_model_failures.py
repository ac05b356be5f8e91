"""Model endpoints that misbehave, through the real ``openai`` SDK against the loopback server.

A reply that trickles in must not hold a run (or the thread executing it) past its budget: the run ends
in the fallback answer, SUCCESS and degraded, well before its time limit, and the next run is not kept
waiting. An error that echoes the request must leave no key and no prompt in what the run's owner reads.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from diagnosis.models import DiagnosisRun, RunStatus
from diagnosis.nodes.messages import prompt
from diagnosis.submission import run_create
from diagnosis.tasks import execute_run
from tests.integration.conftest import start_stack
from tests.support.clients import login, submit
from tests.support.fake_openai import FakeOpenAIServer, echo_request, trickle
from tests.support.sse_client import read_events
from tracing.models import AgentReasoningAudit, AgentStep

QUESTION = "payment-service p99 latency tripled since 10:05, why?"
API_KEY = "sk-live-model-key-5c1e7d"


def use_fake_model(settings, server: FakeOpenAIServer) -> None:
    settings.LLM_PROVIDER, settings.SEMANTIC_GUARD_PROVIDER = "openai", ""
    settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_API_KEY = server.base_url, "fake-model", API_KEY


@pytest.mark.django_db
def test_a_reply_that_never_ends_leaves_the_fallback_its_time_before_the_limit(settings):
    """The run's model budget (soft limit 6 s less a 3 s reserve) cuts the request, not its 60 s timeout."""
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    settings.CELERY_TASK_SOFT_TIME_LIMIT, settings.RUN_FALLBACK_RESERVE_SECONDS = 6, 3
    settings.LLM_TIMEOUT_SECONDS, settings.LLM_MAX_RETRIES = 60, 2
    with FakeOpenAIServer() as server:
        server.enqueue(trickle(), trickle())
        use_fake_model(settings, server)
        out = StringIO()
        call_command("diagnose", QUESTION, "--json", stdout=out)
        requests = len(server.requests)

    result = json.loads(out.getvalue())
    run = DiagnosisRun.objects.get(pk=result["run_id"])
    assert (run.status, run.degraded) == (RunStatus.SUCCESS, True)
    assert run.orchestration_trace["termination_reason"] == "fallback_planner_model_timeout"
    assert run.final_answer
    # One request, cut at the budget; the planner's retry found the budget spent and sent nothing.
    assert requests == 1
    assert run.duration_ms < 6_000, "ended before the soft time limit"


@pytest.mark.django_db
def test_an_error_echoing_the_request_leaves_no_key_or_prompt_in_the_trace(settings, owner):
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    with FakeOpenAIServer() as server:
        server.enqueue(echo_request(400))
        use_fake_model(settings, server)
        run = run_create(user=owner, message=QUESTION)
        execute_run.apply(args=(str(run.pk),))
        echoed = server.requests[0]
    client = APIClient()
    client.force_login(owner)

    response = client.get(f"/api/diagnosis/{run.session_id}/trace?runId={run.pk}")

    assert response.status_code == 200
    body = response.json()
    assert body["run"]["status"] == "SUCCESS" and body["run"]["degraded"] is True
    # A 400 is not retried: the planner's one step, then the fallback.
    assert [step["summary"] for step in body["steps"]] == ["BadRequestError (HTTP 400)"]
    planner_prompt_start = prompt("planner")[0][:40]
    assert echoed.headers["authorization"] == f"Bearer {API_KEY}"
    assert planner_prompt_start in json.dumps(echoed.json), "the server did receive what it echoed"
    for text in [response.content.decode(), *AgentStep.objects.values_list("summary", flat=True)]:
        assert API_KEY not in text and planner_prompt_start not in text
    for audit in AgentReasoningAudit.objects.filter(run=run):
        assert API_KEY not in audit.assistant_text + audit.reasoning_content


@pytest.mark.django_db(transaction=True)
def test_a_trickling_model_neither_holds_its_run_nor_starves_the_next(static_root):
    """One worker thread (embedded) or one solo worker (Celery), two runs: both end in the fallback."""
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    cookies, headers = login("trickle-owner")
    with FakeOpenAIServer() as server, ExitStack() as stack:
        # Each run: the planner's request and its retry's, each cut at the 1 s timeout.
        server.enqueue(*[trickle() for _ in range(4)])
        live = start_stack(
            stack,
            static_root,
            LLM_PROVIDER="openai",
            LLM_BASE_URL=server.base_url,
            LLM_MODEL="fake-model",
            LLM_API_KEY=API_KEY,
            LLM_TIMEOUT_SECONDS="1",
            LLM_MAX_RETRIES="0",
            EMBEDDED_WORKER_THREADS="1",
        )
        first = submit(live.base, headers, QUESTION)
        second = submit(live.base, headers, QUESTION)
        # Each run needs about 2 s of model time; 30 s is the bound of both, queued one after the other.
        streams = [read_events(live.base + run["events_url"], cookies=cookies, timeout=30) for run in (first, second)]

    for accepted, events in zip((first, second), streams, strict=True):
        assert [event.event for event in events][-2:] == ["content", "done"]
        assert events[-1].data == {"outcome": "FALLBACK", "run_id": accepted["run_id"]}
        run = DiagnosisRun.objects.get(pk=accepted["run_id"])
        assert (run.status, run.degraded) == (RunStatus.SUCCESS, True)
        assert run.orchestration_trace["termination_reason"] == "fallback_planner_model_timeout"
