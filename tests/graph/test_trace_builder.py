from __future__ import annotations

import json

import pytest

from diagnosis.graph.trace_builder import InvalidTraceError, OrchestrationEvent, build_partial_trace, build_trace


def ev(node, outcome="COMPLETED", reason_code="completed", attempt=1):
    return {"node": node, "outcome": outcome, "reason_code": reason_code, "attempt": attempt}


HAPPY = [
    ev("planner"),
    ev("executor"),
    ev("gatekeeper", "PASS", "pass"),
    ev("verified_input"),
    ev("verifier", reason_code="pass"),
    ev("composer"),
]


def test_it_refuses_a_finished_run_without_events():
    with pytest.raises(InvalidTraceError, match="at least one event"):
        build_trace([], evidence_retry_count=0)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"node": "executor", "outcome": "COMPLETED", "reason_code": "completed"}, "exactly the keys"),
        ({**ev("executor"), "prompt": "raw text"}, "exactly the keys"),
        (ev(" "), "node must be a non-blank string"),
        (ev("executor", outcome=""), "outcome must be a non-blank string"),
        (ev("executor", reason_code=None), "reason_code must be a non-blank string"),
        (ev("executor", attempt=0), "attempt must be an integer >= 1"),
        (ev("executor", attempt=True), "attempt must be an integer >= 1"),
        (ev("executor", attempt="1"), "attempt must be an integer >= 1"),
        (("executor", "COMPLETED", "completed", 1), "must be a mapping"),
    ],
)
def test_it_refuses_an_invalid_event_and_says_which(bad, message):
    with pytest.raises(InvalidTraceError, match=rf"^events\[1\]: .*{message}"):
        build_trace([ev("planner"), bad], evidence_retry_count=0)


def test_it_refuses_events_that_are_not_a_list():
    with pytest.raises(InvalidTraceError, match="events must be a list, got str"):
        build_trace("planner", evidence_retry_count=0)


@pytest.mark.parametrize("count", [-1, True, "1", None])
def test_it_refuses_an_invalid_evidence_retry_count(count):
    with pytest.raises(InvalidTraceError, match="evidence_retry_count must be an integer >= 0"):
        build_trace(HAPPY, evidence_retry_count=count)


def test_it_builds_transitions_in_event_order_with_the_source_reason_and_attempt():
    events = [
        ev("planner", "RETRYABLE_FAILED", "model_timeout", 1),
        ev("planner", "COMPLETED", "completed", 2),
        ev("executor", "TOOL_BLOCKED", "tool_blocked", 1),
        ev("fallback", "COMPLETED", "executor_tool_blocked", 1),
    ]

    trace = build_trace(events, evidence_retry_count=0)

    assert [transition.to_dict() for transition in trace.transitions] == [
        {"from": "planner", "to": "planner", "reason_code": "model_timeout", "attempt": 1},
        {"from": "planner", "to": "executor", "reason_code": "completed", "attempt": 2},
        {"from": "executor", "to": "fallback", "reason_code": "tool_blocked", "attempt": 1},
    ]
    assert (trace.final_node, trace.termination_reason) == ("fallback", "fallback_executor_tool_blocked")


def test_it_marks_a_run_degraded_exactly_when_it_ends_in_the_fallback():
    fallback = build_trace(
        [
            ev("planner", "NON_RETRYABLE_FAILED", "non_retryable_failed"),
            ev("fallback", reason_code="planner_non_retryable_failed"),
        ],
        evidence_retry_count=0,
    )
    composed = build_trace([*HAPPY[:4], ev("verifier", reason_code="reject"), ev("composer")], evidence_retry_count=0)
    # A fallback that is not the last event (impossible in the graph) does not degrade the run.
    passed_through = build_trace([ev("fallback", reason_code="x"), ev("composer")], evidence_retry_count=0)

    assert (fallback.degraded, composed.degraded, passed_through.degraded) == (True, False, False)


def test_it_ends_a_single_event_trace_at_that_event():
    trace = build_trace([ev("composer")], evidence_retry_count=0)

    assert (trace.transitions, trace.final_node, trace.termination_reason) == ((), "composer", "composer_completed")


def test_it_produces_the_frozen_dict_shape():
    trace = build_trace(HAPPY, evidence_retry_count=1).to_dict()

    assert list(trace) == [
        "version",
        "transitions",
        "final_node",
        "termination_reason",
        "degraded",
        "evidence_retry_count",
    ]
    assert trace["version"] == "stategraph-v1"
    assert trace["transitions"][0] == {"from": "planner", "to": "executor", "reason_code": "completed", "attempt": 1}
    assert all(list(transition) == ["from", "to", "reason_code", "attempt"] for transition in trace["transitions"])
    assert (trace["final_node"], trace["termination_reason"], trace["degraded"], trace["evidence_retry_count"]) == (
        "composer",
        "composer_completed",
        False,
        1,
    )
    assert json.loads(json.dumps(trace)) == trace


def test_it_round_trips_an_event():
    assert OrchestrationEvent.from_dict(ev("gatekeeper", "PASS", "pass")).to_dict() == ev("gatekeeper", "PASS", "pass")


def test_it_traces_a_run_that_raised_before_any_event():
    trace = build_partial_trace([], evidence_retry_count=0)

    assert trace.to_dict() == {
        "version": "stategraph-v1",
        "transitions": [],
        "final_node": None,
        "termination_reason": "graph_error",
        "degraded": False,
        "evidence_retry_count": 0,
    }
    assert build_partial_trace([], evidence_retry_count=0, failed_node="planner").final_node == "planner"


def test_it_ends_a_partial_trace_in_the_node_that_raised():
    trace = build_partial_trace(HAPPY[:2], evidence_retry_count=0, failed_node="gatekeeper")

    assert [transition.to_dict() for transition in trace.transitions] == [
        {"from": "planner", "to": "executor", "reason_code": "completed", "attempt": 1},
        {"from": "executor", "to": "gatekeeper", "reason_code": "completed", "attempt": 1},
    ]
    assert (trace.final_node, trace.termination_reason, trace.degraded) == ("gatekeeper", "gatekeeper_error", False)


def test_it_keeps_a_partial_trace_without_failed_node_at_the_last_event():
    trace = build_partial_trace(HAPPY[:3], evidence_retry_count=0)

    assert (len(trace.transitions), trace.final_node, trace.termination_reason) == (2, "gatekeeper", "graph_error")


def test_it_marks_a_partial_trace_that_failed_in_the_fallback_degraded():
    trace = build_partial_trace([ev("executor", "FAILED", "failed")], evidence_retry_count=0, failed_node="fallback")

    assert (trace.final_node, trace.degraded) == ("fallback", True)


def test_it_validates_partial_events_and_the_failed_node():
    with pytest.raises(InvalidTraceError, match=r"events\[0\]"):
        build_partial_trace([ev("planner", attempt=0)], evidence_retry_count=0)
    with pytest.raises(InvalidTraceError, match="failed_node must be a non-blank string"):
        build_partial_trace([], evidence_retry_count=0, failed_node=" ")


def test_it_counts_evidence_retries_from_the_events_when_no_state_is_left():
    events = [ev("planner"), ev("executor"), ev("gatekeeper", "PASS", "pass"), ev("verified_input")]
    events += [ev("verifier", reason_code="low_confid"), ev("evidence_retry"), ev("planner")]

    trace = build_partial_trace(events, termination_reason="worker_lost")

    assert (trace.evidence_retry_count, trace.final_node, trace.termination_reason) == (1, "planner", "worker_lost")
    assert len(trace.transitions) == 6


def test_it_refuses_a_blank_termination_reason():
    with pytest.raises(InvalidTraceError, match="termination_reason must be a non-blank string"):
        build_partial_trace([ev("planner")], termination_reason="")
