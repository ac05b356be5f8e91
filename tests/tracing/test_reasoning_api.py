"""GET /api/diagnosis/{session_id}/trace/reasoning: restricted to tracing.view_reasoning, and nowhere else.

The last test plays a real run through the runtime (``manage.py diagnose`` with a script whose model
replies carry reasoning) and looks for that text everywhere an ordinary reader could see it.
"""

from __future__ import annotations

import json
import logging
import uuid
from io import StringIO

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command

from diagnosis.models import DiagnosisRun
from tests.support.stored_events import stored_events
from tests.tracing.factories import ASSISTANT_SECRET, REASONING_SECRET, make_run, make_session
from tracing.models import AgentReasoningAudit, ReasoningSource

pytestmark = pytest.mark.django_db


def reasoning_url(session_id, run_id=None) -> str:
    url = f"/api/diagnosis/{session_id}/trace/reasoning"
    return f"{url}?runId={run_id}" if run_id else url


def grant_reasoning(user) -> None:
    user.user_permissions.add(Permission.objects.get(content_type__app_label="tracing", codename="view_reasoning"))


@pytest.mark.parametrize(
    ("who", "expected"),
    [("owner", 403), ("other_user", 403), ("run_auditor", 403), ("auditor", 200), ("anonymous", 403)],
)
def test_it_answers_reasoning_auditors_only(request, api_client, owned_run, who, expected):
    user = None if who == "anonymous" else request.getfixturevalue(who)

    response = api_client(user).get(reasoning_url(owned_run.session_id, owned_run.pk))

    assert response.status_code == expected
    if expected == 403:
        assert set(response.json()["error"]) == {"code", "message"}
        assert REASONING_SECRET not in response.content.decode()


def test_its_refusal_is_in_the_readers_language(api_client, owner, owned_run):
    response = api_client(owner).get(reasoning_url(owned_run.session_id, owned_run.pk), HTTP_ACCEPT_LANGUAGE="zh-CN")

    assert response.status_code == 403
    assert response.json()["error"]["message"] == "查看推理审计需要 tracing.view_reasoning 权限"


def test_it_lets_an_owner_holding_the_permission_read_their_own_run(api_client, owner, owned_run):
    grant_reasoning(owner)

    assert api_client(owner).get(reasoning_url(owned_run.session_id, owned_run.pk)).status_code == 200


def test_it_hides_foreign_sessions_even_from_permission_holders(api_client, other_user, owned_run):
    grant_reasoning(other_user)

    response = api_client(other_user).get(reasoning_url(owned_run.session_id, owned_run.pk))

    assert response.status_code == 404


def test_it_returns_each_step_reasoning_in_order(api_client, auditor, owned_run):
    body = api_client(auditor).get(reasoning_url(owned_run.session_id, owned_run.pk)).json()

    assert (body["sessionId"], body["runId"]) == (str(owned_run.session_id), str(owned_run.pk))
    assert [entry["stepSeq"] for entry in body["steps"]] == [1, 2, 3]
    assert body["steps"][0]["reasoningContent"] == f"{REASONING_SECRET} step 1"
    assert body["steps"][0]["assistantText"] == ASSISTANT_SECRET
    assert body["steps"][0]["reasoningSource"] == ReasoningSource.PROVIDER


def test_it_returns_why_a_draft_was_blocked_which_the_trace_never_shows(api_client, auditor, owned_run):
    finding = {"rule": "ungrounded_token", "sentence": "The DB-HOST-9 caught fire [c1].", "detail": "DB-HOST-9"}
    AgentReasoningAudit.objects.filter(run=owned_run, step__seq=2).update(findings=[finding])
    client = api_client(auditor)

    body = client.get(reasoning_url(owned_run.session_id, owned_run.pk)).json()
    trace = client.get(f"/api/diagnosis/{owned_run.session_id}/trace?runId={owned_run.pk}").content.decode()

    assert [entry["findings"] for entry in body["steps"]] == [[], [finding], []]
    assert body["steps"][1]["role"] == "planner"
    assert "DB-HOST-9" not in trace


def test_it_requires_the_run_id(api_client, auditor, owned_run):
    response = api_client(auditor).get(reasoning_url(owned_run.session_id))

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_input"


@pytest.mark.parametrize("run_id", ["not-a-uuid", ""])
def test_it_refuses_a_malformed_run_id(api_client, auditor, owned_run, run_id):
    response = api_client(auditor).get(f"{reasoning_url(owned_run.session_id)}?runId={run_id}")

    assert response.status_code == 400


def test_it_requires_the_run_to_belong_to_the_session(api_client, auditor, owner, owned_run):
    other_session = make_session(owner, title="another")
    make_run(other_session)

    wrong_session = api_client(auditor).get(reasoning_url(other_session.pk, owned_run.pk))
    unknown_run = api_client(auditor).get(reasoning_url(owned_run.session_id, uuid.uuid4()))

    assert wrong_session.status_code == unknown_run.status_code == 404
    assert REASONING_SECRET not in wrong_session.content.decode()


SCRIPT = {
    # An invalid plan (a technical retry), then valid JSON whose bad values carry the secrets (the step
    # summary must not quote them): the retry is spent and the run degrades to the fallback.
    "planner": [
        {"content": f"{ASSISTANT_SECRET} is not JSON", "reasoning_content": f"{REASONING_SECRET} first plan"},
        {
            "content": json.dumps(
                {"mode": f"{ASSISTANT_SECRET} thinking", "hypotheses": [REASONING_SECRET], "steps": []}
            )
        },
    ]
}


def test_it_keeps_reasoning_out_of_the_trace_the_stream_and_the_logs(
    api_client, auditor, tmp_path, caplog, django_capture_on_commit_callbacks
):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    caplog.set_level(logging.DEBUG)
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command(
            "diagnose",
            "payment-service p99 latency tripled since 10:05, why?",
            script=str(script),
            as_json=True,
            stdout=out,
        )
    run = DiagnosisRun.objects.get(pk=json.loads(out.getvalue())["run_id"])
    client = api_client(auditor)

    trace = client.get(f"/api/diagnosis/{run.session_id}/trace?runId={run.pk}").content.decode()
    events = " ".join(event.data for event in stored_events(run.pk))
    reasoning = client.get(reasoning_url(run.session_id, run.pk)).content.decode()

    # The sentinels were recorded (so their absence elsewhere means something) ...
    assert AgentReasoningAudit.objects.filter(run=run, reasoning_content__contains=REASONING_SECRET).exists()
    assert REASONING_SECRET in reasoning and ASSISTANT_SECRET in reasoning
    assert "done" in [event.type for event in stored_events(run.pk)]
    # ... and appear in none of the places an ordinary reader sees.
    for secret in (REASONING_SECRET, ASSISTANT_SECRET):
        assert secret not in trace
        assert secret not in events
        assert secret not in caplog.text
        assert secret not in out.getvalue()
