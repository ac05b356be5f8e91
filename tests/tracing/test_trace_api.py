"""GET /api/diagnosis/{session_id}/trace: who may read it, what it answers, and at what query cost."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from diagnosis.models import DiagnosisRun
from diagnosis.trace.selectors import SESSION_RUNS_LIMIT
from tests.tracing.factories import (
    ASSISTANT_SECRET,
    FALLBACK_TRACE,
    REASONING_SECRET,
    RETRIED_TRACE,
    make_run,
    make_session,
)
from tools.harness import ToolHarness
from tools.store import canonical_json, sha256_hex

pytestmark = pytest.mark.django_db


def trace_url(session_id, run_id=None) -> str:
    url = f"/api/diagnosis/{session_id}/trace"
    return f"{url}?runId={run_id}" if run_id else url


@pytest.mark.parametrize("with_run_id", [True, False])
@pytest.mark.parametrize(
    ("who", "expected"), [("owner", 200), ("auditor", 200), ("other_user", 404), ("anonymous", 403)]
)
def test_it_answers_owner_and_auditor_only(request, api_client, owned_run, who, expected, with_run_id):
    user = None if who == "anonymous" else request.getfixturevalue(who)

    response = api_client(user).get(trace_url(owned_run.session_id, owned_run.pk if with_run_id else None))

    assert response.status_code == expected
    if expected != 200:
        assert set(response.json()["error"]) == {"code", "message"}


def test_it_answers_a_foreign_session_exactly_like_an_unknown_one(api_client, other_user, owned_run):
    foreign = api_client(other_user).get(trace_url(owned_run.session_id, owned_run.pk))
    unknown = api_client(other_user).get(trace_url(uuid.uuid4(), owned_run.pk))

    assert foreign.status_code == unknown.status_code == 404
    assert foreign.json() == unknown.json()


def test_it_returns_the_exact_run_in_camel_case(api_client, owner):
    run = make_run(make_session(owner), trace=RETRIED_TRACE, steps=2, invocations=1, events=3)

    body = api_client(owner).get(trace_url(run.session_id, run.pk)).json()

    assert body["sessionId"] == str(run.session_id)
    assert body["run"]["runId"] == str(run.pk)
    assert {"query", "conclusion", "status", "intent", "degraded", "effectiveVerdict", "selfEvaluation"} <= set(
        body["run"]
    )
    assert body["run"]["orchestrationTrace"] == RETRIED_TRACE
    assert body["run"]["selfEvaluation"] == run.self_evaluation
    assert [step["seq"] for step in body["steps"]] == [1, 2]
    assert set(body["steps"][0]) >= {"node", "attempt", "outcome", "promptTokens", "latencyMs", "summary"}
    assert body["toolInvocations"][0]["toolName"] == "query_logs"
    assert body["toolInvocations"][0]["payloadSha256"] == "a" * 64
    assert body["toolInvocations"][0]["argsSha256"] == "b" * 64
    assert body["toolInvocations"][0]["argsShape"] == {"service": "str(15)"}
    assert [event["seq"] for event in body["timeline"]] == [1, 2, 3]


def test_it_answers_null_for_a_missing_verdict_and_trace(api_client, owner):
    run = make_run(make_session(owner), trace=None, intent="SYSTEM_CHAT", verdict="")

    body = api_client(owner).get(trace_url(run.session_id, run.pk)).json()["run"]

    assert (body["orchestrationTrace"], body["effectiveVerdict"], body["intent"]) == (None, None, "SYSTEM_CHAT")


def test_it_shows_a_fallback_run_as_degraded(api_client, owner):
    run = make_run(make_session(owner), trace=FALLBACK_TRACE)

    body = api_client(owner).get(trace_url(run.session_id, run.pk)).json()["run"]

    assert body["degraded"] is True
    assert body["orchestrationTrace"]["termination_reason"] == "fallback_executor_tool_blocked"


@pytest.mark.parametrize("with_run_id", [True, False])
def test_it_never_returns_reasoning_or_assistant_text(api_client, auditor, owned_run, with_run_id):
    url = trace_url(owned_run.session_id, owned_run.pk if with_run_id else None)

    text = api_client(auditor).get(url).content.decode()

    assert REASONING_SECRET not in text
    assert ASSISTANT_SECRET not in text
    # A count of reasoning tokens is usage, not reasoning: the only "reasoning" the trace may name.
    assert "reasoning" not in text.lower().replace('"reasoningtokens"', "")


def test_it_shows_what_a_tool_was_asked_without_the_arguments_text(api_client, owner, owned_run):
    sql = "SELECT card_number FROM payments WHERE holder = 'Ada Lovelace'"
    called = ToolHarness(owned_run.pk).call("query_mysql", {"sql": sql})

    response = api_client(owner).get(trace_url(owned_run.session_id, owned_run.pk))

    (invocation,) = [
        row for row in response.json()["toolInvocations"] if row["invocationId"] == str(called.invocation_id)
    ]
    assert invocation["argsShape"] == {"sql": f"str({len(sql)})"}
    assert invocation["argsSha256"] == sha256_hex(canonical_json({"sql": sql}))
    assert "argsSummary" not in invocation
    assert "card_number" not in response.content.decode() and "Lovelace" not in response.content.decode()


def test_it_refuses_a_run_of_another_session(api_client, owner, owned_run):
    other_session = make_session(owner, title="another")

    response = api_client(owner).get(trace_url(other_session.pk, owned_run.pk))

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    chinese = api_client(owner).get(trace_url(other_session.pk, owned_run.pk), HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert chinese.json()["error"]["message"] == "这个会话中没有这次运行"


@pytest.mark.parametrize(("session_id", "run_id", "status"), [("not-a-uuid", None, 404), (None, "not-a-uuid", 400)])
def test_it_answers_malformed_ids_in_json(api_client, owner, owned_run, session_id, run_id, status):
    response = api_client(owner).get(trace_url(session_id or owned_run.session_id, run_id))

    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert "error" in response.json()


@pytest.mark.parametrize("parameter", ["runId", "before"])
def test_a_blank_id_is_refused_not_read_as_no_id(api_client, owner, owned_run, parameter):
    """A client that sends an empty id asked for something: answered with the session's list (another shape),
    it would read that as its run, or as the first page."""
    response = api_client(owner).get(f"/api/diagnosis/{owned_run.session_id}/trace?{parameter}=")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_input"
    assert response.json()["error"]["message"].startswith(f"{parameter}: ")


def test_it_lists_the_session_runs_newest_first(api_client, owner):
    session = make_session(owner)
    older = make_run(session, query="first question")
    newer = make_run(session, query="follow-up question")

    body = api_client(owner).get(trace_url(session.pk)).json()

    assert body["sessionId"] == str(session.pk)
    assert [run["runId"] for run in body["runs"]] == [str(newer.pk), str(older.pk)]
    assert body["runs"][0]["query"] == "follow-up question"
    assert body["runsTruncated"] is False


def test_it_bounds_the_run_list(api_client, owner):
    session = make_session(owner)
    for index in range(SESSION_RUNS_LIMIT + 1):
        make_run(session, steps=0, invocations=0, events=0, query=f"question {index}")

    body = api_client(owner).get(trace_url(session.pk)).json()

    assert len(body["runs"]) == SESSION_RUNS_LIMIT
    assert body["runsTruncated"] is True
    assert body["olderRunsBefore"] == body["runs"][-1]["runId"]


def test_it_pages_back_through_every_run_of_a_long_session(api_client, owner):
    session = make_session(owner)
    made = [make_run(session, steps=0, invocations=0, events=0, query=f"question {i}") for i in range(120)]
    # Two runs started at the same moment are each listed once, on one page or the next.
    DiagnosisRun.objects.filter(pk__in=[made[69].pk, made[70].pk]).update(started_at=made[70].started_at)
    client = api_client(owner)

    listed, before, pages = [], None, 0
    while True:
        url = trace_url(session.pk) + (f"?before={before}" if before else "")
        body = client.get(url).json()
        listed += [run["runId"] for run in body["runs"]]
        pages += 1
        before = body["olderRunsBefore"]
        assert (before is not None) == body["runsTruncated"]
        if before is None:
            break

    assert pages == 3
    assert sorted(listed) == sorted(str(run.pk) for run in made) and len(listed) == len(set(listed))
    assert listed[0] == str(made[-1].pk) and listed[-1] == str(made[0].pk)


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("?before=not-a-uuid", 400),
        (f"?before={uuid.uuid4()}", 404),
        ("?before=OTHER", 404),  # a run of another session of the same owner
        ("?before=OWN&runId=OWN", 400),
    ],
)
def test_it_refuses_a_before_that_is_not_a_run_of_the_session(api_client, owner, owned_run, query, status):
    other = make_run(make_session(owner), steps=0, invocations=0, events=0)
    query = query.replace("OTHER", str(other.pk)).replace("OWN", str(owned_run.pk))

    response = api_client(owner).get(trace_url(owned_run.session_id) + query)

    assert response.status_code == status
    assert response["Content-Type"] == "application/json" and "error" in response.json()


def test_it_accepts_token_authentication_for_integrations(owner, owned_run):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")

    assert client.get(trace_url(owned_run.session_id, owned_run.pk)).status_code == 200


def test_it_refuses_an_invalid_token(owned_run):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")

    response = client.get(trace_url(owned_run.session_id, owned_run.pk))

    # 403 while session authentication is listed first (it sends no WWW-Authenticate challenge), else 401.
    assert response.status_code in (401, 403)
    assert response.json()["error"]["code"] == "authentication_failed"


def test_it_costs_the_same_queries_for_5_and_100_steps(api_client, auditor, django_assert_num_queries):
    session = make_session(auditor)
    small = make_run(session, steps=5, invocations=5, events=5)
    large = make_run(session, steps=100, invocations=24, events=100)
    client = api_client(auditor)
    with CaptureQueriesContext(connection) as small_queries:
        assert client.get(trace_url(session.pk, small.pk)).status_code == 200

    with django_assert_num_queries(len(small_queries)):
        body = client.get(trace_url(session.pk, large.pk)).json()

    assert len(body["steps"]) == 100
