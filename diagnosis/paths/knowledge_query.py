"""KNOWLEDGE_QUERY: a how-to question answered from the knowledge base with cited excerpts.

No model is needed: the top chunks of ``lookup_knowledge`` are quoted as they are. The quotes still go
through the gatekeeper's binding check and the answer through the same release policy as a composer
draft, so this path releases only what provably sits in the run's own tool result, like every other path.
Its fixed texts are written in the question's language (``diagnosis.language``); the quotes never are.
"""

from __future__ import annotations

from typing import Any

from diagnosis.contracts import EXECUTOR_SCHEMA_NAME
from diagnosis.failures import FailureCode
from diagnosis.language import Language, language_of
from diagnosis.models import DiagnosisRun
from diagnosis.nodes.gatekeeper import EXCERPT_MIN_CHARS, check_output, summary
from diagnosis.nodes.release_review import BLOCKED, RELEASED, known_names
from diagnosis.paths.errors import RunFailure
from diagnosis.paths.options import ExecutionOptions
from diagnosis.progress import RunProgress
from diagnosis.release.draft import visible
from diagnosis.release.policy import POLICY_VERSION, check_draft
from diagnosis.release.quoting import as_text, in_quotation_marks
from diagnosis.release.salient import occurs_whole
from diagnosis.services import RunResult
from tools.catalog import environment
from tools.harness import ToolHarness
from tools.models import InvocationStatus
from tools.names import ToolName
from tools.store import load_verified_payload

NODE = "knowledge_query"
NO_KNOWLEDGE = "No runbook or document in the knowledge base answers this question. Try other words, or upload the relevant runbook."
NO_KNOWLEDGE_ZH = "知识库中没有能回答这个问题的运行手册或文档。请换一种说法，或上传相关的运行手册。"
TEXTS: dict[Language, dict[str, str]] = {
    "en": {
        "none": NO_KNOWLEDGE,
        "none_conclusion": "No knowledge found.",
        "withheld": "The knowledge base holds passages that match this question, but they could not be shown as "
        "verified text. Search for them on the knowledge page.",
        "withheld_conclusion": "Matching knowledge withheld.",
        "see": "See: {title}",
        "intro": "Here is what the knowledge base says:",
    },
    "zh": {
        "none": NO_KNOWLEDGE_ZH,
        "none_conclusion": "未找到相关知识。",
        "withheld": "知识库中有与这个问题相关的段落，但无法作为已核实的文本显示。请在知识库页面中搜索查看。",
        "withheld_conclusion": "相关知识未能显示。",
        "see": "参见：{title}",
        "intro": "知识库中的相关内容如下：",
    },
}
TOP_K = 3
EXCERPT_CHARS = 400
TOOL = ToolName.LOOKUP_KNOWLEDGE.value


def _excerpt(text: str) -> str:
    """One line of at most ``EXCERPT_CHARS`` (the gatekeeper compares whitespace-normalised text anyway), cut
    at a space when one leaves half of that or more, else where the gatekeeper finds no number cut (Chinese
    runs on without spaces: ``…步骤1|234`` would be refused as a number cut short)."""
    flat = " ".join(text.split())
    if len(flat) <= EXCERPT_CHARS:
        return flat
    space = flat.rfind(" ", 0, EXCERPT_CHARS + 1)
    if space >= EXCERPT_CHARS // 2:
        return flat[:space]
    cut = EXCERPT_CHARS
    # Nor does it end on a number's decimal point or separator (``3.`` of ``3.14``, ``1,`` of ``1,234``).
    while cut > EXCERPT_MIN_CHARS and (
        not occurs_whole(flat[:cut], flat) or (flat[cut - 1] in ".," and flat[cut - 2].isdigit())
    ):
        cut -= 1
    return flat[:cut]


def execute(run: DiagnosisRun, progress: RunProgress, options: ExecutionOptions) -> RunResult:
    progress.status(NODE, "started")
    text = TEXTS[language_of(run.query)]
    result = ToolHarness(run.pk, on_call=progress.tool, empty=True).call(TOOL, {"query": run.query, "top_k": TOP_K})
    if result.status != InvocationStatus.READY:
        # No answer can say the base has nothing when it could not be searched (an embedder down, a timeout).
        raise RunFailure(FailureCode.KNOWLEDGE_SEARCH_FAILED, detail=result.error_code)
    lookup = load_verified_payload(run.pk, result.invocation_id)
    chunks = (lookup.payload or {}).get("chunks", []) if lookup.ok else []
    claims = [
        {
            "claim_id": f"k{index + 1}",
            "statement": chunk["title"],
            "bindings": [
                {
                    "source_invocation_id": str(result.invocation_id),
                    "tool_name": TOOL,
                    "raw_path": f"$.chunks[{index}].text",
                    "evidence_excerpt": _excerpt(chunk["text"]),
                }
            ],
        }
        for index, chunk in enumerate(chunks)
        # A section of a word or two ("DB") is too short to quote as evidence: it is no answer either.
        if len(_excerpt(chunk["text"])) >= EXCERPT_MIN_CHARS
    ]
    checked = check_output(
        {"schema": EXECUTOR_SCHEMA_NAME, "claims": claims, "no_evidence_reason": None, "completed_queries": []},
        lambda invocation_id: load_verified_payload(run.pk, invocation_id),
    )
    progress.evidence(
        node=NODE, status=checked.status, claims=checked.claim_outcomes(), passed=len(checked.verified_claim_ids)
    )
    verified = [claim for claim in claims if claim["claim_id"] in checked.verified_claim_ids]
    progress.status(NODE, "completed", excerpts=len(verified))
    if not verified:
        return RunResult(
            final_answer=text["none"],
            conclusion=text["none_conclusion"],
            self_evaluation={"path": "knowledge_query", "released_claim_ids": []},
        )
    answer = _quoted_answer(verified, text["intro"], language_of(run.query))
    policy = check_draft(
        answer,
        [claim["claim_id"] for claim in verified],
        [_allowed(claim) for claim in verified],
        known_names=known_names(environment()),
    )
    decision, rules = RELEASED if policy.released else BLOCKED, sorted(policy.rule_counts())
    progress.release(
        node=NODE, attempt=1, decision=decision, rule=policy.rule, rules=rules, policy_version=POLICY_VERSION
    )
    # The decision as the graph's composer records it (``release_summary``): the admin and the Trace API read
    # both paths' alike.
    release = {
        "policy_version": POLICY_VERSION,
        "decisions": [{"attempt": 1, "decision": decision, "rule": policy.rule, "rules": rules}],
    }
    if not policy.released:
        # The answer was withheld: a safe fallback, as a blocked draft of the graph is (FALLBACK, degraded), which
        # does not say the base has nothing: it has, and the reader may look for it there.
        return RunResult(
            final_answer=text["withheld"],
            conclusion=text["withheld_conclusion"],
            degraded=True,
            self_evaluation={"path": "knowledge_query", "released_claim_ids": [], "release": release},
        )
    evidence = [
        {
            "claim_id": claim["claim_id"],
            "fact": claim["statement"],
            "tool_name": TOOL,
            "raw_path": claim["bindings"][0]["raw_path"],
            "excerpt": claim["bindings"][0]["evidence_excerpt"],
        }
        for claim in verified
    ]
    released = [claim["claim_id"] for claim in verified]
    return RunResult(
        # What the release policy read, as the composer's path releases it: a zero-width space in a quoted
        # runbook ("\\<U+200B>[notes](https://...)") escapes a bracket for the policy, not for a renderer.
        final_answer=visible(answer),
        conclusion=text["see"].format(title=verified[0]["statement"]),
        self_evaluation={
            "path": "knowledge_query",
            "released_claim_ids": released,
            "gatekeeper": summary(checked.to_dict()),
            "release": release,
        },
        evidence=evidence,
    )


def _quoted_answer(verified: list[dict[str, Any]], intro: str, language: Language) -> str:
    """Each verified chunk as its title and a block quote; the marker closes the quote it vouches for. A
    title or passage holding markup (a runbook's link, a ``<topic>``) is shown as text: in quotation marks,
    its markup escaped there, where the release policy accepts an escape (``release.quoting``)."""
    lines = [intro, ""]
    for claim in verified:
        title, excerpt = claim["statement"], claim["bindings"][0]["evidence_excerpt"]
        lines += [
            as_text(f"**{_as_shown(title, language)}** [{claim['claim_id']}]", quoted_only=True),
            "",
            as_text(f"> {_as_shown(excerpt, language)} [{claim['claim_id']}]", quoted_only=True),
            "",
        ]
    return "\n".join(lines).strip()


def _as_shown(text: str, language: Language) -> str:
    """``text`` as it is, or in quotation marks when it holds what would open markup."""
    return in_quotation_marks(text, language) if as_text(text) != visible(text) else text


def _allowed(claim: dict[str, Any]) -> dict[str, Any]:
    """A verified quote as release material: the title is its fact, the excerpt its verified text."""
    return {
        "claim_id": claim["claim_id"],
        "fact": claim["statement"],
        "evidence": [{"matched_text": binding["evidence_excerpt"]} for binding in claim["bindings"]],
    }
