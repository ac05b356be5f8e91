"""Evidence retry preparation: the context for one more, gap-only, planning round.

Prior verified claims are carried over with their original bindings so that the executor can return a
complete snapshot that passes the gatekeeper again; only claims the gatekeeper verified are carried.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis.graph.state import DiagnosisState, read_mapping
from diagnosis.graph.status import EVIDENCE_GAP_VERIFICATIONS
from diagnosis.nodes.context import NodeContext

NODE = "evidence_retry"


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
        }
    }
