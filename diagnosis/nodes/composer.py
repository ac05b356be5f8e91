"""Composer: writes the answer from allowed material; released only if it cites allowed claims alone."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis.graph.state import DiagnosisState, read_count
from diagnosis.graph.status import ComposerStatus
from diagnosis.nodes.agent import StepMeter, failed_attempt
from diagnosis.nodes.allowed import allowed_claims, verifier_lists
from diagnosis.nodes.context import NodeContext
from diagnosis.nodes.contracts import COMPOSER_OUTPUT, InvalidOutput, parse_output
from diagnosis.nodes.messages import composer_messages
from diagnosis.providers.base import ProviderError

NODE = "composer"


def release_check(output: dict[str, Any], allowed: list[dict[str, Any]]) -> None:
    """Raise ``InvalidOutput`` unless every cited claim id is an allowed claim."""
    allowed_ids = {claim["claim_id"] for claim in allowed}
    foreign = sorted(set(output["cited_claim_ids"]) - allowed_ids)
    if foreign:
        raise InvalidOutput(f"cites claims that are not allowed: {', '.join(foreign)}")


def compose(context: NodeContext, state: DiagnosisState, config: RunnableConfig) -> dict[str, Any]:
    attempt = read_count(state, "composer_retry_count") + 1
    context.progress.status(NODE, "started", f"attempt {attempt}")
    meter = StepMeter(context, NODE, attempt)
    allowed = allowed_claims(state)
    messages = composer_messages(
        question=context.question,
        effective_verdict=str(state.get("effective_verdict")),
        allowed_claims=allowed,
        **verifier_lists(state),
    )
    try:
        reply = meter.complete(context.models.composer, messages)
        output = parse_output(reply.content, COMPOSER_OUTPUT)
        release_check(output, allowed)
    except (ProviderError, InvalidOutput) as error:
        return failed_attempt(meter, "composer_status", error)
    meter.record(ComposerStatus.COMPLETED, f"cites {', '.join(output['cited_claim_ids']) or 'no claim'}")
    return {"composer_status": ComposerStatus.COMPLETED, "composer_output": output, "final_answer": output["answer_markdown"]}
