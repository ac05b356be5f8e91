"""The four independent counters of seed 000 §4, owned by the wrappers, over the real compiled graph."""

from __future__ import annotations

import pytest

from tests.graph.fakes import (
    COMPOSER_ANSWER,
    ER,
    VI,
    C,
    E,
    F,
    G,
    P,
    V,
    composer,
    event,
    low_confid_with_gap,
    planner,
    run_scripted,
    verifier,
)


@pytest.mark.parametrize(
    ("scripts", "sequence", "counter"),
    [
        ({"planner": [planner("INVALID_OUTPUT"), planner("RETRYABLE_FAILED")]}, [P, P, F], "planner_retry_count"),
        (
            {"verifier": [verifier("RETRYABLE_FAILED", None), verifier("INVALID_OUTPUT", None)]},
            [P, E, G, VI, V, V, F],
            "verifier_retry_count",
        ),
        (
            {"composer": [composer("INVALID_OUTPUT"), composer("INVALID_OUTPUT")]},
            [P, E, G, VI, V, C, C, F],
            "composer_retry_count",
        ),
    ],
    ids=["planner", "verifier", "composer"],
)
def test_it_sends_a_second_technical_failure_to_the_fallback(scripts, sequence, counter):
    run = run_scripted(**scripts)

    assert run.actions.sequence == sequence
    assert run.state[counter] == 1
    assert [e["attempt"] for e in run.state["orchestration_events"] if e["node"] == sequence[-2]] == [1, 2]
    assert run.state["evidence_retry_count"] == 0


def test_it_resets_the_planner_counter_after_an_evidence_retry():
    technical = planner("RETRYABLE_FAILED")
    run = run_scripted(planner=[technical, planner("COMPLETED"), technical], verifier=[low_confid_with_gap()])

    assert run.actions.sequence == [P, P, E, G, VI, V, ER, P, P, E, G, VI, V, C]
    assert [view["planner_retry_count"] for view in run.actions.states(P)] == [0, 1, 0, 1]
    assert [view["planner_mode"] for view in run.actions.states(P)] == [
        "NORMAL",
        "NORMAL",
        "EVIDENCE_GAP_ONLY",
        "EVIDENCE_GAP_ONLY",
    ]
    planner_events = [e for e in run.state["orchestration_events"] if e["node"] == "planner"]
    assert [e["attempt"] for e in planner_events] == [1, 2, 1, 2]
    assert (run.state["planner_retry_count"], run.state["evidence_retry_count"]) == (1, 1)


def test_it_resets_the_verifier_counter_after_a_new_verified_input():
    technical = verifier("RETRYABLE_FAILED", None)
    run = run_scripted(verifier=[technical, low_confid_with_gap(), technical])

    assert run.actions.sequence == [P, E, G, VI, V, V, ER, P, E, G, VI, V, V, C]
    assert [view["verifier_retry_count"] for view in run.actions.states(V)] == [0, 1, 0, 1]
    verifier_events = [e for e in run.state["orchestration_events"] if e["node"] == "verifier"]
    assert verifier_events == [
        event(V, "RETRYABLE_FAILED", "retryable_failed", 1),
        event(V, "COMPLETED", "low_confid", 2),
        event(V, "RETRYABLE_FAILED", "retryable_failed", 1),
        event(V, "COMPLETED", "pass", 2),
    ]


def test_it_retries_for_evidence_at_most_once_per_run():
    run = run_scripted(verifier=[low_confid_with_gap()] * 3)

    assert run.actions.call_counts[ER] == 1
    assert run.actions.call_counts[V] == 2
    assert run.actions.sequence[-2:] == [V, C]
    assert run.state["evidence_retry_count"] == 1
    assert (run.state["effective_verdict"], run.state["final_answer"]) == ("LOW_CONFID", COMPOSER_ANSWER)


def test_it_never_reruns_earlier_nodes_on_a_technical_retry():
    run = run_scripted(
        planner=[planner("INVALID_OUTPUT")],
        verifier=[verifier("RETRYABLE_FAILED", None)],
        composer=[composer("RETRYABLE_FAILED")],
    )

    assert run.actions.sequence == [P, P, E, G, VI, V, V, C, C]
    assert {node: run.actions.call_counts[node] for node in (E, G, VI)} == {E: 1, G: 1, VI: 1}
    # Technical retries are not evidence retries.
    assert (run.state["evidence_retry_count"], run.state["planner_mode"]) == (0, "NORMAL")
    assert [run.state[key] for key in ("planner_retry_count", "verifier_retry_count", "composer_retry_count")] == [
        1,
        1,
        1,
    ]
