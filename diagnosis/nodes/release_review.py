"""The release guard inside the composer's attempt: release policy, then SemanticGuard, then the decision.

It runs within the composer node, so the frozen routing matrix of seed 000 does not change: a blocked
draft is the composer's INVALID_OUTPUT, the composer gets its one retry with the findings, then the
post-composer fallback. Every decision is a RELEASE timeline event naming the rule that decided; the
findings, which quote the draft, go only to the restricted reasoning audit and to the retry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from diagnosis.nodes import semantic_guard
from diagnosis.nodes.context import NodeContext
from diagnosis.release.policy import POLICY_VERSION, check_draft

RELEASED, BLOCKED = "released", "blocked"


@dataclass(frozen=True)
class Review:
    released: bool
    rule: str
    """``passed``, the policy rule that blocked, ``semantic_guard_blocked`` or ``semantic_guard_failed``."""
    reason_code: str = ""
    """The composer attempt's ``failure_reason`` when blocked."""
    findings: list[dict[str, str]] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        """Public (``agent_step.summary``): rule names only, never the draft's words."""
        if self.released:
            return "release guard: released"
        return f"release guard: blocked by {self.rule} ({', '.join(self.rules)}; {len(self.findings)} finding(s))"


def known_names(environment: Mapping[str, Any]) -> set[str]:
    """Services, metrics and business tables of this run's environment: names a sentence must not invent."""
    names = set(environment.get("services") or [])
    names |= {metric for metrics in (environment.get("metrics") or {}).values() for metric in metrics}
    names |= set(environment.get("business_tables") or {})
    return names


def review_draft(
    context: NodeContext,
    *,
    node: str,
    attempt: int,
    output: Mapping[str, Any],
    allowed: Sequence[Mapping[str, Any]],
    guidance: Sequence[str],
) -> Review:
    """Decide whether one composer draft may be released, and record the decision."""
    policy = check_draft(
        output["answer_markdown"],
        output["cited_claim_ids"],
        allowed,
        guidance=guidance,
        known_names=known_names(context.environment),
    )
    if not policy.released:
        review = Review(
            False,
            policy.rule,
            "release_policy_blocked",
            [finding.to_dict() for finding in policy.findings],
            sorted(policy.rule_counts()),
        )
    else:
        guard = semantic_guard.review(
            context, node=node, attempt=attempt, draft=output["answer_markdown"], allowed=allowed
        )
        if guard.verdict == semantic_guard.RELEASE:
            review = Review(True, "passed")
        elif guard.verdict == semantic_guard.BLOCK:
            findings = [
                {"rule": "semantic_guard", "sentence": item["sentence"], "detail": item["reason"]}
                for item in guard.unsupported
            ]
            review = Review(False, "semantic_guard_blocked", "semantic_guard_blocked", findings, ["semantic_guard"])
        else:
            review = Review(False, "semantic_guard_failed", "semantic_guard_failed", [], [guard.failure])
    decision = RELEASED if review.released else BLOCKED
    context.progress.release(
        node=node,
        attempt=attempt,
        decision=decision,
        rule=review.rule,
        rules=review.rules,
        policy_version=POLICY_VERSION,
    )
    context.release.decisions.append(
        {"attempt": attempt, "decision": decision, "rule": review.rule, "rules": review.rules}
    )
    context.release.last_findings = review.findings
    return review


def release_summary(context: NodeContext) -> dict[str, Any]:
    """The ``release`` part of ``self_evaluation``: versions and each decision, rule names only."""
    return {
        "policy_version": POLICY_VERSION,
        "guard_version": semantic_guard.guard_version(),
        "decisions": list(context.release.decisions),
    }
