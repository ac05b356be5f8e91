"""The offline executor on hand-built conversations: its loop position, its claims, its retry snapshot."""

from __future__ import annotations

import json

import pytest

from diagnosis.contracts import ExecutorOutput, parse_output
from diagnosis.nodes.executor import MAX_CALLS_PER_TURN
from diagnosis.nodes.messages import executor_messages
from diagnosis.providers.offline.conversation import read
from diagnosis.providers.offline.evidence import analyse_results
from diagnosis.providers.offline.executor import respond
from diagnosis.providers.offline.planner import MAX_GAP_STEPS
from tests.providers.offline import incident
from tests.providers.offline.conversations import (
    ENVIRONMENT,
    executor_conversation,
    knowledge_payload,
    log_record,
    logs_payload,
    tool_message,
)


def _final(messages: list[dict]) -> dict:
    turn = respond(read(messages), tools_offered=False)
    assert turn.tool_calls == []
    return parse_output(turn.content, ExecutorOutput)


def test_it_calls_the_plan_first_in_turns_the_node_accepts():
    steps = [
        {
            "tool": "query_logs",
            "purpose": "p",
            "args": {"service": f"s{index}", "level": "ERROR", "start": "a", "end": "b", "limit": 5},
        }
        for index in range(10)
    ]
    messages = executor_conversation(incident.QUESTION, [], plan_steps=steps)

    first = respond(read(messages), tools_offered=True)

    assert first.content is None
    assert [call.id for call in first.tool_calls] == [f"call_{index}" for index in range(1, MAX_CALLS_PER_TURN + 1)]
    assert [json.loads(call.arguments) for call in first.tool_calls] == [
        step["args"] for step in steps[:MAX_CALLS_PER_TURN]
    ]


def test_it_sends_the_rest_of_the_plan_next_and_reissues_a_refused_call():
    steps = [{"tool": tool, "purpose": "p", "args": args} for tool, args, _ in incident.results()]
    done = incident.results()[:6]
    messages = executor_conversation(incident.QUESTION, done, plan_steps=steps)
    # The node refused the sixth call: a tool message without an invocation id.
    messages[-1] = {"role": "tool", "tool_call_id": "call_6", "content": json.dumps({"error": "not run"})}

    turn = respond(read(messages), tools_offered=True)

    assert [(call.name, json.loads(call.arguments)) for call in turn.tool_calls] == [
        (tool, args) for tool, args, _ in incident.results()[5:]
    ]
    assert turn.tool_calls[0].id == "call_7", "ids never repeat within the conversation"


def test_after_the_plan_it_looks_closer_at_the_earliest_failing_service():
    turn = respond(read(executor_conversation(incident.QUESTION, incident.results())), tools_offered=True)

    calls = [(call.name, json.loads(call.arguments)) for call in turn.tool_calls]
    assert calls[0] == ("query_logs", {**_window(), "service": "ledger-db", "level": "WARN", "limit": 200})
    assert [name for name, _ in calls[:2]] == ["query_logs", "lookup_knowledge"], "ledger-db's only metric already ran"
    assert calls[1][1] == {"query": "ledger fatal sorry many clients already max connections", "top_k": 5}
    # Then the newest lines of every level each service logged up to a minute after the first error (08:30:05),
    # from an hour before (clipped to the window): the failing service first, then the one asked about, then
    # the others in catalog order.
    change_window = {"start": "2025-06-01T08:00:00Z", "end": "2025-06-01T08:31:05Z", "limit": 200}
    assert calls[2:] == [
        ("query_logs", {**change_window, "service": service, "direction": "backward"})
        for service in ("ledger-db", "ledger-api", "web-frontend", "mailer")
    ]


def _answered(messages: list[dict], turn, payloads: dict[str, dict]) -> None:
    """``turn``'s calls and their results (by service, else an empty one) appended to ``messages``."""
    messages.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
                for call in turn.tool_calls
            ],
        }
    )
    for index, call in enumerate(turn.tool_calls, len(messages)):
        args = json.loads(call.arguments)
        empty = {"query_logs": logs_payload(), "query_metrics": {"series": []}}.get(call.name, knowledge_payload())
        payload = payloads.get(args.get("service", ""), empty) if "direction" in args else empty
        messages.append(tool_message(call.id, call.name, f"00000000-0000-4000-8000-{index:012d}", payload))


def _quiet_component_warns_first() -> tuple[list[dict], dict[str, dict]]:
    """After the plan: web-frontend, which logged no error, warned of a fault before ledger-db's first error
    (08:30:05), in the lines it logged before the failure that the closer look reads."""
    messages = executor_conversation(incident.QUESTION, incident.results())
    warnings = [
        log_record(f"2025-06-01T08:29:{second}Z", "web-frontend", "WARN", "conntrack table full, dropping packet")
        for second in (45, 50, 55)
    ]
    return messages, {"web-frontend": logs_payload(*warnings)}


def test_when_the_closer_look_finds_a_quiet_component_failing_first_it_looks_at_that_one():
    messages, payloads = _quiet_component_warns_first()
    _answered(messages, respond(read(messages), tools_offered=True), payloads)

    turn = respond(read(messages), tools_offered=True)

    assert [(call.name, json.loads(call.arguments)) for call in turn.tool_calls] == [
        ("query_logs", {**_window(), "service": "web-frontend", "level": "WARN", "limit": 200}),
        ("query_metrics", {**_window(), "service": "web-frontend", "metric": "http_5xx_rate", "step": 60}),
        ("lookup_knowledge", {"query": "web frontend conntrack table full dropping packet", "top_k": 5}),
    ]
    _answered(messages, turn, payloads)
    report = respond(read(messages), tools_offered=True)
    assert report.tool_calls == [] and report.content, "one stage: the report comes at the next turn"


def test_the_second_look_stays_within_the_runs_call_budget_and_leaves_an_evidence_retry_its_calls(monkeypatch):
    messages, _ = _quiet_component_warns_first()
    made = len(incident.results()) + len(respond(read(messages), tools_offered=True).tool_calls)
    monkeypatch.setitem(ENVIRONMENT, "tool_calls_per_run", made + MAX_GAP_STEPS + 1)
    messages, payloads = _quiet_component_warns_first()
    _answered(messages, respond(read(messages), tools_offered=True), payloads)

    turn = respond(read(messages), tools_offered=True)

    assert [(call.name, json.loads(call.arguments).get("level")) for call in turn.tool_calls] == [
        ("query_logs", "WARN")
    ]


def test_when_the_explaining_runbook_lacks_its_fix_section_it_asks_for_it():
    without_fix = [
        (tool, args, {**payload, "chunks": payload["chunks"][:2]})
        if tool == "lookup_knowledge"
        else (tool, args, payload)
        for tool, args, payload in incident.results()
    ]
    messages = executor_conversation(incident.QUESTION, without_fix)
    _answered(messages, respond(read(messages), tools_offered=True), {})

    turn = respond(read(messages), tools_offered=True)

    assert [(call.name, json.loads(call.arguments)) for call in turn.tool_calls] == [
        ("lookup_knowledge", {"query": f"{incident.RUNBOOK} mitigation", "top_k": 5})
    ]


def test_without_tools_on_offer_it_reports_at_once():
    output = _final(executor_conversation(incident.QUESTION, []))
    assert output["claims"] == []
    assert output["no_evidence_reason"]


def test_its_claims_bind_exact_paths_and_verbatim_excerpts():
    output = _final(executor_conversation(incident.QUESTION, incident.results()))
    claims = {claim["claim_id"]: claim for claim in output["claims"]}

    root = claims["c1"]["bindings"]
    assert root[0] == {
        "source_invocation_id": "00000000-0000-4000-8000-000000000003",
        "tool_name": "query_logs",
        "raw_path": "$.records[0].message",
        "evidence_excerpt": incident.ROOT_MESSAGE,
    }
    assert [binding["raw_path"] for binding in root[1:]] == [
        "$.records[0].service",
        "$.records[0].ts",
        "$.records[0].level",
    ]
    tools = [claim["bindings"][0]["tool_name"] for claim in output["claims"]]
    assert tools == [
        "query_logs",
        "lookup_knowledge",
        "query_metrics",
        "query_mysql",
        "query_logs",
        "query_metrics",
        "lookup_knowledge",
    ]
    metric = {binding["raw_path"]: binding["evidence_excerpt"] for binding in claims["c3"]["bindings"]}
    assert metric["$.series[0].metric"] == "active_connections"
    assert metric["$.series[0].points[30].value"] == "100.0"
    cells = {binding["raw_path"]: binding["evidence_excerpt"] for binding in claims["c4"]["bindings"]}
    assert cells["$.rows[0][2]"] == "db.pool.max_connections_per_pod"
    assert cells["$.columns[2]"] == "setting"


def test_it_never_cites_an_instruction_or_an_error_from_before_the_onset():
    text = json.dumps(_final(executor_conversation(incident.QUESTION, incident.results())))
    assert "IGNORE" not in text and "DNS" not in text
    assert "SMTP" not in text


def test_it_records_the_queries_it_completed():
    output = _final(executor_conversation(incident.QUESTION, incident.results()))
    assert len(output["completed_queries"]) == len(incident.results())
    assert output["completed_queries"][0] == f"lookup_knowledge query={incident.QUESTION} top_k=5"


def test_an_evidence_retry_returns_the_prior_claims_unchanged_plus_new_ones():
    prior = [
        {
            "claim_id": "c4",
            "statement": "earlier",
            "bindings": [
                {
                    "source_invocation_id": "old",
                    "tool_name": "query_logs",
                    "raw_path": "$.records[0].message",
                    "evidence_excerpt": "old text",
                }
            ],
        }
    ]
    retry = {
        "evidence_gaps": [],
        "missing_info": [],
        "prior_verified_claims": prior,
        "completed_queries": ["query_logs earlier"],
    }
    messages = executor_conversation(
        incident.QUESTION, incident.results(), mode="EVIDENCE_GAP_ONLY", retry_context=retry
    )

    output = parse_output(respond(read(messages), tools_offered=True).content, ExecutorOutput)

    assert output["claims"][0] == prior[0]
    assert output["claims"][1]["claim_id"] == "c5"
    assert output["completed_queries"][0] == "query_logs earlier"


def test_an_evidence_retry_skips_plan_steps_that_already_ran():
    step = {
        "tool": "query_logs",
        "purpose": "p",
        "args": {"service": "ledger-db", "level": "WARN", "start": "a", "end": "b", "limit": 5},
    }
    done = "query_logs end=b level=WARN limit=5 service=ledger-db start=a"
    messages = executor_messages(
        question=incident.QUESTION,
        plan={"mode": "EVIDENCE_GAP_ONLY", "hypotheses": ["h"], "steps": [step]},
        mode="EVIDENCE_GAP_ONLY",
        retry_context={
            "evidence_gaps": [],
            "missing_info": [],
            "prior_verified_claims": [],
            "completed_queries": [done],
        },
        environment=ENVIRONMENT,
    )
    turn = respond(read(messages), tools_offered=True)
    assert turn.tool_calls == []


def _window() -> dict:
    return {"start": ENVIRONMENT["window"]["start"], "end": ENVIRONMENT["window"]["end"]}


def test_without_any_error_it_still_reads_what_changed_before_the_onset():
    quiet = [
        (tool, args, logs_payload() if tool == "query_logs" else payload) for tool, args, payload in incident.results()
    ]
    turn = respond(read(executor_conversation(incident.QUESTION, quiet)), tools_offered=True)

    # The question's 08:30 is minute-precise: the window runs to a minute past it, plus a minute.
    change_window = {"start": "2025-06-01T08:00:00Z", "end": "2025-06-01T08:32:00Z", "limit": 200}
    assert [(call.name, json.loads(call.arguments)) for call in turn.tool_calls] == [
        ("query_logs", {**change_window, "service": service, "direction": "backward"})
        for service in ("ledger-api", "web-frontend", "ledger-db", "mailer")
    ]


def test_the_change_window_reads_services_that_logged_nothing_wrong_before_those_that_did(monkeypatch):
    """A secret rotator, a DNS updater, a batch job changes others' world and logs no error itself: read in
    catalog order, such a service came after the busy ones and was cut at ``MAX_CHANGE_WINDOW_SERVICES``."""
    monkeypatch.setitem(ENVIRONMENT, "services", [*ENVIRONMENT["services"], "cert-rotator", "dns-updater"])

    turn = respond(read(executor_conversation(incident.QUESTION, incident.results())), tools_offered=True)

    read_before = [json.loads(call.arguments)["service"] for call in turn.tool_calls if "direction" in call.arguments]
    # The failing service, the one asked about, then the quiet ones; mailer, which logged errors, is left out.
    assert read_before == ["ledger-db", "ledger-api", "web-frontend", "cert-rotator", "dns-updater"]


@pytest.mark.parametrize(("host", "named"), [("db-2", True), ("ledger-db-7d9f8c6b5-x2k4q", False)])
def test_a_failure_on_one_host_names_the_machine_but_not_a_lone_replica(host, named):
    """A host named after its service is one of its pods: worth naming only when other pods log too. Any
    other host is the machine the component runs on (a clock daemon's, a kernel's)."""
    records = [
        {**log_record(f"2025-06-01T08:30:{second:02d}Z", "ledger-db", "ERROR", incident.ROOT_MESSAGE), "host": host}
        for second in (5, 9)
    ]
    args = {**_window(), "service": "ledger-db", "level": "ERROR", "limit": 200}
    exchanges = read(executor_conversation(incident.QUESTION, [("query_logs", args, logs_payload(*records))])).exchanges

    findings = analyse_results(exchanges, question=incident.QUESTION, onset=None, focus=[])

    assert findings.confined_host == (host if named else None)


def test_without_a_failing_service_the_strongest_shift_of_a_named_service_is_cited_once():
    """The strongest shift of all, with no root service, was also the named service's own symptom: two
    claims of one reading ("http_404_per_min rose from 6.0 to 1636.0" twice in the timeline)."""
    quiet = [
        (tool, args, logs_payload() if tool == "query_logs" else payload) for tool, args, payload in incident.results()
    ]

    output = _final(executor_conversation(incident.QUESTION, quiet))

    metric_claims = [claim for claim in output["claims"] if claim["bindings"][0]["tool_name"] == "query_metrics"]
    assert [claim["statement"].split(" rose ")[0] for claim in metric_claims] == ["p99_latency_ms of ledger-api"]
