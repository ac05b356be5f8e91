"""One test per row of seed 000 §3's routing matrix, over the real compiled graph with scripted actions.

Each test asserts the exact node sequence, so an edge wired to the wrong target fails it (checked by
rewiring every edge in turn: each row's test below fails).

Row  From            Outcome / guard                                      To
  1  START           always                                               planner, retry count 0
     test_it_starts_at_the_planner_with_a_zero_retry_count
  2  planner         COMPLETED                                            executor
     test_it_sends_a_completed_plan_to_the_executor
  3  planner         INVALID_OUTPUT / RETRYABLE_FAILED, count 0           planner, count 1
     test_it_retries_the_planner_once_after_a_technical_failure
  4  planner         NON_RETRYABLE_FAILED, retries exhausted, unknown     fallback
     test_it_sends_a_failed_planner_to_the_fallback
  5  executor        COMPLETED                                            gatekeeper
     test_it_sends_completed_evidence_to_the_gatekeeper
  6  executor        INVALID_OUTPUT / TOOL_BLOCKED / FAILED, unknown      fallback, never retried
     test_it_sends_a_failed_executor_to_the_fallback_without_retry
  7  gatekeeper      PASS                                                 verified_input, ceiling PASS
     test_it_sends_a_passing_gatekeeper_to_the_verified_input
  8  gatekeeper      LOW_CONFID, verified bindings > 0                    verified_input, ceiling LOW_CONFID
     test_it_sends_low_confidence_with_bindings_to_the_verified_input
  9  gatekeeper      REJECT, unknown, LOW_CONFID with 0 bindings          fallback
     test_it_sends_a_rejecting_gatekeeper_to_the_fallback
 10  verified_input  completed                                            verifier
     test_it_goes_from_the_verified_input_to_the_verifier
 11  verifier        INVALID_OUTPUT / RETRYABLE_FAILED, count 0           verifier
     test_it_retries_the_verifier_once_on_the_same_input
 12  verifier        NON_RETRYABLE_FAILED, retries exhausted, unknown     fallback
     test_it_sends_a_failed_verifier_to_the_fallback
 13  verifier        effective verdict PASS / REJECT                      composer
     test_it_sends_a_pass_or_reject_verdict_to_the_composer
 14  verifier        LOW_CONFID, PASS ceiling, gaps, evidence count 0     evidence_retry
     test_it_prepares_an_evidence_retry_for_a_low_confidence_gap
 15  verifier        LOW_CONFID, any retry condition unmet                composer
     test_it_composes_low_confidence_when_a_retry_condition_fails
 16  evidence_retry  completed                                            planner, EVIDENCE_GAP_ONLY, count 0
     test_it_replans_in_gap_only_mode_after_an_evidence_retry
 17  composer        COMPLETED                                            END
     test_it_ends_with_the_composer_answer
 18  composer        INVALID_OUTPUT / RETRYABLE_FAILED, count 0           composer
     test_it_retries_the_composer_once_on_the_same_material
 19  composer        NON_RETRYABLE_FAILED, retries exhausted, unknown     fallback
     test_it_sends_a_failed_composer_to_the_fallback
 20  fallback        deterministic answer produced                        END, degraded
     test_it_ends_a_fallback_run_degraded
 21  any node        unhandled exception / no safe answer                 outer failure, partial events
     test_it_raises_with_the_partial_events_when_a_node_raises
"""

from __future__ import annotations

import pytest

from diagnosis.graph.actions import ActionContractError
from diagnosis.graph.builder import build_graph
from diagnosis.graph.runner import GraphRunError, run_graph
from diagnosis.graph.state import initial_state
from tests.graph.fakes import (
    COMPOSER_ANSWER,
    ER,
    EVIDENCE_RETRY_PATH,
    FALLBACK_ANSWER,
    GAP_FACT,
    HAPPY_PATH,
    VI,
    C,
    E,
    F,
    G,
    P,
    ScriptedActions,
    V,
    composer,
    event,
    executor,
    gatekeeper,
    low_confid_with_gap,
    planner,
    run_scripted,
    transition,
    verifier,
)

TECHNICAL = ["INVALID_OUTPUT", "RETRYABLE_FAILED"]
HAPPY_EVENTS = [
    event(P, "COMPLETED", "completed"),
    event(E, "COMPLETED", "completed"),
    event(G, "PASS", "pass"),
    event(VI, "COMPLETED", "completed"),
    event(V, "COMPLETED", "pass"),
    event(C, "COMPLETED", "completed"),
]


def test_it_starts_at_the_planner_with_a_zero_retry_count():
    run = run_scripted()

    assert run.actions.sequence[0] is P
    first_view = run.actions.states(P)[0]
    assert (first_view["planner_retry_count"], first_view["planner_mode"]) == (0, "NORMAL")
    assert run.state["orchestration_events"][0] == event(P, "COMPLETED", "completed", attempt=1)


def test_it_sends_a_completed_plan_to_the_executor():
    run = run_scripted()

    assert run.actions.sequence == HAPPY_PATH
    assert run.transitions[0] == transition(P, E, "completed")
    assert run.state["planner_retry_count"] == 0


@pytest.mark.parametrize("status", TECHNICAL)
def test_it_retries_the_planner_once_after_a_technical_failure(status):
    run = run_scripted(planner=[planner(status)])

    assert run.actions.sequence == [P, *HAPPY_PATH]
    assert run.actions.call_counts[P] == 2
    assert [view["planner_retry_count"] for view in run.actions.states(P)] == [0, 1]
    assert run.state["orchestration_events"][:2] == [
        event(P, status, status.lower(), attempt=1),
        event(P, "COMPLETED", "completed", attempt=2),
    ]
    assert run.transitions[:2] == [transition(P, P, status.lower(), 1), transition(P, E, "completed", 2)]
    assert (run.state["planner_retry_count"], run.state["final_answer"]) == (1, COMPOSER_ANSWER)


@pytest.mark.parametrize(
    ("script", "sequence", "cause", "last_planner_event"),
    [
        (
            [planner("NON_RETRYABLE_FAILED")],
            [P, F],
            "planner_non_retryable_failed",
            event(P, "NON_RETRYABLE_FAILED", "non_retryable_failed"),
        ),
        (
            [planner("RETRYABLE_FAILED"), planner("INVALID_OUTPUT")],
            [P, P, F],
            "planner_invalid_output",
            event(P, "INVALID_OUTPUT", "invalid_output", 2),
        ),
        ([planner("DONE")], [P, F], "planner_unknown_status", event(P, "UNKNOWN", "unknown_status")),
        ([{}], [P, F], "planner_unknown_status", event(P, "UNKNOWN", "unknown_status")),
    ],
    ids=["non-retryable", "retries-exhausted", "unknown-status", "missing-status"],
)
def test_it_sends_a_failed_planner_to_the_fallback(script, sequence, cause, last_planner_event):
    run = run_scripted(planner=script)

    assert run.actions.sequence == sequence
    assert run.state["orchestration_events"][-2:] == [last_planner_event, event(F, "COMPLETED", cause)]
    assert (run.state["final_answer"], run.state["failure_reason"]) == (FALLBACK_ANSWER, cause)


def test_it_sends_completed_evidence_to_the_gatekeeper():
    run = run_scripted()

    assert run.actions.sequence == HAPPY_PATH
    assert run.transitions[1] == transition(E, G, "completed")


@pytest.mark.parametrize(
    ("status", "outcome", "reason"),
    [
        ("INVALID_OUTPUT", "INVALID_OUTPUT", "invalid_output"),
        ("TOOL_BLOCKED", "TOOL_BLOCKED", "tool_blocked"),
        ("FAILED", "FAILED", "failed"),
        ("RETRYABLE_FAILED", "UNKNOWN", "unknown_status"),
    ],
)
def test_it_sends_a_failed_executor_to_the_fallback_without_retry(status, outcome, reason):
    run = run_scripted(executor=[executor(status)])

    assert run.actions.sequence == [P, E, F]
    assert run.actions.call_counts[E] == 1
    assert run.state["orchestration_events"] == [
        event(P, "COMPLETED", "completed"),
        event(E, outcome, reason),
        event(F, "COMPLETED", f"executor_{reason}"),
    ]
    assert run.transitions == [transition(P, E, "completed"), transition(E, F, reason)]


def test_it_sends_a_passing_gatekeeper_to_the_verified_input():
    run = run_scripted()

    assert run.actions.sequence == HAPPY_PATH
    assert run.transitions[2] == transition(G, VI, "pass")
    assert run.actions.states(V)[0]["verifier_verdict_ceiling"] == "PASS"


def test_it_sends_low_confidence_with_bindings_to_the_verified_input():
    run = run_scripted(
        gatekeeper=[gatekeeper("LOW_CONFID", bindings=1, ceiling="LOW_CONFID")],
        verifier=[verifier("COMPLETED", "LOW_CONFID", facts=[GAP_FACT])],
    )

    assert run.actions.sequence == HAPPY_PATH
    assert run.transitions[2] == transition(G, VI, "low_confid")
    assert run.actions.states(V)[0]["verifier_verdict_ceiling"] == "LOW_CONFID"
    assert run.state["effective_verdict"] == "LOW_CONFID"


@pytest.mark.parametrize(
    ("output", "outcome", "reason"),
    [
        (gatekeeper("REJECT", bindings=0, ceiling=None), "REJECT", "reject"),
        (gatekeeper("LOW_CONFID", bindings=0, ceiling="LOW_CONFID"), "LOW_CONFID", "no_verified_binding"),
        (gatekeeper("PARTIAL", bindings=3), "UNKNOWN", "unknown_status"),
        ({}, "UNKNOWN", "unknown_status"),
    ],
    ids=["reject", "low-confid-no-binding", "unknown-status", "missing-status"],
)
def test_it_sends_a_rejecting_gatekeeper_to_the_fallback(output, outcome, reason):
    run = run_scripted(gatekeeper=[output])

    assert run.actions.sequence == [P, E, G, F]
    assert run.state["orchestration_events"][-2:] == [
        event(G, outcome, reason),
        event(F, "COMPLETED", f"gatekeeper_{reason}"),
    ]
    assert run.state["final_answer"] == FALLBACK_ANSWER


def test_it_goes_from_the_verified_input_to_the_verifier():
    run = run_scripted()

    assert run.actions.sequence == HAPPY_PATH
    assert run.transitions[3] == transition(VI, V, "completed")
    assert run.state["verified_executor_output"] == {"claims": []}


@pytest.mark.parametrize("status", TECHNICAL)
def test_it_retries_the_verifier_once_on_the_same_input(status):
    run = run_scripted(verifier=[verifier(status, None)])

    assert run.actions.sequence == [P, E, G, VI, V, V, C]
    assert run.actions.call_counts[VI] == 1
    assert [view["verifier_retry_count"] for view in run.actions.states(V)] == [0, 1]
    assert run.state["orchestration_events"][4:6] == [
        event(V, status, status.lower(), 1),
        event(V, "COMPLETED", "pass", 2),
    ]
    assert run.transitions[4:6] == [transition(V, V, status.lower(), 1), transition(V, C, "pass", 2)]


@pytest.mark.parametrize(
    ("script", "sequence", "cause"),
    [
        ([verifier("NON_RETRYABLE_FAILED", None)], [P, E, G, VI, V, F], "verifier_non_retryable_failed"),
        (
            [verifier("INVALID_OUTPUT", None), verifier("RETRYABLE_FAILED", None)],
            [P, E, G, VI, V, V, F],
            "verifier_retryable_failed",
        ),
        ([verifier("PENDING", None)], [P, E, G, VI, V, F], "verifier_unknown_status"),
        ([verifier("COMPLETED", "MAYBE")], [P, E, G, VI, V, F], "verifier_unknown_verdict"),
    ],
    ids=["non-retryable", "retries-exhausted", "unknown-status", "unknown-verdict"],
)
def test_it_sends_a_failed_verifier_to_the_fallback(script, sequence, cause):
    run = run_scripted(verifier=script)

    assert run.actions.sequence == sequence
    assert run.actions.call_counts[C] == 0
    assert run.state["orchestration_events"][-1] == event(F, "COMPLETED", cause)
    assert run.state["failure_reason"] == cause


@pytest.mark.parametrize("verdict", ["PASS", "REJECT"])
def test_it_sends_a_pass_or_reject_verdict_to_the_composer(verdict):
    # The model said PASS; the route follows the effective verdict.
    run = run_scripted(verifier=[verifier("COMPLETED", verdict, verifier_model_verdict="PASS")])

    assert run.actions.sequence == HAPPY_PATH
    assert run.transitions[4] == transition(V, C, verdict.lower())
    assert run.state["effective_verdict"] == verdict


def test_it_prepares_an_evidence_retry_for_a_low_confidence_gap():
    run = run_scripted(verifier=[low_confid_with_gap()])

    assert run.actions.sequence == EVIDENCE_RETRY_PATH
    assert run.transitions[4:6] == [transition(V, ER, "low_confid"), transition(ER, P, "completed")]
    assert run.state["evidence_retry_count"] == 1
    assert run.trace.evidence_retry_count == 1


@pytest.mark.parametrize(
    ("gatekeeper_script", "verifier_script", "sequence"),
    [
        ([gatekeeper("PASS", ceiling="LOW_CONFID")], [low_confid_with_gap()], HAPPY_PATH),
        ([], [verifier("COMPLETED", "LOW_CONFID", facts=[])], HAPPY_PATH),
        ([], [verifier("COMPLETED", "LOW_CONFID", facts=[{**GAP_FACT, "fact": "  "}])], HAPPY_PATH),
        ([], [verifier("COMPLETED", "LOW_CONFID", facts=[{**GAP_FACT, "verification": "supported"}])], HAPPY_PATH),
        ([], [low_confid_with_gap(), low_confid_with_gap()], EVIDENCE_RETRY_PATH),
    ],
    ids=["ceiling-caused", "no-gaps", "blank-fact", "no-gap-verification", "evidence-retry-used"],
)
def test_it_composes_low_confidence_when_a_retry_condition_fails(gatekeeper_script, verifier_script, sequence):
    run = run_scripted(gatekeeper=gatekeeper_script, verifier=verifier_script)

    assert run.actions.sequence == sequence
    assert run.transitions[-1] == transition(V, C, "low_confid")
    assert (run.state["effective_verdict"], run.state["final_answer"]) == ("LOW_CONFID", COMPOSER_ANSWER)


def test_it_replans_in_gap_only_mode_after_an_evidence_retry():
    run = run_scripted(verifier=[low_confid_with_gap()])

    assert run.actions.sequence == EVIDENCE_RETRY_PATH
    replan = run.actions.states(P)[1]
    assert (replan["planner_mode"], replan["planner_retry_count"]) == ("EVIDENCE_GAP_ONLY", 0)
    assert replan["retry_context"] == {"evidence_gaps": ["pool exhausted at 10:05"]}
    assert run.state["orchestration_events"][5:7] == [
        event(ER, "COMPLETED", "completed"),
        event(P, "COMPLETED", "completed", attempt=1),
    ]


def test_it_ends_with_the_composer_answer():
    run = run_scripted()

    assert run.actions.sequence == HAPPY_PATH
    assert run.state["orchestration_events"] == HAPPY_EVENTS
    assert (run.state["final_answer"], run.state["failure_reason"]) == (COMPOSER_ANSWER, None)
    assert run.trace.to_dict() == {
        "version": "stategraph-v1",
        "transitions": [
            transition(P, E, "completed"),
            transition(E, G, "completed"),
            transition(G, VI, "pass"),
            transition(VI, V, "completed"),
            transition(V, C, "pass"),
        ],
        "final_node": "composer",
        "termination_reason": "composer_completed",
        "degraded": False,
        "evidence_retry_count": 0,
    }


@pytest.mark.parametrize("status", TECHNICAL)
def test_it_retries_the_composer_once_on_the_same_material(status):
    run = run_scripted(composer=[composer(status)])

    assert run.actions.sequence == [*HAPPY_PATH, C]
    assert run.actions.call_counts[V] == 1
    assert run.state["orchestration_events"][-2:] == [
        event(C, status, status.lower(), 1),
        event(C, "COMPLETED", "completed", 2),
    ]
    assert (run.state["composer_retry_count"], run.state["final_answer"]) == (1, COMPOSER_ANSWER)


@pytest.mark.parametrize(
    ("script", "sequence", "cause"),
    [
        ([composer("NON_RETRYABLE_FAILED")], [*HAPPY_PATH, F], "composer_non_retryable_failed"),
        (
            [composer("RETRYABLE_FAILED"), composer("RETRYABLE_FAILED")],
            [*HAPPY_PATH, C, F],
            "composer_retryable_failed",
        ),
        ([composer("SENT")], [*HAPPY_PATH, F], "composer_unknown_status"),
    ],
    ids=["non-retryable", "retries-exhausted", "unknown-status"],
)
def test_it_sends_a_failed_composer_to_the_fallback(script, sequence, cause):
    run = run_scripted(composer=script)

    assert run.actions.sequence == sequence
    assert run.state["orchestration_events"][-1] == event(F, "COMPLETED", cause)
    assert (run.state["final_answer"], run.state["failure_reason"]) == (FALLBACK_ANSWER, cause)
    # The fallback may use the verifier's allowed material: it is still in the state it receives.
    assert run.actions.states(F)[0]["effective_verdict"] == "PASS"


def test_it_ends_a_fallback_run_degraded():
    run = run_scripted(executor=[executor("FAILED")])

    assert run.actions.sequence == [P, E, F]
    assert run.actions.call_counts[F] == 1
    assert run.state["final_answer"] == FALLBACK_ANSWER
    trace = run.trace.to_dict()
    assert (trace["final_node"], trace["termination_reason"], trace["degraded"]) == (
        "fallback",
        "fallback_executor_failed",
        True,
    )


@pytest.mark.parametrize(
    ("scripts", "sequence", "failed_node", "cause"),
    [
        ({"planner": [TimeoutError("model")]}, [P], "planner", TimeoutError),
        ({"gatekeeper": [OSError("store down")]}, [P, E, G], "gatekeeper", OSError),
        (
            {"executor": [executor("FAILED")], "fallback": [{"final_answer": " "}]},
            [P, E, F],
            "fallback",
            ActionContractError,
        ),
    ],
    ids=["planner-raises", "gatekeeper-raises", "no-safe-answer"],
)
def test_it_raises_with_the_partial_events_when_a_node_raises(scripts, sequence, failed_node, cause):
    actions = ScriptedActions(**scripts)

    with pytest.raises(GraphRunError) as raised:
        run_graph(build_graph(actions.port()), initial_state({"query": "q"}), run_id="run-failed")

    assert actions.sequence == sequence
    error = raised.value
    assert (error.failed_node, error.run_id, error.evidence_retry_count) == (failed_node, "run-failed", 0)
    # Every attempt before the failing one left its event; the failing attempt left none.
    assert [e["node"] for e in error.events] == [node.value for node in sequence[:-1]]
    assert isinstance(error.__cause__, cause)
