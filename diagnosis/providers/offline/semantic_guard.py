"""The offline SemanticGuard: a deterministic reviewer of a draft against the claims it may rely on.

It reads only the guard's task (the draft and the allowed claims), like a hosted model would, and judges
each sentence, list item and heading by the words it uses - never by knowing what the answer should be:

- a *cited* sentence may use the words of the facts and excerpts it cites plus a fixed vocabulary of
  report language ("verified", "earliest", "root cause", "证据"); any other word is something the cited
  claims do not say ("the database host caught fire [c1]");
- it may not negate a word its evidence does not negate ("is not exhausted", "did not time out" -
  compared word by word, so another negation in the evidence does not excuse it), drop a negation its
  evidence states ("connections are available" where the log says "not available"), or assert a
  cause-and-effect link ("because", "led to", "导致") when no cited text states one;
- an *uncited* sentence may only be report language, a word-for-word copy of an allowed claim's text (a
  runbook's recommended action), or name a single thing the evidence mentions ("check the logs of
  rabbitmq"); two or more evidence words without a marker are a finding stated without a citation;
- a quoted string must be a copy of the cited evidence (or, uncited, of any allowed claim).

Contractions are written out first ("isn't" is "is not").

Identifiers, numbers and times are the release policy's job (exact token grounding) and are left out of
the word comparison here. The vocabulary names no system, service or fault: only how reports talk.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, lru_cache
from typing import Any

from diagnosis.graph.status import SemanticVerdict
from diagnosis.release.causes import CAUSAL, ROOT_CAUSE, states_a_cause, without_root_cause
from diagnosis.release.draft import protected_spans, read_draft, shown_inside, strip_markers
from diagnosis.release.salient import NEGATION, Evidence
from tools.knowledge.tokenize import tokenize

MAX_UNSUPPORTED = 40
# Events an uncited sentence may not deny, and the words that make a denial one about the evidence.
_EVENT_TERMS = frozenset(
    tokenize(
        "deploy deployment deployed configuration config change changed error errors failure incident outage "
        "部署 配置 变更 错误 故障 失败 异常"
    )
)
_EVIDENCE_TERMS = frozenset(
    tokenize(
        "verified evidence log logs record records runbook runbooks source sources signal "
        "已验证 证据 日志 记录 运行手册 来源 信号"
    )
)
# What a heading or an uncited sentence may say besides "root cause" and still only point at the cited
# sentences around it ("This is the likely root cause.", "## 可能的根本原因（置信度较低）").
_POINTER_WORDS = frozenset(
    tokenize(
        "this likely probably possible possibly probable low high confidence and evidence point points verified "
        "supported diagnosis conclusion summary above below 这 即 可能 置信度 较低 这是 与 和 证据 已验证 诊断 结论 总结 以上"
    )
)
# What makes a negation one about what is known rather than about what happened ("could not confirm a
# configuration change", "不确定故障是否与部署相关", "The failure is not yet fully explained").
_EPISTEMIC_TERMS = frozenset(
    tokenize(
        "confirm confirmed establish established explain explained explains verify verifier verification certain "
        "clear unclear 确认 确定 不确定 验证 明确"
    )
)
# "X is not the cause", "X 不是原因", "unrelated to X", "ruled out X", "与 X 无关", "排除 X": the word names what a
# cited text rules out.
_NOT_THE_CAUSE = re.compile(
    r"([\w.@/-]+)\s+(?:is|was|are|were)\s+not\s+(?:the\s+|a\s+)?(?:root\s+)?causes?\b"
    r"|([\w.@/-]+)\s*(?:不是|并非)(?:根本)?原因"
    r"|\bunrelated\s+to\s+(?:the\s+)?([\w.@/-]+)|\bruled\s+out\s+(?:the\s+)?([\w.@/-]+)"
    r"|(?:与|和|跟)\s*([\w.@/-]+)\s*无关|排除(?:了)?\s*([\w.@/-]+)",
    re.IGNORECASE,
)
MAX_UNCITED_EVIDENCE_WORDS = 1
_CAUSE_TERMS = frozenset(tokenize("cause causes root 原因 根本原因 根本 根因"))
# The label an answer's evidence list ends a claim with ("(supported)", "（间接支持）"): words about the claim,
# not the claim's; a cited line that says "operation not supported" does not make it a dropped negation.
_LABEL = re.compile(r"\s*[(（](?:supported|indirect support|支持|间接支持)[)）]\s*$", re.IGNORECASE)
# What "unrelated to a …" or "与此无关" names is no subject a cause sentence could be checked against.
_NO_SUBJECT = frozenset({"a", "an", "the", "this", "that", "it", "its", "these", "those", "them"})

REPORT_VOCABULARY = """
likely root cause answer diagnosis conclusion conclude established establish confirmed confirm confidence low
high uncertain uncertainty unclear possible possibly probably clearest clear strongest signal evidence verified
verify verifier verification supported support indirect indirectly claim fact finding source independent
independently record business data log logged entry line message metric read reading value series point shift
change onset start begin began first earliest latest last before after next later time window incident failure
fail error warn warning symptom problem issue affected where here below above following listed list shown show
showed seen observed report says said state stated describes described explains mentions knowledge base runbook
postmortem document passage section title quoted quote verbatim excerpt tool query result trace run step action
recommended recommendation check investigate missing information gap material summary ones
several both other same service system component deploy configuration near around during within between fully
only still yet more less nothing none no not could would might may cannot made shortly then happened happen
order rose fell
可能 根本原因 根本 原因 结论 诊断 回答 确认 确定 置信度 较低 不确定 证据 已验证 验证 支持 间接 事实 发现 来源 独立
记录 业务 数据 日志 指标 读数 数值 序列 变化 开始 起始 最早 最晚 首先 之前 之后 然后 时间 窗口 事件 故障 失败 错误
告警 警告 症状 问题 影响 如下 以下 下面 上面 显示 表明 观察 报告 描述 说明 提到 知识库 运行手册 手册 复盘 文档 段落
引用 摘录 工具 查询 结果 追踪 步骤 操作 建议 下一步 检查 排查 缺失 信息 缺口 服务 系统 组件 部署 配置 变更 附近
期间 之间 出现 相关 其中 这里 无法 尚未 没有 一 中 这一 信号 明确 指向 完全 不确定性 确定性 定性
随后 首批 顺序 时间顺序 升至 降至 发生 能 并
"""

# Directions a cited sentence may not turn round: "fell to 44 [c2]" where the claim says it rose. Only the
# unambiguous words ("down" and "dropped" also say an outage and a lost connection).
_UP = re.compile(
    r"\b(?:rose|rise[sn]?|rising|increas(?:e|es|ed|ing)|grew|grow(?:s|n|ing)?|climb(?:s|ed|ing)?|higher)\b"
    r"|上升|升至|升高|增加|增长|飙升|暴涨",
    re.IGNORECASE,
)
_DOWN = re.compile(
    r"\b(?:fell|fall(?:s|en|ing)?|decreas(?:e|es|ed|ing)|declin(?:e|es|ed|ing)|shr[ua]nk|shrink(?:s|ing)?|lower)\b"
    r"|下降|降至|降低|减少|回落",
    re.IGNORECASE,
)
_IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:(?:[-_./@]|::)[A-Za-z0-9]+)+|\b[A-Za-z]*[a-z][A-Z][A-Za-z]*\b")
_NEGATED_SPAN = re.compile(r"^[\s,]*((?:[\w'-]+\s*){1,3}|[^\sA-Za-z0-9]{1,4})")


def review(task: dict[str, Any]) -> dict[str, Any]:
    """The guard's reply for one task (the contract's semantic guard output)."""
    claims = {
        str(item["claim_id"]): [str(item.get("fact") or ""), *(str(text) for text in item.get("excerpts") or [])]
        for item in task.get("allowed_claims") or []
        if isinstance(item, dict) and item.get("claim_id")
    }
    everything = [text for texts in claims.values() for text in texts]
    unsupported = []
    draft = read_draft(str(task.get("draft") or ""), claim_ids=claims)
    for unit in draft.units:
        cited = [text for marker in unit.markers for text in claims.get(marker, [])]
        # A heading names a section; a sentence of a paragraph that cites claims may refer to them ("This is
        # the likely root cause."): neither states a root cause of its own, unless it says what it is.
        alone = unit.kind != "heading" and not draft.block_markers(unit.block)
        reason = _judge(_LABEL.sub("", strip_markers(unit.text, claims)), cited, everything, alone=alone)
        if reason:
            unsupported.append({"sentence": unit.text[:2000], "reason": reason})
    unsupported = unsupported[:MAX_UNSUPPORTED]
    verdict = SemanticVerdict.BLOCK if unsupported else SemanticVerdict.RELEASE
    return {"verdict": verdict.value, "unsupported": unsupported}


def _judge(body: str, cited: list[str], everything: list[str], *, alone: bool = False) -> str:
    """Why ``body`` is unsupported, or '' when it is fine; ``alone``: in a paragraph citing no claim."""
    quotes = [shown_inside(body[low:high]) for low, high in protected_spans(body)]
    prose = _prose(body)
    source = Evidence(cited or everything)
    copied = [quote for quote in quotes if quote.strip() and not source.quotes(quote)]
    if copied:
        return f"quotes text the {'cited' if cited else 'allowed'} claims do not contain: {copied[0][:80]}"
    if cited:
        return _cited_reason(prose, cited, body)
    allowed = Evidence(everything)
    if allowed.copies_or_lists(body):
        return ""
    # "No root cause ..." names none. Alone it names one; beside cited sentences, or as a heading, only if it
    # says more than a pointer or a title ("This is the likely root cause.", "## Likely root cause"):
    # "## 根本原因：部署".
    rest = without_root_cause(_expand(body))
    pointer = not (_terms(rest) - _POINTER_WORDS or _IDENTIFIER.search(rest) or re.search(r"\d", rest))
    if ROOT_CAUSE.search(prose) and not NEGATION.search(prose) and (alone or not pointer):
        return "names a root cause without citing a claim"
    if CAUSAL.search(without_root_cause(prose)):
        return "states a cause-and-effect link without citing a claim"
    terms = _terms(prose)
    if NEGATION.search(prose) and terms & _EVENT_TERMS and not terms & (_EVIDENCE_TERMS | _EPISTEMIC_TERMS):
        # "There was no deploy", "期间没有部署或配置变更": what did not happen is a finding; what the evidence
        # does not show is report language ("No verified change before the onset explains it").
        return "states that something did not happen without citing a claim"
    words = terms - _vocabulary()
    foreign = words - _terms_of(everything)
    if foreign:
        return f"states something no allowed claim supports: {', '.join(sorted(foreign)[:5])}"
    if len(words) > MAX_UNCITED_EVIDENCE_WORDS:
        return f"states a finding without citing a claim: {', '.join(sorted(words)[:5])}"
    return ""


def _cited_reason(prose: str, cited: list[str], body: str) -> str:
    negated = _negated(prose)
    evidence_negated = {term for text in cited for term in _negated_evidence(text)}
    added = negated - evidence_negated
    if added:
        return f"adds a negation the cited evidence does not state: {', '.join(sorted(added))}"
    # Report words count too ("未出现错误日志" cited for "出现错误日志"), but for the words of a cause: whether
    # the cause a sentence names is the one a cited text rules out is asked below (``_ruled_out``).
    dropped = (evidence_negated - _CAUSE_TERMS) & _terms(prose) - negated
    if not dropped and not negated and states_a_cause(prose):
        # "fraud-check is the cause [c5]", "fraud-check 是根本原因 [c5]": naming as the cause what a cited text
        # says is not one (a sentence about another cause may cite that text too).
        dropped = {subject for subject in _ruled_out(cited) if _names(body.lower(), subject)}
    if dropped:
        return f"drops a negation the cited evidence states: {', '.join(sorted(dropped))}"
    if CAUSAL.search(without_root_cause(prose)) and not any(CAUSAL.search(text) for text in cited):
        return "claims a cause-and-effect link no cited fact states"
    for said, opposite in ((_UP, _DOWN), (_DOWN, _UP)):
        if (
            said.search(prose)
            and not any(said.search(text) for text in cited)
            and any(opposite.search(text) for text in cited)
        ):
            return "turns round the direction the cited evidence states"
    foreign = _terms(prose) - _terms_of(cited) - _vocabulary()
    if foreign:
        return f"says what the cited claims do not: {', '.join(sorted(foreign)[:5])}"
    return ""


def _ruled_out(cited: list[str]) -> set[str]:
    """What the cited texts say is not the cause (the word before "is not the cause"), lower-cased; never an
    article, a pronoun or a single character ("与此无关")."""
    found = (
        next(group for group in match.groups() if group).lower().rstrip("./-")  # a sentence's full stop
        for text in cited
        for match in _NOT_THE_CAUSE.finditer(_expand(text))
    )
    return {subject for subject in found if len(subject) > 1 and subject not in _NO_SUBJECT}


def _names(text: str, subject: str) -> bool:
    """Whether ``text`` names ``subject`` as a word of its own (not the "oss" of "loss"); in Chinese, which
    has no spaces, anywhere."""
    if not subject.isascii():
        return subject in text
    return re.search(rf"(?<![\w-]){re.escape(subject)}(?![\w-])", text) is not None


def _negated(text: str) -> set[str]:
    """What ``text`` negates: the first word after each negation (``not available`` gives ``available``)."""
    negated: set[str] = set()
    for match in NEGATION.finditer(text):
        span = _NEGATED_SPAN.match(text[match.end() :])
        words = [term for term in tokenize(span.group(1))] if span else []
        if words:
            negated.add(words[0])
    return negated


# Pure, and asked about the same cited texts for every sentence that cites them.
@lru_cache(maxsize=4096)
def _negated_evidence(text: str) -> frozenset[str]:
    """What an evidence text negates, its contractions written out."""
    return frozenset(_negated(_expand(text)))


def _expand(text: str) -> str:
    """Contractions written out, so "isn't available" reads as "is not available"."""
    text = re.sub(
        r"\b(can)'t\b|\b(won)'t\b", lambda m: "can not" if m.group(1) else "will not", text, flags=re.IGNORECASE
    )
    return re.sub(r"\b(\w+)n't\b", r"\1 not", text, flags=re.IGNORECASE)


def _prose(body: str) -> str:
    """``body`` without its quotes, code spans and identifiers: the words the sentence itself chose."""
    spans = protected_spans(body)
    for low, high in reversed(spans):
        body = body[:low] + " " + body[high:]
    return _IDENTIFIER.sub(" ", _expand(body))


def _terms(text: str) -> set[str]:
    """Words worth comparing: no numbers, no identifiers (the policy grounds those exactly)."""
    return {
        term for term in tokenize(text) if not any(char.isdigit() for char in term) and not re.search(r"[-_.:/]", term)
    }


def _terms_of(texts: Iterable[str]) -> set[str]:
    return {term for text in texts for term in _cached_terms(text)}


@lru_cache(maxsize=4096)
def _cached_terms(text: str) -> frozenset[str]:
    return frozenset(tokenize(text))


@cache
def _vocabulary() -> frozenset[str]:
    return frozenset(tokenize(REPORT_VOCABULARY))
