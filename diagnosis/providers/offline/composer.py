"""The offline composer: a short markdown answer built only from the allowed claims.

The root cause is re-derived from what was verified, not taken from the executor: the service whose
verified errors carry the earliest timestamp is named, its error excerpts are quoted verbatim (so the
words the logs used - "connection pool exhausted", "disk alarm" - reach the reader unchanged), and the
best verified runbook passage is quoted beside them. Every claim is then listed as evidence with its id,
followed by the recommended actions and, below PASS, what is uncertain. With REJECT, or with nothing
allowed, the answer says plainly that no root cause could be established.
"""

from __future__ import annotations

from typing import Any

from diagnosis.graph.status import Verdict
from diagnosis.providers.offline.excerpts import ClaimEvidence, read_claims
from diagnosis.providers.offline.text import clip
from tools.names import ToolName

MAX_ROOT_MESSAGES = 3
MAX_QUOTE_CHARS = 300
MAX_ANSWER_CHARS = 11000


def compose(task: dict[str, Any]) -> dict[str, Any]:
    """The composer's reply for one task (the contract's composer output)."""
    verdict = str(task.get("effective_verdict") or Verdict.REJECT)
    allowed = [item for item in task.get("allowed_claims") or [] if isinstance(item, dict)]
    facts = {str(item.get("claim_id")): str(item.get("fact") or "") for item in allowed}
    support = {str(item.get("claim_id")): str(item.get("verification") or "") for item in allowed}
    claims = read_claims(allowed)
    gaps = [str(gap) for gap in task.get("evidence_gaps") or []]
    missing = [str(item) for item in task.get("missing_info") or []]
    actions = [str(action) for action in task.get("recommended_actions") or []]
    if verdict == Verdict.REJECT or not claims:
        return {"answer_markdown": _rejected(gaps, missing), "cited_claim_ids": []}
    sections = [_root_cause(claims, verdict), _evidence(claims, facts, support)]
    if actions:
        sections.append("## Recommended actions\n" + "\n".join(f"- {action}" for action in actions))
    if verdict != Verdict.PASS:
        sections.append(_uncertainty(gaps, missing))
    answer = "\n\n".join(sections)
    return {"answer_markdown": clip(answer, MAX_ANSWER_CHARS), "cited_claim_ids": [claim.claim_id for claim in claims]}


def _root_cause(claims: list[ClaimEvidence], verdict: str) -> str:
    heading = "## Likely root cause" + ("" if verdict == Verdict.PASS else " (low confidence)")
    logs = [claim for claim in claims if claim.tool == ToolName.QUERY_LOGS and claim.messages]
    lines = []
    if logs:
        first = min(logs, key=lambda claim: (claim.logged_at[0] if claim.logged_at else "~", claim.claim_id))
        service = first.services[0] if first.services else ""
        same = [claim for claim in logs if claim.services == first.services][:MAX_ROOT_MESSAGES]
        quotes = " and ".join(f'"{clip(claim.messages[0], MAX_QUOTE_CHARS)}" [{claim.claim_id}]' for claim in same)
        since = f" from {first.logged_at[0]}" if first.logged_at else ""
        subject = f"**{service}** is where the failure starts" if service else "The failure starts with these errors"
        lines.append(f"{subject}: its errors are the earliest verified ones{since}: {quotes}.")
    passage = next((claim for claim in claims if claim.tool == ToolName.LOOKUP_KNOWLEDGE and claim.passages), None)
    if passage:
        title = passage.titles[0] if passage.titles else "a runbook"
        lines.append(
            f'The knowledge base describes this failure in "{title}": "{clip(passage.passages[0], MAX_QUOTE_CHARS)}" '
            f"[{passage.claim_id}]."
        )
    if not lines:
        metric = next((claim for claim in claims if claim.tool == ToolName.QUERY_METRICS), None)
        lines.append(
            f"The clearest verified signal is a metric shift [{metric.claim_id}]. No error log or runbook explains it."
            if metric
            else "The verified evidence points at the records below; none of them is an error log or a runbook."
        )
    return heading + "\n" + "\n\n".join(lines)


def _evidence(claims: list[ClaimEvidence], facts: dict[str, str], support: dict[str, str]) -> str:
    lines = [
        f"- [{claim.claim_id}] {facts.get(claim.claim_id) or '; '.join(claim.texts)} ({_support(support.get(claim.claim_id))})"
        for claim in claims
    ]
    return "## Evidence\n" + "\n".join(lines)


def _support(verification: str | None) -> str:
    """The verification in words (``indirect support``): an identifier would be a token no evidence holds."""
    return (verification or "verified").replace("_", " ")


def _uncertainty(gaps: list[str], missing: list[str]) -> str:
    items = gaps + missing or ["The verifier did not confirm the cause with independent sources."]
    return "## Uncertainty\nThis conclusion is not fully confirmed:\n" + "\n".join(f"- {item}" for item in items)


def _rejected(gaps: list[str], missing: list[str]) -> str:
    lines = ["## No root cause established", "No root cause could be established from the verified evidence."]
    if gaps or missing:
        lines.append("What is missing:\n" + "\n".join(f"- {item}" for item in gaps + missing))
    return "\n\n".join(lines)
