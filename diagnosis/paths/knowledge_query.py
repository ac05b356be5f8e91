"""KNOWLEDGE_QUERY: a how-to question answered from the knowledge base with cited excerpts.

No model is needed: the top chunks of ``lookup_knowledge`` are quoted as they are. The quotes still go
through the gatekeeper's binding check, so this path releases only what provably sits in the run's own
tool result, like every other path.
"""

from __future__ import annotations

from diagnosis.models import DiagnosisRun
from diagnosis.nodes.gatekeeper import check_output, summary
from diagnosis.paths.options import ExecutionOptions
from diagnosis.progress import RunProgress
from diagnosis.services import RunResult
from tools.harness import ToolHarness
from tools.models import InvocationStatus
from tools.store import load_verified_payload

TOP_K = 3
EXCERPT_CHARS = 400
TOOL = "lookup_knowledge"


def _excerpt(text: str) -> str:
    """One line, cut at a word boundary: the gatekeeper compares whitespace-normalised text anyway."""
    flat = " ".join(text.split())
    if len(flat) <= EXCERPT_CHARS:
        return flat
    return flat[:EXCERPT_CHARS].rsplit(" ", 1)[0]


def execute(run: DiagnosisRun, progress: RunProgress, options: ExecutionOptions) -> RunResult:
    progress.status("knowledge_query", "started")
    result = ToolHarness(run.pk, on_call=progress.tool).call(TOOL, {"query": run.query, "top_k": TOP_K})
    lookup = load_verified_payload(run.pk, result.invocation_id) if result.status == InvocationStatus.READY else None
    chunks = (lookup.payload or {}).get("chunks", []) if lookup and lookup.ok else []
    claims = [
        {
            "claim_id": f"k{index + 1}",
            "statement": chunk["title"],
            "bindings": [{"source_invocation_id": str(result.invocation_id), "tool_name": TOOL,
                          "raw_path": f"$.chunks[{index}].text", "evidence_excerpt": _excerpt(chunk["text"])}],
        }
        for index, chunk in enumerate(chunks)
    ]
    checked = check_output(
        {"schema": "executor_evidence_v2", "claims": claims, "no_evidence_reason": None, "completed_queries": []},
        lambda invocation_id: load_verified_payload(run.pk, invocation_id),
    )
    verified = [claim for claim in claims if claim["claim_id"] in checked.verified_claim_ids]
    progress.status("knowledge_query", "completed", f"{len(verified)} cited excerpts")
    if not verified:
        answer = "No runbook or document in the knowledge base answers this question. Try other words, or upload the relevant runbook."
        return RunResult(final_answer=answer, conclusion="No knowledge found.", self_evaluation={"path": "knowledge_query", "released_claim_ids": []})
    lines = ["Here is what the knowledge base says:", ""]
    evidence = []
    for claim in verified:
        binding = claim["bindings"][0]
        lines += [f"**{claim['statement']}** [{claim['claim_id']}]", "", f"> {binding['evidence_excerpt']}", ""]
        evidence.append({"claim_id": claim["claim_id"], "fact": claim["statement"], "tool_name": TOOL,
                         "raw_path": binding["raw_path"], "excerpt": binding["evidence_excerpt"]})
    released = [claim["claim_id"] for claim in verified]
    return RunResult(
        final_answer="\n".join(lines).strip(),
        conclusion=f"See: {verified[0]['statement']}",
        self_evaluation={"path": "knowledge_query", "released_claim_ids": released, "gatekeeper": summary(checked.to_dict())},
        evidence=evidence,
    )
