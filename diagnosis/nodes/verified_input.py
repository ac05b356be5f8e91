"""Verified input: the only bridge from the executor to the verifier.

It projects the gatekeeper's passed bindings of verified claims - ``claim_id, source_invocation_id,
tool_name, raw_path, matched_text`` - and nothing else: no executor statement or free text, no failed
binding, no payload. What the verifier judges is therefore exactly what was proven to exist.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis.graph.state import DiagnosisState, read_mapping
from diagnosis.nodes.context import NodeContext

NODE = "verified_input"
EVIDENCE_KEYS = ("source_invocation_id", "tool_name", "raw_path", "matched_text")


def project(gatekeeper_result: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``(verified_executor_output, verified_evidence)`` from a gatekeeper result."""
    verified_ids = list(gatekeeper_result.get("verified_claim_ids") or [])
    evidence = [
        {"claim_id": binding["claim_id"], **{key: binding[key] for key in EVIDENCE_KEYS}}
        for binding in gatekeeper_result.get("checked_bindings") or []
        if binding.get("passed") is True and binding.get("claim_id") in verified_ids
    ]
    claims = [
        {
            "claim_id": claim_id,
            "evidence": [
                {key: item[key] for key in EVIDENCE_KEYS} for item in evidence if item["claim_id"] == claim_id
            ],
        }
        for claim_id in verified_ids
    ]
    return {"claims": claims}, evidence


def build(context: NodeContext, state: DiagnosisState, config: RunnableConfig) -> dict[str, Any]:
    context.progress.status(NODE, "started")
    output, evidence = project(dict(read_mapping(state, "gatekeeper_result")))
    return {"verified_executor_output": output, "verified_evidence": evidence}
