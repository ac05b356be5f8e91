"""The offline composer: a short markdown answer built only from the allowed claims.

The root cause is re-derived from what was verified, not taken from the executor: the service whose
verified errors carry the earliest timestamp is named, its error excerpts are quoted verbatim (so the
words the logs used - "connection pool exhausted", "disk alarm" - reach the reader unchanged), and the
best verified runbook passage is quoted beside them. Every claim is then listed as evidence with its id,
followed by the recommended actions and, below PASS, what is uncertain. With REJECT, or with nothing
allowed, the answer says plainly that no root cause could be established.

The headings and connecting sentences are written in the question's language (``diagnosis.language``):
Chinese for a Chinese question, English otherwise. Quotes, facts and the verifier's guidance stay as the
evidence and the verifier wrote them. Every template word is report language (the SemanticGuard's
``REPORT_VOCABULARY``), so a draft in either language is released at its first attempt.
"""

from __future__ import annotations

from typing import Any

from diagnosis.graph.status import Verdict
from diagnosis.language import Language, language_of
from diagnosis.providers.offline.excerpts import ClaimEvidence, read_claims
from diagnosis.providers.offline.text import clip
from tools.names import ToolName

MAX_ROOT_MESSAGES = 3
MAX_QUOTE_CHARS = 300
MAX_ANSWER_CHARS = 11000

# The template's words in each language; ``{...}`` fields are filled with evidence, never translated.
TEXTS: dict[Language, dict[str, str]] = {
    "en": {
        "root_heading": "## Likely root cause",
        "low_confidence": " (low confidence)",
        "quote_joiner": " and ",
        "since": " from {at}",
        "subject_named": "**{service}** is where the failure starts",
        "subject_unnamed": "The failure starts with these errors",
        "root_line": "{subject}: its errors are the earliest verified ones{since}: {quotes}.",
        "a_runbook": "a runbook",
        "passage": 'The knowledge base describes this failure in "{title}": "{passage}" [{claim_id}].',
        "metric": "The clearest verified signal is a metric shift [{claim_id}]. No error log or runbook explains it.",
        "records": "The verified evidence points at the records below; none of them is an error log or a runbook.",
        "evidence_heading": "## Evidence",
        "actions_heading": "## Recommended actions",
        "uncertainty_heading": "## Uncertainty",
        "uncertainty": "This conclusion is not fully confirmed:",
        "unconfirmed": "The verifier did not confirm the cause with independent sources.",
        "rejected_heading": "## No root cause established",
        "rejected": "No root cause could be established from the verified evidence.",
        "missing": "What is missing:",
    },
    "zh": {
        "root_heading": "## 可能的根本原因",
        "low_confidence": "（置信度较低）",
        "quote_joiner": " 和 ",
        "since": "，从 {at} 开始",
        "subject_named": "**{service}** 是故障开始的服务",
        "subject_unnamed": "故障从以下错误开始",
        "root_line": "{subject}：其错误是最早的已验证错误{since}：{quotes}。",
        "a_runbook": "运行手册",
        "passage": '知识库在 "{title}" 中描述了这一故障："{passage}" [{claim_id}]。',
        "metric": "最明确的已验证信号是一个指标变化 [{claim_id}]。没有错误日志或运行手册说明这一变化。",
        "records": "已验证的证据指向下面的记录；其中没有错误日志或运行手册。",
        "evidence_heading": "## 证据",
        "actions_heading": "## 建议操作",
        "uncertainty_heading": "## 不确定性",
        "uncertainty": "这一结论尚未完全确认：",
        "unconfirmed": "验证没有从独立来源确认这一原因。",
        "rejected_heading": "## 无法确定根本原因",
        "rejected": "无法从已验证的证据中确定根本原因。",
        "missing": "缺失的信息：",
    },
}
# The verification in words (``indirect support``): an identifier would be a token no evidence holds.
_SUPPORT_ZH = {"supported": "支持", "indirect_support": "间接支持"}


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
    language = language_of(str(task.get("question") or ""))
    text = TEXTS[language]
    if verdict == Verdict.REJECT or not claims:
        return {"answer_markdown": _rejected(gaps, missing, text), "cited_claim_ids": []}
    sections = [_root_cause(claims, verdict, text), _evidence(claims, facts, support, language)]
    if actions:
        sections.append(text["actions_heading"] + "\n" + "\n".join(f"- {action}" for action in actions))
    if verdict != Verdict.PASS:
        sections.append(_uncertainty(gaps, missing, text))
    answer = "\n\n".join(sections)
    return {"answer_markdown": clip(answer, MAX_ANSWER_CHARS), "cited_claim_ids": [claim.claim_id for claim in claims]}


def _root_cause(claims: list[ClaimEvidence], verdict: str, text: dict[str, str]) -> str:
    heading = text["root_heading"] + ("" if verdict == Verdict.PASS else text["low_confidence"])
    logs = [claim for claim in claims if claim.tool == ToolName.QUERY_LOGS and claim.messages]
    lines = []
    if logs:
        first = min(logs, key=lambda claim: (claim.logged_at[0] if claim.logged_at else "~", claim.claim_id))
        service = first.services[0] if first.services else ""
        same = [claim for claim in logs if claim.services == first.services][:MAX_ROOT_MESSAGES]
        quotes = text["quote_joiner"].join(
            f'"{clip(claim.messages[0], MAX_QUOTE_CHARS)}" [{claim.claim_id}]' for claim in same
        )
        since = text["since"].format(at=first.logged_at[0]) if first.logged_at else ""
        subject = text["subject_named"].format(service=service) if service else text["subject_unnamed"]
        lines.append(text["root_line"].format(subject=subject, since=since, quotes=quotes))
    passage = next((claim for claim in claims if claim.tool == ToolName.LOOKUP_KNOWLEDGE and claim.passages), None)
    if passage:
        title = passage.titles[0] if passage.titles else text["a_runbook"]
        lines.append(
            text["passage"].format(
                title=title, passage=clip(passage.passages[0], MAX_QUOTE_CHARS), claim_id=passage.claim_id
            )
        )
    if not lines:
        metric = next((claim for claim in claims if claim.tool == ToolName.QUERY_METRICS), None)
        lines.append(text["metric"].format(claim_id=metric.claim_id) if metric else text["records"])
    return heading + "\n" + "\n\n".join(lines)


def _evidence(claims: list[ClaimEvidence], facts: dict[str, str], support: dict[str, str], language: Language) -> str:
    lines = []
    for claim in claims:
        fact = facts.get(claim.claim_id) or "; ".join(claim.texts)
        verification = _support(support.get(claim.claim_id), language)
        lines.append(
            f"- [{claim.claim_id}] {fact} （{verification}）"
            if language == "zh"
            else f"- [{claim.claim_id}] {fact} ({verification})"
        )
    return TEXTS[language]["evidence_heading"] + "\n" + "\n".join(lines)


def _support(verification: str | None, language: Language = "en") -> str:
    """The verification in words (``indirect support``): an identifier would be a token no evidence holds."""
    if language == "zh":
        return _SUPPORT_ZH.get(verification or "", "已验证")
    return (verification or "verified").replace("_", " ")


def _uncertainty(gaps: list[str], missing: list[str], text: dict[str, str]) -> str:
    items = gaps + missing or [text["unconfirmed"]]
    return f"{text['uncertainty_heading']}\n{text['uncertainty']}\n" + "\n".join(f"- {item}" for item in items)


def _rejected(gaps: list[str], missing: list[str], text: dict[str, str]) -> str:
    lines = [text["rejected_heading"], text["rejected"]]
    if gaps or missing:
        lines.append(text["missing"] + "\n" + "\n".join(f"- {item}" for item in gaps + missing))
    return "\n\n".join(lines)
