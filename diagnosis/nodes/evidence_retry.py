"""Evidence retry preparation: the context for one more, gap-only, planning round.

Prior verified claims are carried over with their original bindings so that the executor can return a
complete snapshot that passes the gatekeeper again; only claims the gatekeeper verified are carried.

The context is seed 000's ``retry_context``: evidence gaps, prior verified data, completed queries and the
round's constraints. The constraints are stated here, as data the planner and the executor read (their
prompts refer to them), so the round's rules have one wording, beside the limits the code holds it to.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis.graph.state import DiagnosisState, read_count, read_mapping
from diagnosis.graph.status import EVIDENCE_GAP_VERIFICATIONS
from diagnosis.graph.topology import MAX_EVIDENCE_RETRIES
from diagnosis.nodes.context import NodeContext
from diagnosis.nodes.executor import MAX_CALLS_PER_TURN, MAX_TURNS

NODE = "evidence_retry"
#: The evidence round's rules, for the planner and the executor (``constraints`` adds how many rounds may
#: follow it); the executor's turns and calls per turn are its limits in every round.
CONSTRAINTS: dict[str, Any] = {
    "queries": "only new queries that close the evidence_gaps; none of the completed_queries again",
    "snapshot": "a complete report: every prior_verified_claims entry unchanged (bindings too), then the new ones",
    "open_gaps": "a gap no query closes is said in the report, never guessed",
    "max_turns": MAX_TURNS,
    "max_calls_per_turn": MAX_CALLS_PER_TURN,
}


def constraints(state: DiagnosisState) -> dict[str, Any]:
    """``CONSTRAINTS`` and the evidence rounds the graph allows after this one (seed 002: one in all).

    The state's count already includes this round: the wrapper counts an attempt before its action runs.
    """
    return {
        **CONSTRAINTS,
        "evidence_rounds_after_this": MAX_EVIDENCE_RETRIES - read_count(state, "evidence_retry_count"),
    }


def prepare(context: NodeContext, state: DiagnosisState, config: RunnableConfig) -> dict[str, Any]:
    context.progress.status(NODE, "started")
    verifier_output = read_mapping(state, "verifier_output")
    verified_ids = set(read_mapping(state, "gatekeeper_result").get("verified_claim_ids") or [])
    executor_output = read_mapping(state, "executor_output")
    gaps = list(verifier_output.get("evidence_gaps") or [])
    gaps += [
        f"{fact['claim_id']}: {fact['fact']}"
        for fact in verifier_output.get("facts_checked") or []
        if fact.get("verification") in EVIDENCE_GAP_VERIFICATIONS
    ]
    prior = [claim for claim in executor_output.get("claims") or [] if claim.get("claim_id") in verified_ids]
    completed = list(executor_output.get("completed_queries") or []) + context.tool_calls
    return {
        "retry_context": {
            "evidence_gaps": gaps,
            "missing_info": list(verifier_output.get("missing_info") or []),
            "prior_verified_claims": prior,
            "completed_queries": list(dict.fromkeys(completed)),
            "constraints": constraints(state),
        }
    }
