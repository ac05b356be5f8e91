"""Verifier: the model judges only verified evidence; its verdict is capped by the gatekeeper's ceiling."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis.contracts import InvalidOutput, VerifierOutput, parse_output
from diagnosis.graph.state import DiagnosisState, read_count, read_enum, read_mapping
from diagnosis.graph.status import Verdict, VerifierStatus, min_verdict
from diagnosis.nodes.agent import StepMeter, failed_attempt
from diagnosis.nodes.context import NodeContext
from diagnosis.nodes.messages import verifier_messages
from diagnosis.providers.base import ProviderError

NODE = "verifier"


def verify(context: NodeContext, state: DiagnosisState, config: RunnableConfig) -> dict[str, Any]:
    attempt = read_count(state, "verifier_retry_count") + 1
    context.progress.status(NODE, "started", attempt=attempt)
    meter = StepMeter(context, NODE, attempt)
    ceiling = read_enum(state, "verifier_verdict_ceiling", Verdict) or Verdict.LOW_CONFID
    claims = list(read_mapping(state, "verified_executor_output").get("claims") or [])
    messages = verifier_messages(question=context.question, verdict_ceiling=ceiling.value, verified_claims=claims)
    try:
        reply = meter.complete(context.models.verifier, messages)
        output = parse_output(reply.content, VerifierOutput)
        known = {claim["claim_id"] for claim in claims}
        unknown = sorted({fact["claim_id"] for fact in output["facts_checked"]} - known)
        if unknown:
            # Counted, not named: the ids are the model's text, and this lands in the public step summary.
            raise InvalidOutput(f"facts about {len(unknown)} claim(s) that were not verified")
    except (ProviderError, InvalidOutput) as error:
        return failed_attempt(meter, "verifier_status", error)
    model_verdict = Verdict(output["verdict"])
    effective = min_verdict(model_verdict, ceiling)
    meter.record(
        VerifierStatus.COMPLETED,
        f"verdict {model_verdict} (effective {effective}), {len(output['facts_checked'])} facts",
    )
    return {
        "verifier_status": VerifierStatus.COMPLETED,
        "verifier_output": output,
        "verifier_model_verdict": model_verdict,
        "effective_verdict": effective,
    }
