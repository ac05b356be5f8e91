"""The material the Verifier allowed: the only input of the composer and of the post-composer fallback.

An allowed claim is a fact the verifier marked ``supported`` or ``indirect_support`` about a claim the
gatekeeper verified, together with that claim's verified excerpts. With a REJECT verdict nothing is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from diagnosis.graph.status import RELEASABLE_VERIFICATIONS, Verdict


def allowed_claims(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    if state.get("effective_verdict") not in (Verdict.PASS, Verdict.LOW_CONFID):
        return []
    verified = {
        claim["claim_id"]: claim["evidence"]
        for claim in (state.get("verified_executor_output") or {}).get("claims") or []
    }
    allowed: dict[str, dict[str, Any]] = {}
    for fact in (state.get("verifier_output") or {}).get("facts_checked") or []:
        claim_id = fact.get("claim_id")
        if claim_id in verified and fact.get("verification") in RELEASABLE_VERIFICATIONS and claim_id not in allowed:
            allowed[claim_id] = {
                "claim_id": claim_id,
                "fact": fact["fact"],
                "verification": fact["verification"],
                "evidence": [
                    {"tool_name": item["tool_name"], "raw_path": item["raw_path"], "matched_text": item["matched_text"]}
                    for item in verified[claim_id]
                ],
            }
    return list(allowed.values())


def verifier_lists(state: Mapping[str, Any]) -> dict[str, list[str]]:
    output = state.get("verifier_output") or {}
    return {key: list(output.get(key) or []) for key in ("missing_info", "evidence_gaps", "recommended_actions")}
