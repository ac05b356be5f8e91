"""The offline composer: a short markdown answer built only from the allowed claims, cause first.

The story is re-derived from what was verified, never taken from the executor's wording:

- a *change* is a verified log line that announces one (a deploy, a flag, a migration, a restart: words of
  ``vocabulary.announces_change``, naming no fault) or a verified row of a change-record table;
- a *failure* is any other verified log line; the service whose failure carries the earliest timestamp
  is where the failure began (and its host, when all its verified lines come from one);
- the cause is the change stamped closest before that first failure; without one, the answer says in so
  many words that no verified change explains it, and names where the failure began and the runbook that
  describes it instead.

The answer opens with one sentence naming the cause, then the chain in time order (change, first errors
of each service, metric shifts), each line with its marker; log lines are quoted there, never in the
headline (a change's own announcement is its name). Then every claim as evidence, the recommended actions
and, below PASS, what is uncertain. With REJECT, or with nothing allowed, it says plainly that no root
cause could be established.

The headings and connecting sentences are written in the question's language (``diagnosis.language``):
Chinese for a Chinese question, English otherwise. Quotes, facts and the verifier's guidance stay as the
evidence and the verifier wrote them, shown as text: a "<" that would open HTML and a "[" that would open a link are
escaped in quotes (``release.quoting``), a link in the verifier's guidance is written out as its words and where it
points (``draft.link_text``), and a runbook passage is never cut inside its code. Every template word is report language (the SemanticGuard's
``REPORT_VOCABULARY``), so a draft in either language is released at its first attempt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from diagnosis.graph.status import Verdict
from diagnosis.language import Language, language_of
from diagnosis.providers.offline.analysis.changes import LOOKBACK
from diagnosis.providers.offline.excerpts import ClaimEvidence, read_claims
from diagnosis.providers.offline.text import clip
from diagnosis.providers.offline.timing import clock, parse_ts
from diagnosis.providers.offline.vocabulary import QUIET_LEVELS, announces_change, fault_score, reads_like_change_record
from diagnosis.release.draft import CODE_SPAN, link_text, within
from diagnosis.release.quoting import as_text, in_quotation_marks
from tools.names import ToolName

SAME_CHANGE = timedelta(minutes=10)
_BACKTICKS = re.compile(r"`+")
MAX_QUOTE_CHARS = 200
MAX_PASSAGE_CHARS = 300
MAX_CELLS_SHOWN = 4
MAX_TIMELINE = 8
MAX_ANSWER_CHARS = 11000

# The template's words in each language; ``{...}`` fields are filled with evidence, never translated.
TEXTS: dict[Language, dict[str, str]] = {
    "en": {
        "root_heading": "## Likely root cause",
        "sentence_joiner": " ",
        "low_confidence": " (low confidence)",
        "change_cause": "The likely root cause is a change shortly before the failure began: {changes}.",
        "change_joiner": " and ",
        "began_in": "The failure then began in {subject} [{claim_id}].",
        "cause_in": "The likely root cause is in {subject}, where the failure began [{claim_id}].",
        "no_change": "No verified change before the onset explains it.",
        "subject": "**{service}**",
        "on_host": " on host `{host}`",
        "passage": "The knowledge base describes this failure in {title}: {passage} [{claim_id}].",
        "a_runbook": "a runbook",
        "metric_only": "The clearest verified signal is a metric shift [{claim_id}]. No error log or runbook explains it.",
        "records": "The verified evidence points at the records below; none of them is an error log or a runbook.",
        "logged_change": "**{service}** logged {message}",
        "recorded_change": "the change record {cells}",
        "recorded_at": " at {at}",
        "timeline_heading": "## What happened, in time order",
        "timeline_change": "- {at} change: {change} [{claim_id}]",
        "timeline_failure": "- {at} first errors of **{service}**: {message} [{claim_id}]",
        "timeline_warning": "- {at} first warnings of **{service}**: {message} [{claim_id}]",
        "timeline_metric": "- {at} {metric} of **{service}** {direction} {low} to {high} [{claim_id}]",
        "rose": "rose from",
        "fell": "fell from",
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
        "sentence_joiner": "",
        "low_confidence": "（置信度较低）",
        "change_cause": "可能的根本原因是故障开始之前的变更：{changes}。",
        "change_joiner": "；",
        "began_in": "随后故障从 {subject} 开始 [{claim_id}]。",
        "cause_in": "可能的根本原因在 {subject}，故障从这里开始 [{claim_id}]。",
        "no_change": "没有已验证的变更发生在故障开始之前并能说明这一故障。",
        "subject": "**{service}**",
        "on_host": "（主机 `{host}`）",
        "passage": "知识库在{title}中描述了这一故障：{passage} [{claim_id}]。",
        "a_runbook": "运行手册",
        "metric_only": "最明确的已验证信号是一个指标变化 [{claim_id}]。没有错误日志或运行手册说明这一变化。",
        "records": "已验证的证据指向下面的记录；其中没有错误日志或运行手册。",
        "logged_change": "**{service}** 记录了{message}",
        "recorded_change": "变更记录 {cells}",
        "recorded_at": "，时间 {at}",
        "timeline_heading": "## 时间顺序",
        "timeline_change": "- {at} 变更：{change} [{claim_id}]",
        "timeline_failure": "- {at} **{service}** 的首批错误：{message} [{claim_id}]",
        "timeline_warning": "- {at} **{service}** 的首批告警：{message} [{claim_id}]",
        "timeline_metric": "- {at} **{service}** 的 {metric} {direction} {low} {to} {high} [{claim_id}]",
        "rose": "从",
        "fell": "从",
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
# Chinese says the direction after the low value: "从 0 升至 44".
_ZH_TO = {True: "升至", False: "降至"}
# The verification in words (``indirect support``): an identifier would be a token no evidence holds.
_SUPPORT_ZH = {"supported": "支持", "indirect_support": "间接支持"}


@dataclass(frozen=True)
class Event:
    """One verified claim placed in time."""

    at: datetime
    at_text: str
    claim: ClaimEvidence


@dataclass(frozen=True)
class Story:
    """The verified claims read as an incident: the changes, the failures, the metric shifts, in time order."""

    changes: list[Event]
    failures: list[Event]
    metrics: list[Event]
    supported: frozenset[str] = frozenset()
    """The claims the verifier found ``supported``: only they may set the onset, when any failure is one."""

    @classmethod
    def of(cls, claims: list[ClaimEvidence], supported: frozenset[str] = frozenset()) -> Story:
        changes: list[Event] = []
        failures: list[Event] = []
        metrics: list[Event] = []
        records: list[list[Event]] = []
        for claim in claims:
            if claim.tool == ToolName.QUERY_LOGS and claim.messages and claim.logged_at:
                event = _event(claim.logged_at[0], claim)
                if event is not None and _announces_change(claim):
                    changes.append(event)
                elif event is not None and not _logged_quietly(claim):
                    failures.append(event)
            elif claim.tool == ToolName.QUERY_MYSQL and reads_like_change_record(claim.columns.values()):
                stamps = [event for text in claim.cells.values() if (event := _event(text, claim)) is not None]
                if stamps:
                    records.append(_in_order(stamps))
            elif claim.tool == ToolName.QUERY_METRICS and len(claim.points) >= 2:
                # A shift is placed where its new level began (the point after the baseline, when the claim
                # cites one before its extreme), else at its extreme.
                points = claim.ordered_points()
                event = _event((points[1] if len(points) > 2 else points[-1]).get("ts", ""), claim)
                if event is not None:
                    metrics.append(event)
        onset = _onset(_in_order(failures), supported)
        # A change record carries several times (rotated, applied, its old secret discarded): it is placed at
        # its last one before the onset, where the change reached the failure, else at its last one.
        for stamps in records:
            before = [stamp for stamp in stamps if onset is not None and stamp.at <= onset.at]
            changes.append(before[-1] if before else stamps[-1])
        return cls(_in_order(changes), _in_order(failures), _in_order(metrics), supported)

    @property
    def first_failure(self) -> Event | None:
        """The earliest failure the verifier found supported, else the earliest failure: a line the question
        drew in from another service (a warning of a front end it names), verified only as indirect support,
        is a symptom of the time, not where the failure began."""
        return _onset(self.failures, self.supported)

    @property
    def cause(self) -> list[Event]:
        """The change stamped closest before the first failure (without one, the first metric shift; without
        either, any change), at most ``LOOKBACK`` before it, with the other verified changes of the
        ``SAME_CHANGE`` before it: one change is often both recorded in a change table and announced in a log,
        and each source names a different part of it. A change made longer before is history, not "a change
        shortly before"."""
        first = self.first_failure or (self.metrics[0] if self.metrics else None)
        before = [event for event in self.changes if first is None or first.at - LOOKBACK <= event.at <= first.at]
        if not before:
            return []
        return [event for event in before if before[-1].at - event.at <= SAME_CHANGE]

    def origin_host(self) -> str | None:
        """The one host every verified failure line of the first failing service came from, if there is one."""
        first = self.first_failure
        if first is None:
            return None
        service = _service(first.claim)
        own = [event.claim for event in self.failures if _service(event.claim) == service]
        hosts = {host for claim in own for host in claim.hosts}
        return hosts.pop() if len(hosts) == 1 and all(claim.hosts for claim in own) else None


def _onset(failures: list[Event], supported: frozenset[str]) -> Event | None:
    """The first of ``failures`` (in time order) the verifier found supported, else the first of them."""
    chosen = [event for event in failures if event.claim.claim_id in supported] or failures
    return chosen[0] if chosen else None


def _event(text: str, claim: ClaimEvidence) -> Event | None:
    moment = parse_ts(text)
    return Event(moment, text, claim) if moment else None


def _in_order(events: list[Event]) -> list[Event]:
    return sorted(events, key=lambda event: (event.at, event.claim.claim_id))


def _announces_change(claim: ClaimEvidence) -> bool:
    """A log line announcing a change and naming no fault: "feature flag enabled", not "restart failed"."""
    return any(announces_change(message) and fault_score(message) == 0 for message in claim.messages)


def _logged_quietly(claim: ClaimEvidence) -> bool:
    """A record its service logged at a level that reports no problem (``INFO``): whatever its words (a
    setting named ``connect-timeout-ms``), it is no failure, and never "the first errors"."""
    return bool(claim.levels) and all(level.upper() in QUIET_LEVELS for level in claim.levels)


def _service(claim: ClaimEvidence) -> str:
    return claim.services[0] if claim.services else ""


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
    story = Story.of(claims, frozenset(claim_id for claim_id, found in support.items() if found == "supported"))
    sections = [_root_cause(story, claims, verdict, language)]
    timeline = _timeline(story, language)
    if timeline:
        sections.append(timeline)
    sections.append(_evidence(claims, facts, support, language))
    if actions:
        sections.append(text["actions_heading"] + "\n" + "\n".join(f"- {link_text(action)}" for action in actions))
    if verdict != Verdict.PASS:
        sections.append(_uncertainty(gaps, missing, text))
    answer = "\n\n".join(sections)
    return {"answer_markdown": clip(answer, MAX_ANSWER_CHARS), "cited_claim_ids": [claim.claim_id for claim in claims]}


def _root_cause(story: Story, claims: list[ClaimEvidence], verdict: str, language: Language) -> str:
    text = TEXTS[language]
    heading = text["root_heading"] + ("" if verdict == Verdict.PASS else text["low_confidence"])
    lines = []
    first, cause = story.first_failure, story.cause
    if first is not None:
        host = story.origin_host()
        subject = text["subject"].format(service=_service(first.claim)) + (
            text["on_host"].format(host=host) if host else ""
        )
        if cause:
            lines.append(_cause_line(cause, language))
            lines.append(text["began_in"].format(subject=subject, claim_id=first.claim.claim_id))
        else:
            lines.append(text["cause_in"].format(subject=subject, claim_id=first.claim.claim_id))
            lines.append(text["no_change"])
    elif cause:
        lines.append(_cause_line(cause, language))
    passage = next((claim for claim in claims if claim.tool == ToolName.LOOKUP_KNOWLEDGE and claim.passages), None)
    if passage:
        title = passage.titles[0] if passage.titles else text["a_runbook"]
        lines.append(
            text["passage"].format(
                title=in_quotation_marks(title, language),
                passage=in_quotation_marks(_clip_markdown(passage.passages[0], MAX_PASSAGE_CHARS), language),
                claim_id=passage.claim_id,
            )
        )
    if not lines:
        metric = next((claim for claim in claims if claim.tool == ToolName.QUERY_METRICS), None)
        lines.append(text["metric_only"].format(claim_id=metric.claim_id) if metric else text["records"])
    lines = [as_text(line, quoted_only=True) for line in lines]  # each written whole, escaped once (quoting)
    return (
        heading
        + "\n"
        + text["sentence_joiner"].join(lines[:2])
        + ("\n\n" + "\n\n".join(lines[2:]) if lines[2:] else "")
    )


def _cause_line(cause: list[Event], language: Language) -> str:
    text = TEXTS[language]
    changes = text["change_joiner"].join(f"{_change(event, language)} [{event.claim.claim_id}]" for event in cause)
    return text["change_cause"].format(changes=changes)


def _change(event: Event, language: Language, *, timed: bool = True) -> str:
    """What changed: the announcing line (with its time unless ``timed`` is off), or the change record's
    descriptive cells and the one stamp that places it (``not_after=…``, ``changed_at=…``)."""
    claim, text = event.claim, TEXTS[language]
    if claim.tool == ToolName.QUERY_LOGS:
        message = in_quotation_marks(clip(claim.messages[0], MAX_QUOTE_CHARS), language)
        line = text["logged_change"].format(service=_service(claim), message=message)
        return line + (text["recorded_at"].format(at=clock(event.at)) if timed else "")
    pairs = dict(zip(sorted(claim.cells), claim.cell_pairs(), strict=True))
    described = [pair for index, pair in pairs.items() if parse_ts(claim.cells[index]) is None][:MAX_CELLS_SHOWN]
    stamp = next(pair for index, pair in pairs.items() if claim.cells[index] == event.at_text)
    return text["recorded_change"].format(cells=", ".join(f"`{pair}`" for pair in [*described, stamp]))


def _timeline(story: Story, language: Language) -> str:
    """The change, each service's first errors and each metric shift, oldest first, one line a claim."""
    text = TEXTS[language]
    lines: list[tuple[datetime, str]] = []
    for event in story.cause:
        change = _change(event, language, timed=False)
        line = text["timeline_change"].format(at=clock(event.at), change=change, claim_id=event.claim.claim_id)
        lines.append((event.at, line))
    seen: set[str] = set()
    for event in story.failures:
        service = _service(event.claim)
        if service in seen:
            continue
        seen.add(service)
        message = in_quotation_marks(clip(event.claim.messages[0], MAX_QUOTE_CHARS), language)
        # A component that fails without an error of its own (a kernel's "table full") warns: said as it logged it.
        warned = bool(event.claim.levels) and all(level.upper().startswith("WARN") for level in event.claim.levels)
        line = text["timeline_warning" if warned else "timeline_failure"].format(
            at=clock(event.at), service=service, message=message, claim_id=event.claim.claim_id
        )
        lines.append((event.at, line))
    for event in story.metrics:
        claim = event.claim
        low, high = (point.get("value", "") for point in (claim.ordered_points()[0], claim.ordered_points()[-1]))
        rising = _number(high) >= _number(low)
        direction = text["rose"] if rising else text["fell"]
        line = text["timeline_metric"].format(
            at=clock(event.at),
            metric=claim.metric,
            service=_service(claim),
            direction=direction,
            low=low,
            to=_ZH_TO[rising],
            high=high,
            claim_id=claim.claim_id,
        )
        lines.append((event.at, line))
    if len(lines) < 2:
        return ""
    ordered = [as_text(line, quoted_only=True) for _, line in sorted(lines, key=lambda item: item[0])][:MAX_TIMELINE]
    return text["timeline_heading"] + "\n" + "\n".join(ordered)


def _clip_markdown(text: str, limit: int) -> str:
    """``clip`` that never ends inside a code span: a runbook's `` `--topic <topic> --offset` `` cut in the middle
    leaves its opening backtick unpaired, and what followed it (``<topic>``) is no longer code. A passage that
    opens with a code span longer than ``limit`` is cut as ``clip`` cuts it (its backtick then shows)."""
    cut = clip(text, limit)
    if cut == text:
        return cut
    spans = [match.span() for match in CODE_SPAN.finditer(cut)]
    opened = [run.start() for run in _BACKTICKS.finditer(cut) if not within(spans, run.start())]
    return (cut[: opened[-1]].rstrip() if opened else cut) or cut


def _number(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        return 0.0


def _evidence(claims: list[ClaimEvidence], facts: dict[str, str], support: dict[str, str], language: Language) -> str:
    lines = []
    for claim in claims:
        fact = as_text(facts.get(claim.claim_id) or "; ".join(claim.texts), quoted_only=True)
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
