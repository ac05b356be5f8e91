"""Node ids, route keys, reason codes and edges of the diagnosis graph (seed 002 §5).

The topology is data so that the builder, the tests and ``docs/graph.md`` all read the same tables: a
route key is what a router returns, ``CONDITIONAL_ROUTES`` maps it to the node it leads to.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Literal

from langgraph.graph import END, START


class Node(StrEnum):
    PLANNER = "planner"
    EXECUTOR = "executor"
    GATEKEEPER = "gatekeeper"
    VERIFIED_INPUT = "verified_input"
    VERIFIER = "verifier"
    EVIDENCE_RETRY = "evidence_retry"
    COMPOSER = "composer"
    FALLBACK = "fallback"


PlannerRoute = Literal["executor", "retry_planner", "fallback"]
ExecutorRoute = Literal["gatekeeper", "fallback"]
GatekeeperRoute = Literal["verified_input", "fallback"]
VerifierRoute = Literal["composer", "retry_verifier", "evidence_retry", "fallback"]
ComposerRoute = Literal["end", "retry_composer", "fallback"]

#: Route key -> target, per source node with a conditional edge. Self-loops are the technical retries.
CONDITIONAL_ROUTES: Mapping[Node, Mapping[str, str]] = MappingProxyType(
    {
        Node.PLANNER: {"executor": Node.EXECUTOR, "retry_planner": Node.PLANNER, "fallback": Node.FALLBACK},
        Node.EXECUTOR: {"gatekeeper": Node.GATEKEEPER, "fallback": Node.FALLBACK},
        Node.GATEKEEPER: {"verified_input": Node.VERIFIED_INPUT, "fallback": Node.FALLBACK},
        Node.VERIFIER: {
            "composer": Node.COMPOSER,
            "retry_verifier": Node.VERIFIER,
            "evidence_retry": Node.EVIDENCE_RETRY,
            "fallback": Node.FALLBACK,
        },
        Node.COMPOSER: {"end": END, "retry_composer": Node.COMPOSER, "fallback": Node.FALLBACK},
    }
)

#: Unconditional edges: the entry, the two deterministic nodes that always continue, and the exit.
FIXED_EDGES: tuple[tuple[str, str], ...] = (
    (START, Node.PLANNER),
    (Node.VERIFIED_INPUT, Node.VERIFIER),
    (Node.EVIDENCE_RETRY, Node.PLANNER),
    (Node.FALLBACK, END),
)

#: The last-resort step bound; business loops are bounded by counters long before (longest path: 18 nodes).
RECURSION_LIMIT = 32
#: Each stage counter allows one technical retry; the run allows one evidence retry (seed 000 §4).
MAX_TECHNICAL_RETRIES = 1
MAX_EVIDENCE_RETRIES = 1


class ReasonCode(StrEnum):
    """Why a node attempt ended as it did: the ``reason_code`` of its event and of the transition after it.

    Status-derived codes are the status value in lower case. An action may supply a more specific code
    (``failure_reason``); the fallback's code names the cause, ``<node>_<reason_code>`` of the event before it.
    """

    COMPLETED = "completed"
    INVALID_OUTPUT = "invalid_output"
    RETRYABLE_FAILED = "retryable_failed"
    NON_RETRYABLE_FAILED = "non_retryable_failed"
    TOOL_BLOCKED = "tool_blocked"
    FAILED = "failed"
    PASS = "pass"
    LOW_CONFID = "low_confid"
    REJECT = "reject"
    UNKNOWN_STATUS = "unknown_status"
    UNKNOWN_VERDICT = "unknown_verdict"
    NO_VERIFIED_BINDING = "no_verified_binding"
    # Only for a fallback entered with no event before it, which the topology does not allow.
    UNKNOWN_CAUSE = "unknown_cause"


#: Event outcome of a deterministic node, and of a status node whose status is missing or unknown.
COMPLETED_OUTCOME = "COMPLETED"
UNKNOWN_OUTCOME = "UNKNOWN"
