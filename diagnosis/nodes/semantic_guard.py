"""SemanticGuard: a model reviews the whole draft in an isolated context (seed 003 §2-3).

Its context is only the draft and the allowed claims: no tools, no history, no question, no way to call
back into the diagnosis. It catches what token checks cannot - a flipped negation, a causal link no fact
states, the right words about the wrong subject. Whatever goes wrong with it (a provider error, output
outside its contract, RELEASE while listing unsupported sentences) counts as a block: fail closed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from diagnosis.contracts import InvalidOutput, SemanticGuardOutput, parse_output
from diagnosis.graph.status import SemanticVerdict, StageStatus
from diagnosis.nodes.agent import StepMeter
from diagnosis.nodes.context import NodeContext
from diagnosis.nodes.messages import prompt, semantic_guard_messages
from diagnosis.providers.base import ProviderError, Role

ROLE = Role.SEMANTIC_GUARD.value
RELEASE, BLOCK = SemanticVerdict.RELEASE, SemanticVerdict.BLOCK
FAILED = "FAILED"


@dataclass(frozen=True)
class GuardVerdict:
    verdict: str
    """RELEASE, BLOCK, or FAILED (no usable review: blocks like BLOCK)."""
    unsupported: list[dict[str, str]] = field(default_factory=list)
    failure: str = ""
    """Why a FAILED review failed (``model_timeout``, ``invalid_output``)."""


def guard_version() -> str:
    return prompt(ROLE)[1]


def guard_claims(allowed: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The allowed claims as the guard sees them: id, fact and the verified excerpts, nothing else."""
    return [
        {
            "claim_id": claim["claim_id"],
            "fact": claim["fact"],
            "excerpts": [item["matched_text"] for item in claim.get("evidence") or []],
        }
        for claim in allowed
    ]


def review(
    context: NodeContext, *, node: str, attempt: int, draft: str, allowed: Sequence[Mapping[str, Any]]
) -> GuardVerdict:
    """One review of ``draft``, recorded as its own step (role ``semantic_guard``) of the node's attempt."""
    meter = StepMeter(context, node, attempt, role=ROLE)
    try:
        reply = meter.complete(
            context.models.semantic_guard, semantic_guard_messages(draft=draft, allowed_claims=guard_claims(allowed))
        )
        output = parse_output(reply.content, SemanticGuardOutput)
        if output["verdict"] == RELEASE and output["unsupported"]:
            raise InvalidOutput("verdict RELEASE while listing unsupported sentences")
    except ProviderError as error:
        meter.record(error.kind.value, error.message)
        verdict = GuardVerdict(FAILED, failure=f"model_{error.code}")
    except InvalidOutput as error:
        meter.record(StageStatus.INVALID_OUTPUT, str(error))
        verdict = GuardVerdict(FAILED, failure="invalid_output")
    else:
        unsupported = output["unsupported"]
        meter.record(
            StageStatus.COMPLETED,
            f"{output['verdict']}: {len(unsupported)} unsupported sentence(s)",
            findings=unsupported,
        )
        verdict = GuardVerdict(output["verdict"], unsupported)
    context.progress.semantic(
        attempt=attempt, verdict=verdict.verdict, unsupported=len(verdict.unsupported), guard_version=guard_version()
    )
    return verdict
