"""Fallback: the two deterministic safe answers of seed 000 §7; no model, nothing unverified.

- Pre-verification (planner, executor, gatekeeper or verifier could not produce trusted material): the
  verification status, what the tools did, the limits and where to look next. It never reads the executor's
  claims, so nothing the executor said can leak through it.
- Post-composer (the verifier allowed material but the composer failed twice): the allowed facts with their
  verified excerpts, missing information and recommended actions, laid out by a fixed template; guidance
  naming a salient token no allowed claim contains is left out.

Both templates are written in the question's language (``diagnosis.language``): Chinese for a Chinese
question, English otherwise. Facts, excerpts and the verifier's guidance are shown as they were verified,
as text: on one line, every character that opens inline markup escaped (``plain``). No release policy reads this answer,
and a log line or a model's fact must not become a heading, a link or emphasis on the page.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis.graph.state import DiagnosisState, read_text
from diagnosis.graph.status import TECHNICAL_FAILURES, ComposerStatus, VerifierStatus
from diagnosis.language import Language, language_of
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
STAGE_LIMITS_ZH = {
    "planner": "无法生成可用的排查计划",
    "executor": "证据收集没有产生有效的报告",
    "gatekeeper": "无法证明任何被引用的证据存在于本次运行的工具结果中",
    "verifier": "无法评判已验证的证据",
    "composer": "无法根据已验证的材料写出回答",
}
TEXTS: dict[Language, dict[str, str]] = {
    "en": {
        "no_tool": "- No tool was called.",
        "tool_row": "- `{tool}`: {count} call(s) {status}",
        "heading": "## No verified diagnosis",
        "unknown_limit": "the diagnosis could not complete",
        "intro": "I could not establish a verified root cause: {limit} (`{cause}`). "
        "Nothing unverified is reported, so this answer contains no findings.",
        "tools_heading": "### What the tools did",
        "next_heading": "### Next steps",
        "next_trace": "- Open this run's trace to see which nodes ran and which tool calls were made.",
        "next_manual": "- Check the affected service's error logs and key metrics around the incident time by hand, "
        "or ask again with the service name and the time the problem started.",
        "findings_heading": "## Verified findings",
        "findings_intro": "The answer could not be composed, so the verified material is listed as is.",
        "missing_info": "Missing information",
        "recommended_actions": "Recommended actions",
    },
    "zh": {
        "no_tool": "- 没有调用任何工具。",
        "tool_row": "- `{tool}`：{count} 次调用，状态 {status}",
        "heading": "## 没有已验证的诊断",
        "unknown_limit": "诊断未能完成",
        "intro": "我无法确定一个已验证的根本原因：{limit}（`{cause}`）。未经验证的内容一律不报告，因此本回答不包含任何结论。",
        "tools_heading": "### 工具执行情况",
        "next_heading": "### 下一步",
        "next_trace": "- 打开本次运行的追踪，查看运行了哪些节点、调用了哪些工具。",
        "next_manual": "- 手动检查受影响服务在故障时间前后的错误日志和关键指标，或补充服务名称和问题开始的时间后重新提问。",
        "findings_heading": "## 已验证的发现",
        "findings_intro": "回答未能生成，因此按原样列出已验证的材料。",
        "missing_info": "缺失的信息",
        "recommended_actions": "建议操作",
    },
}


# The characters that open inline markup (emphasis, code, links, images, autolinks and HTML, entities,
# strikethrough, table cells), each escaped with a backslash, which CommonMark then reads as the character;
# and what opens a block where the text starts (a list item's content may be a heading, a quote, a list).
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>!&~|])")
_BLOCK_START = re.compile(r"^([#>+=-]|\d+[.)])")


def plain(text: object) -> str:
    """``text`` as markdown that renders exactly as that text, on one line."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))
    return _BLOCK_START.sub(lambda start: start.group(1)[:-1] + "\\" + start.group(1)[-1], escaped)


def _tool_overview(context: NodeContext, text: dict[str, str]) -> list[str]:
    rows = ToolInvocation.objects.filter(run_id=context.run_id).values_list("tool_name", "status")
    counts = Counter(rows)
    if not counts:
        return [text["no_tool"]]
    return [
        text["tool_row"].format(tool=tool, count=count, status=status)
        for (tool, status), count in sorted(counts.items())
    ]


def pre_verification_answer(context: NodeContext, cause: str) -> str:
    language = language_of(context.question)
    text = TEXTS[language]
    stage = cause.split("_", 1)[0]
    limits = STAGE_LIMITS_ZH if language == "zh" else STAGE_LIMITS
    limit = limits.get(stage, text["unknown_limit"])
    return "\n".join(
        [
            text["heading"],
            "",
            text["intro"].format(limit=limit, cause=cause),
            "",
            text["tools_heading"],
            *_tool_overview(context, text),
            "",
            text["next_heading"],
            text["next_trace"],
            text["next_manual"],
        ]
    )


def post_composer_answer(context: NodeContext, state: DiagnosisState) -> str:
    text = TEXTS[language_of(context.question)]
    lines = [text["findings_heading"], "", text["findings_intro"], ""]
    allowed = allowed_claims(state)
    for claim in allowed:
        lines.append(f"- **[{plain(claim['claim_id'])}]** {plain(claim['fact'])} ({plain(claim['verification'])})")
        lines.extend(
            f"  > {plain(item['tool_name'])} {plain(item['raw_path'])}: {plain(item['matched_text'])}"
            for item in claim["evidence"]
        )
    lists = verifier_lists(state)
    for key in ("missing_info", "recommended_actions"):
        # The verifier's guidance cites nothing: an item naming a number, host or service that no allowed
        # claim contains is left out rather than shown unverified.
        items = grounded_guidance(lists[key], allowed, known_names(context.environment))
        if items:
            lines += ["", f"### {text[key]}", *(f"- {plain(item)}" for item in items)]
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
