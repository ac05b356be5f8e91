"""Model endpoints that misbehave, through the real ``openai`` SDK against the loopback server.

An error that echoes the request must leave no key and no prompt in what the run's owner reads.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from diagnosis.nodes.messages import prompt
from diagnosis.submission import run_create
from diagnosis.tasks import execute_run
from tests.support.fake_openai import FakeOpenAIServer, echo_request
from tracing.models import AgentReasoningAudit, AgentStep

QUESTION = "payment-service p99 latency tripled since 10:05, why?"
API_KEY = "sk-live-model-key-5c1e7d"


def use_fake_model(settings, server: FakeOpenAIServer) -> None:
    settings.LLM_PROVIDER, settings.SEMANTIC_GUARD_PROVIDER = "openai", ""
    settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_API_KEY = server.base_url, "fake-model", API_KEY


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
