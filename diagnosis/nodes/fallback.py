"""Fallback: the two deterministic safe answers of seed 000 §7; no model, nothing unverified.

- Pre-verification (planner, executor, gatekeeper or verifier could not produce trusted material): the
  verification status, what the tools did, the limits and where to look next. It never reads the executor's
  claims, so nothing the executor said can leak through it.
- Post-composer (the verifier allowed material but the composer failed twice): the allowed facts with their
  verified excerpts, missing information and recommended actions, laid out by a fixed template; guidance
  naming a salient token no allowed claim contains is left out.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis.graph.state import DiagnosisState, read_text
from diagnosis.graph.status import TECHNICAL_FAILURES, ComposerStatus, VerifierStatus
from diagnosis.nodes.allowed import allowed_claims, verifier_lists
from diagnosis.nodes.context import NodeContext
from diagnosis.nodes.release_review import known_names
from diagnosis.release.policy import grounded_guidance
from tools.models import ToolInvocation

NODE = "fallback"
STAGE_LIMITS = {
    "planner": "no usable investigation plan could be produced",
    "executor": "the evidence gathering did not produce a valid report",
    "gatekeeper": "no cited evidence could be proven to exist in this run's tool results",
    "verifier": "the verified evidence could not be judged",
    "composer": "the answer could not be written from the verified material",
}


def _tool_overview(context: NodeContext) -> list[str]:
    rows = ToolInvocation.objects.filter(run_id=context.run_id).values_list("tool_name", "status")
    counts = Counter(rows)
    if not counts:
        return ["- No tool was called."]
    return [f"- `{tool}`: {count} call(s) {status}" for (tool, status), count in sorted(counts.items())]


def pre_verification_answer(context: NodeContext, cause: str) -> str:
    stage = cause.split("_", 1)[0]
    limit = STAGE_LIMITS.get(stage, "the diagnosis could not complete")
    return "\n".join(
        [
            "## No verified diagnosis",
            "",
            f"I could not establish a verified root cause: {limit} (`{cause}`). "
            "Nothing unverified is reported, so this answer contains no findings.",
            "",
            "### What the tools did",
            *_tool_overview(context),
            "",
            "### Next steps",
            "- Open this run's trace to see which nodes ran and which tool calls were made.",
            "- Check the affected service's error logs and key metrics around the incident time by hand, "
            "or ask again with the service name and the time the problem started.",
        ]
    )


def post_composer_answer(context: NodeContext, state: DiagnosisState) -> str:
    lines = [
        "## Verified findings",
        "",
        "The answer could not be composed, so the verified material is listed as is.",
        "",
    ]
    allowed = allowed_claims(state)
    for claim in allowed:
        lines.append(f"- **[{claim['claim_id']}]** {claim['fact']} ({claim['verification']})")
        lines.extend(
            f"  > `{item['tool_name']}` {item['raw_path']}: {item['matched_text']}" for item in claim["evidence"]
        )
    lists = verifier_lists(state)
    for title, key in (("Missing information", "missing_info"), ("Recommended actions", "recommended_actions")):
        # The verifier's guidance cites nothing: an item naming a number, host or service that no allowed
        # claim contains is left out rather than shown unverified.
        items = grounded_guidance(lists[key], allowed, known_names(context.environment))
        if items:
            lines += ["", f"### {title}", *(f"- {item}" for item in items)]
    return "\n".join(lines)


def is_post_composer(state: DiagnosisState) -> bool:
    return (
        state.get("verifier_status") == VerifierStatus.COMPLETED
        and (state.get("composer_status") in {*TECHNICAL_FAILURES, ComposerStatus.NON_RETRYABLE_FAILED})
        and bool(allowed_claims(state))
    )


def answer(context: NodeContext, state: DiagnosisState, config: RunnableConfig) -> dict[str, Any]:
    context.progress.status(NODE, "started")
    if is_post_composer(state):
        return {"final_answer": post_composer_answer(context, state)}
    return {"final_answer": pre_verification_answer(context, read_text(state, "failure_reason") or "unknown_cause")}
