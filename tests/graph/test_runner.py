from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest
from langgraph.errors import GraphRecursionError
from langgraph.graph import START, StateGraph

from diagnosis.graph.builder import build_graph
from diagnosis.graph.runner import GraphRunError, GraphStopped, run_config, run_graph
from diagnosis.graph.state import initial_state
from diagnosis.graph.topology import Node
from diagnosis.graph.trace_builder import build_partial_trace
from tests.graph.fakes import (
    ER,
    EVIDENCE_RETRY_PATH,
    VI,
    C,
    E,
    F,
    G,
    P,
    ScriptedActions,
    V,
    event,
    low_confid_with_gap,
    planner,
    run_scripted,
)


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


def test_it_names_the_run_and_its_session_in_the_configs_metadata():
    """Seed 004 §5: ``threadId = runId``, metadata with the session and the run, for callbacks and tracers."""
    actions = ScriptedActions()

    run_graph(build_graph(actions.port()), initial_state({"query": "q"}), run_id="run-42", session_id="session-7")

    for call in actions.calls:
        assert {key: call.config["metadata"][key] for key in ("run_id", "session_id")} == {
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


# The stop check (cancellation) at node boundaries. ``ScriptedActions`` records each attempt as it starts,
# so "the node is in the call log" means the stop was asked for while that node's attempt was running.
STOPPED_AT = {
    "planner": ({}, [P]),
    "executor": ({}, [P, E]),
    "gatekeeper": ({}, [P, E, G]),
    "verified_input": ({}, [P, E, G, VI]),
    "verifier": ({}, [P, E, G, VI, V]),
    "evidence_retry": ({"verifier": [low_confid_with_gap()]}, [P, E, G, VI, V, ER]),
    "composer": ({}, [P, E, G, VI, V, C]),
    "fallback": ({"planner": [planner("NON_RETRYABLE_FAILED")]}, [P, F]),
}


def stop_once_started(actions: ScriptedActions, node: Node):
    return lambda: node in actions.sequence


@pytest.mark.parametrize("node", list(STOPPED_AT))
def test_it_stops_after_the_attempt_that_was_running_when_asked_to_stop(node):
    scripts, ran = STOPPED_AT[node]
    actions = ScriptedActions(**scripts)
    reported = []

    with pytest.raises(GraphStopped, match=f"stopped at a node boundary after {len(ran)} node attempts") as raised:
        run_graph(
            build_graph(actions.port()),
            initial_state({"query": "q"}),
            run_id="run-stop",
            on_event=reported.append,
            should_stop=stop_once_started(actions, Node(node)),
        )

    stopped = raised.value
    assert actions.sequence == ran  # the running attempt finished; nothing after it started
    assert [event["node"] for event in stopped.events] == [n.value for n in ran]
    assert reported == stopped.events  # the last attempt was still reported before the stop
    assert stopped.failed_node is None and stopped.__cause__ is None
    trace = build_partial_trace(
        stopped.events, evidence_retry_count=stopped.evidence_retry_count, termination_reason="cancelled"
    ).to_dict()
    assert (trace["final_node"], trace["termination_reason"]) == (node, "cancelled")
    assert [t["to"] for t in trace["transitions"]] == [n.value for n in ran[1:]]
    assert trace["evidence_retry_count"] == (1 if node == "evidence_retry" else 0)


def test_it_does_not_start_a_technical_retry_once_asked_to_stop():
    actions = ScriptedActions(planner=[planner("RETRYABLE_FAILED")])

    with pytest.raises(GraphStopped) as raised:
        run_graph(
            build_graph(actions.port()),
            initial_state({"query": "q"}),
            run_id="run-stop",
            should_stop=stop_once_started(actions, P),
        )

    assert actions.sequence == [P]
    assert raised.value.events == [event(P, "RETRYABLE_FAILED", "retryable_failed")]


def test_it_starts_no_node_when_asked_to_stop_before_the_first():
    actions = ScriptedActions()

    with pytest.raises(GraphStopped, match="after 0 node attempts") as raised:
        run_graph(build_graph(actions.port()), initial_state({"query": "q"}), run_id="r", should_stop=lambda: True)

    assert actions.calls == [] and raised.value.events == []
    trace = build_partial_trace(raised.value.events, termination_reason="cancelled").to_dict()
    assert (trace["final_node"], trace["transitions"]) == (None, [])


def test_it_asks_at_every_boundary_and_runs_to_the_end_when_never_told_to_stop():
    actions = ScriptedActions(verifier=[low_confid_with_gap()])
    asked = []

    def never() -> bool:
        asked.append(len(actions.calls))
        return False

    state = run_graph(
        build_graph(actions.port()), initial_state({"query": "why is p99 up?"}), run_id="run-1", should_stop=never
    )

    # Before the first attempt, after each attempt, the last one (before END) included.
    assert asked == list(range(len(EVIDENCE_RETRY_PATH) + 1))
    assert state == run_scripted(verifier=[low_confid_with_gap()]).state


def test_it_fails_the_run_when_the_stop_check_fails():
    def broken() -> bool:
        raise OSError("database gone")

    with pytest.raises(GraphRunError, match="in the graph engine after 0 node attempts") as raised:
        run_graph(build_graph(ScriptedActions().port()), initial_state({"query": "q"}), run_id="r", should_stop=broken)

    assert not isinstance(raised.value, GraphStopped)
    assert isinstance(raised.value.__cause__, OSError)
