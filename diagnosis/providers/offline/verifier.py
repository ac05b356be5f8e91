"""The offline verifier: judges verified excerpts only, and never says more than they show.

Each claim becomes a ``fact`` rebuilt from its excerpts (``excerpts.read_claims``). Its verification:

- a log excerpt that names a failure is ``supported`` when another kind of source corroborates it (a
  runbook passage sharing its words, or a metric of the same service), ``indirect_support`` otherwise;
- a runbook passage is ``supported`` when it shares at least two words with the verified errors, and
  ``indirect_support`` when it only echoes the question;
- a metric claim must show two different values to count; it is ``supported`` when its service is one
  whose errors were verified (or a runbook names it), ``indirect_support`` otherwise;
- a business record is at best ``indirect_support``: a change near the onset makes a cause plausible, it
  does not prove it;
- anything irrelevant, or any excerpt addressed to the agent, is ``no_evidence``.

The verdict is PASS when at least two kinds of source support the cause and one of them is logs or
knowledge, LOW_CONFID (with concrete gaps) when support comes from one kind only, REJECT when nothing
relevant was verified - and never above the gatekeeper's ceiling. It never claims ``contradicted``:
excerpts chosen by the executor to support a cause cannot show that the cause is false.
"""

from __future__ import annotations

from typing import Any

from diagnosis.graph.status import Verdict, Verification, min_verdict
from diagnosis.language import Language, language_of
from diagnosis.providers.offline.excerpts import ClaimEvidence, read_claims
from diagnosis.providers.offline.text import clip, looks_like_instruction, sentences, terms
from diagnosis.providers.offline.vocabulary import announces_change, fault_score, is_mitigation
from diagnosis.release.quoting import in_quotation_marks
from tools.names import ToolName

MIN_SHARED_TERMS = 2
MAX_ACTIONS = 4
MAX_FACT_CHARS = 1900

# Facts, gaps and missing information are written in the question's language; ``{...}`` fields are evidence.
TEXTS: dict[Language, dict[str, str]] = {
    "en": {
        "agent_text": "The excerpt is text addressed to the agent, not a description of the system; it is not evidence.",
        "a_service": "A service",
        "log": "{who} logged{when}: {message}",
        "log_when": " at {at}",
        "log_host": " on host {host}",
        "reading": "{value} at {at}",
        "reading_joiner": " then ",
        "metric": "{who} metric {metric} read {readings}",
        "unnamed": "(unnamed)",
        "knowledge": "Knowledge base {title} says: {quoted}",
        "untitled": "(untitled)",
        "title_only": "(title only)",
        "record": "Business record: {pairs}",
        "returned": "{tool} returned: {texts}",
        "a_tool": "A tool",
        "affected": "the affected services",
        "gap_logs": "No verified error logs show the failure; check the ERROR and WARN logs of {subject}",
        "gap_metrics": "No verified metric of {subject} shows a shift at the onset",
        "gap_knowledge": "No runbook or postmortem passage was verified for the errors of {subject}",
        "no_change": "No deploy or configuration change near the onset was verified in the business data or the logs",
    },
    "zh": {
        "agent_text": "该摘录是写给智能体的文字，不是对系统的描述；它不是证据。",
        "a_service": "某个服务",
        "log": "{who}{when}记录了日志：{message}",
        "log_when": " 在 {at} ",
        "log_host": "（主机 {host}）",
        "reading": "{at} 的 {value}",
        "reading_joiner": "，然后是 ",
        "metric": "{who} 的指标 {metric} 读数依次为 {readings}",
        "unnamed": "（未命名）",
        "knowledge": "知识库{title}写道：{quoted}",
        "untitled": "（无标题）",
        "title_only": "（仅标题）",
        "record": "业务记录：{pairs}",
        "returned": "{tool} 返回：{texts}",
        "a_tool": "某个工具",
        "affected": "受影响的服务",
        "gap_logs": "没有已验证的错误日志显示这一故障；需要检查 {subject} 的 ERROR 和 WARN 日志",
        "gap_metrics": "没有 {subject} 的已验证指标显示起始时间附近的变化",
        "gap_knowledge": "没有为 {subject} 的错误验证到知识库中的运行手册或复盘段落",
        "no_change": "业务数据和日志中没有验证到起始时间附近的部署或配置变更",
    },
}


def verify(task: dict[str, Any]) -> dict[str, Any]:
    """The verifier's reply for one task (the contract's verifier output)."""
    question = str(task.get("question") or "")
    claims = read_claims(task.get("verified_claims") or [])
    judge = _Judge(question, claims)
    facts = [
        {
            "claim_id": claim.claim_id,
            "fact": _fact(claim, judge.language),
            "verification": judge.verification(claim).value,
        }
        for claim in claims
    ]
    supported = {
        claim.tool for claim, fact in zip(claims, facts, strict=True) if fact["verification"] == Verification.SUPPORTED
    }
    relevant = {
        claim.tool
        for claim, fact in zip(claims, facts, strict=True)
        if fact["verification"] in (Verification.SUPPORTED, Verification.INDIRECT_SUPPORT)
    }
    if supported & {ToolName.QUERY_LOGS, ToolName.LOOKUP_KNOWLEDGE} and len(supported) >= 2:
        verdict = Verdict.PASS
    elif relevant:
        verdict = Verdict.LOW_CONFID
    else:
        verdict = Verdict.REJECT
    verdict = _capped(verdict, str(task.get("verdict_ceiling") or Verdict.PASS))
    return {
        "verdict": verdict.value,
        "facts_checked": facts,
        "missing_info": judge.missing_info(),
        "evidence_gaps": [] if verdict is Verdict.PASS else judge.gaps(relevant),
        "recommended_actions": _actions(claims, judge),
    }


def _capped(verdict: Verdict, ceiling: str) -> Verdict:
    """``verdict`` capped by the ceiling; an unreadable ceiling caps at LOW_CONFID (fail closed)."""
    try:
        cap = Verdict(ceiling)
    except ValueError:
        cap = Verdict.LOW_CONFID
    return min_verdict(verdict, cap)


class _Judge:
    """What the verified excerpts say together, so each claim is judged against the others."""

    def __init__(self, question: str, claims: list[ClaimEvidence]) -> None:
        self.language = language_of(question)
        self.text = TEXTS[self.language]
        self.question_terms = terms(question)
        self.claims = [claim for claim in claims if not _addressed_to_agent(claim)]
        self.logs = [claim for claim in self.claims if claim.tool == ToolName.QUERY_LOGS and _names_failure(claim)]
        self.failing_services = {service for claim in self.logs for service in claim.services}
        self.error_terms = terms(" ".join(message for claim in self.logs for message in claim.messages))
        self.knowledge_terms = terms(
            " ".join(text for claim in self.claims if claim.tool == ToolName.LOOKUP_KNOWLEDGE for text in claim.texts)
        )
        self.metric_services = {
            service
            for claim in self.claims
            if claim.tool == ToolName.QUERY_METRICS and _shows_change(claim)
            for service in claim.services
        }

    def verification(self, claim: ClaimEvidence) -> Verification:
        if claim not in self.claims:
            return Verification.NO_EVIDENCE
        if claim.tool == ToolName.QUERY_LOGS:
            return self._log(claim)
        if claim.tool == ToolName.LOOKUP_KNOWLEDGE:
            return self._knowledge(claim)
        if claim.tool == ToolName.QUERY_METRICS:
            return self._metric(claim)
        if claim.tool == ToolName.QUERY_MYSQL:
            related = (
                self.error_terms | self.knowledge_terms | self.question_terms | _service_terms(self.failing_services)
            )
            return Verification.INDIRECT_SUPPORT if terms(" ".join(claim.texts)) & related else Verification.NO_EVIDENCE
        return Verification.NO_EVIDENCE

    def _log(self, claim: ClaimEvidence) -> Verification:
        if claim not in self.logs:
            return Verification.INDIRECT_SUPPORT if self.is_related_change(claim) else Verification.NO_EVIDENCE
        corroborated = (
            terms(" ".join(claim.messages)) & self.knowledge_terms or set(claim.services) & self.metric_services
        )
        return Verification.SUPPORTED if corroborated else Verification.INDIRECT_SUPPORT

    def is_related_change(self, claim: ClaimEvidence) -> bool:
        """A log line announcing a change, by a failing service or in the failure's words: a plausible trigger."""
        if not any(announces_change(message) for message in claim.messages):
            return False
        related = self.error_terms | self.knowledge_terms | _service_terms(self.failing_services)
        return bool(set(claim.services) & self.failing_services or terms(" ".join(claim.messages)) & related)

    def _knowledge(self, claim: ClaimEvidence) -> Verification:
        words = terms(" ".join(claim.texts))
        if len(words & (self.error_terms | _service_terms(self.failing_services))) >= MIN_SHARED_TERMS:
            return Verification.SUPPORTED
        return Verification.INDIRECT_SUPPORT if words & self.question_terms else Verification.NO_EVIDENCE

    def _metric(self, claim: ClaimEvidence) -> Verification:
        if not _shows_change(claim):
            return Verification.NO_EVIDENCE
        named = set(claim.services) & self.failing_services or terms(" ".join(claim.services)) & self.knowledge_terms
        return Verification.SUPPORTED if named else Verification.INDIRECT_SUPPORT

    def gaps(self, relevant: set[str]) -> list[str]:
        """The source kinds that showed nothing relevant, naming the services so a retry can query exactly that."""
        subject = ", ".join(sorted(self.failing_services or self.metric_services)) or self.text["affected"]
        wanted = [
            (ToolName.QUERY_LOGS, "gap_logs"),
            (ToolName.QUERY_METRICS, "gap_metrics"),
            (ToolName.LOOKUP_KNOWLEDGE, "gap_knowledge"),
        ]
        return [self.text[key].format(subject=subject) for tool, key in wanted if tool not in relevant]

    def missing_info(self) -> list[str]:
        if any(claim.tool == ToolName.QUERY_MYSQL or self.is_related_change(claim) for claim in self.claims):
            return []
        return [self.text["no_change"]]


def _addressed_to_agent(claim: ClaimEvidence) -> bool:
    return any(looks_like_instruction(text) for text in claim.texts)


def _names_failure(claim: ClaimEvidence) -> bool:
    return any(fault_score(message) > 0 for message in claim.messages)


def _shows_change(claim: ClaimEvidence) -> bool:
    return len({point.get("value") for point in claim.ordered_points() if point.get("value")}) >= 2


def _service_terms(services: set[str]) -> set[str]:
    return terms(" ".join(services))


def _fact(claim: ClaimEvidence, language: Language) -> str:
    """What a claim says, its evidence in quotation marks it does not close early (``release.quoting``)."""
    text = TEXTS[language]
    if _addressed_to_agent(claim):
        return text["agent_text"]
    who = ", ".join(claim.services) or text["a_service"]
    if claim.tool == ToolName.QUERY_LOGS and claim.messages:
        when = text["log_when"].format(at=claim.logged_at[0]) if claim.logged_at else ""
        if claim.hosts:  # "在 10:05（主机 h）", no space before a full-width bracket
            when = when.rstrip() + text["log_host"].format(host=claim.hosts[0])
        fact = text["log"].format(who=who, when=when, message=in_quotation_marks(claim.messages[0], language))
    elif claim.tool == ToolName.QUERY_METRICS and claim.points:
        readings = text["reading_joiner"].join(
            text["reading"].format(value=point.get("value", "?"), at=point.get("ts", "?"))
            for point in claim.ordered_points()
        )
        fact = text["metric"].format(who=who, metric=claim.metric or text["unnamed"], readings=readings)
    elif claim.tool == ToolName.LOOKUP_KNOWLEDGE and (claim.titles or claim.passages):
        quoted = " ".join(in_quotation_marks(passage, language) for passage in claim.passages) or text["title_only"]
        title = in_quotation_marks(claim.titles[0], language) if claim.titles else text["untitled"]
        fact = text["knowledge"].format(title=title, quoted=quoted)
    elif claim.tool == ToolName.QUERY_MYSQL and claim.cells:
        fact = text["record"].format(pairs="; ".join(claim.cell_pairs()))
    else:
        fact = text["returned"].format(tool=claim.tool or text["a_tool"], texts=" | ".join(claim.texts))
    return clip(fact, MAX_FACT_CHARS)


def _actions(claims: list[ClaimEvidence], judge: _Judge) -> list[str]:
    """Remediation sentences quoted from verified runbook passages; nothing is invented without them."""
    actions: list[str] = []
    for claim in claims:
        if claim.tool != ToolName.LOOKUP_KNOWLEDGE or judge.verification(claim) == Verification.NO_EVIDENCE:
            continue
        for passage in claim.passages:
            actions.extend(
                sentence for sentence in sentences(passage) if is_mitigation(sentence) and sentence not in actions
            )
    return actions[:MAX_ACTIONS]
