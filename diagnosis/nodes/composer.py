"""Composer: writes the answer from allowed material; it ends the run only if the release guard lets it.

The draft is parsed against the contract, then reviewed (``release_review``): release policy and
SemanticGuard. A blocked draft is INVALID_OUTPUT with the findings kept for the one retry; nothing of it
enters the graph state, so no later step can publish it.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis.contracts import ComposerOutput, InvalidOutput, parse_output
from diagnosis.graph.state import DiagnosisState, read_count
from diagnosis.graph.status import ComposerStatus
from diagnosis.nodes.agent import StepMeter, failed_attempt
from diagnosis.nodes.allowed import allowed_claims, verifier_lists
from diagnosis.nodes.context import NodeContext
from diagnosis.nodes.messages import composer_messages
from diagnosis.nodes.release_review import review_draft
from diagnosis.providers.base import ProviderError
from diagnosis.release.draft import visible

NODE = "composer"


def compose(context: NodeContext, state: DiagnosisState, config: RunnableConfig) -> dict[str, Any]:
    attempt = read_count(state, "composer_retry_count") + 1
    context.progress.status(NODE, "started", attempt=attempt)
    meter = StepMeter(context, NODE, attempt)
    allowed = allowed_claims(state)
    lists = verifier_lists(state)
    messages = composer_messages(
        question=context.question,
        effective_verdict=str(state.get("effective_verdict")),
        allowed_claims=allowed,
        release_findings=context.release.last_findings if attempt > 1 else [],
        **lists,
    )
    try:
        reply = meter.complete(context.models.composer, messages)
        output = parse_output(reply.content, ComposerOutput)
    except (ProviderError, InvalidOutput) as error:
        context.release.last_findings = []
        return failed_attempt(meter, "composer_status", error)
    review = review_draft(
        context,
        node=NODE,
        attempt=attempt,
        output=output,
        allowed=allowed,
        guidance=[item for items in lists.values() for item in items],
    )
    if not review.released:
        meter.record(ComposerStatus.INVALID_OUTPUT, review.summary, findings=review.findings)
        return {"composer_status": ComposerStatus.INVALID_OUTPUT, "failure_reason": review.reason_code}
    meter.record(ComposerStatus.COMPLETED, f"cites {', '.join(output['cited_claim_ids']) or 'no claim'}")
    return {
        "composer_status": ComposerStatus.COMPLETED,
        "composer_output": output,
        # What the release review read: invisible characters (a zero-width space turning an escaped bracket
        # back into a link) are not in it.
        "final_answer": visible(output["answer_markdown"]),
    }
