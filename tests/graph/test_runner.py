from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest
from langgraph.errors import GraphRecursionError
from langgraph.graph import START, StateGraph

from diagnosis.graph.builder import build_graph
from diagnosis.graph.runner import GraphRunError, run_config, run_graph
from diagnosis.graph.state import initial_state
from diagnosis.graph.trace_builder import build_partial_trace
from tests.graph.fakes import EVIDENCE_RETRY_PATH, ScriptedActions, low_confid_with_gap, run_scripted


def test_it_gives_every_action_the_run_id_as_thread_id_and_the_extra_config():
    actions = ScriptedActions()

    run_graph(
        build_graph(actions.port()),
        initial_state({"query": "q"}),
        run_id="run-42",
        config_extra={"session_id": "session-7"},
    )

    configs = [call.config for call in actions.calls]
    assert len(configs) == 6
    for config in configs:
        assert config["recursion_limit"] == 32
        assert {key: config["configurable"][key] for key in ("thread_id", "run_id", "session_id")} == {
            "thread_id": "run-42",
            "run_id": "run-42",
            "session_id": "session-7",
        }


def test_it_returns_the_same_final_state_as_a_plain_invoke():
    streamed = run_scripted(verifier=[low_confid_with_gap()]).state
    actions = ScriptedActions(verifier=[low_confid_with_gap()])

    invoked = build_graph(actions.port()).invoke(initial_state({"query": "why is p99 up?"}), run_config("run-1"))

    assert streamed == invoked
    assert actions.sequence == EVIDENCE_RETRY_PATH


@pytest.mark.parametrize(
    ("run_id", "extra", "message"),
    [
        ("", None, "run_id must be a non-blank string"),
        (None, None, "run_id must be a non-blank string"),
        ("run-1", {"thread_id": "other"}, "must not set thread_id"),
        ("run-1", {"run_id": "other", "thread_id": "x"}, "must not set run_id, thread_id"),
    ],
)
def test_it_refuses_a_bad_run_id_or_a_clashing_config(run_id, extra, message):
    with pytest.raises(ValueError, match=message):
        run_config(run_id, extra)


def test_it_keeps_the_partial_route_of_a_run_that_raises_after_an_evidence_retry():
    actions = ScriptedActions(
        verifier=[low_confid_with_gap()], executor=[{"executor_status": "COMPLETED"}, KeyError("x")]
    )

    with pytest.raises(GraphRunError, match="run-9 failed in node executor after 7 node attempts") as raised:
        run_graph(build_graph(actions.port()), initial_state({"query": "q"}), run_id="run-9")

    error = raised.value
    assert [e["node"] for e in error.events] == [node.value for node in EVIDENCE_RETRY_PATH[:7]]
    assert (error.failed_node, error.evidence_retry_count) == ("executor", 1)
    trace = build_partial_trace(
        error.events, evidence_retry_count=error.evidence_retry_count, failed_node=error.failed_node
    )
    assert trace.to_dict()["transitions"][-1] == {
        "from": "planner",
        "to": "executor",
        "reason_code": "completed",
        "attempt": 1,
    }
    assert (trace.final_node, trace.termination_reason, trace.degraded) == ("executor", "executor_error", False)


class SpinState(TypedDict):
    orchestration_events: Annotated[list, operator.add]


def test_it_reports_an_engine_stop_with_no_failed_node():
    graph = StateGraph(SpinState)
    graph.add_node("spin", lambda state: {"orchestration_events": [{"node": "spin"}]})
    graph.add_edge(START, "spin")
    graph.add_conditional_edges("spin", lambda state: "spin", {"spin": "spin"})

    with pytest.raises(GraphRunError, match="failed in the graph engine after 32 node attempts") as raised:
        run_graph(graph.compile(), {"orchestration_events": []}, run_id="run-spin")

    assert raised.value.failed_node is None
    assert isinstance(raised.value.__cause__, GraphRecursionError)


def test_it_reports_each_event_as_soon_as_it_is_merged():
    actions = ScriptedActions(verifier=[low_confid_with_gap()])
    reported = []

    def on_event(event):
        # Reported before the next attempt starts: the call log has not moved past this event's node.
        reported.append((event, len(actions.calls)))

    state = run_graph(build_graph(actions.port()), initial_state({"query": "q"}), run_id="run-1", on_event=on_event)

    assert [event for event, _ in reported] == state["orchestration_events"]
    assert [calls for _, calls in reported] == list(range(1, len(EVIDENCE_RETRY_PATH) + 1))


def test_it_fails_the_run_when_the_event_listener_fails():
    def on_event(event):
        if event["node"] == "gatekeeper":
            raise OSError("timeline write failed")

    with pytest.raises(GraphRunError, match="in the graph engine after 3 node attempts") as raised:
        run_graph(build_graph(ScriptedActions().port()), initial_state({"query": "q"}), run_id="r", on_event=on_event)

    assert [e["node"] for e in raised.value.events] == ["planner", "executor", "gatekeeper"]
    assert raised.value.failed_node is None
    assert isinstance(raised.value.__cause__, OSError)
