"""A diagnosis played through the offline roles, the real tool harness and the real deterministic nodes.

It follows the graph's happy path without the graph: the node messages (``diagnosis.nodes.messages``),
the executor node's loop rules (its turn and per-turn call limits, one tool message per call carrying the
projection), the real gatekeeper check, the verified-input projection, the allowed-claims hand-off to
the composer, and the release guard (the deterministic policy, then the guard role reviewing the draft).
Every model output is validated against its contract, as the nodes do.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from diagnosis.contracts import (
    ComposerOutput,
    ExecutorOutput,
    PlannerOutput,
    SemanticGuardOutput,
    VerifierOutput,
    parse_output,
)
from diagnosis.graph.status import Verdict, min_verdict
from diagnosis.nodes.allowed import allowed_claims
from diagnosis.nodes.executor import MAX_CALLS_PER_TURN, MAX_TURNS
from diagnosis.nodes.gatekeeper import GatekeeperResult, check_output
from diagnosis.nodes.messages import (
    composer_messages,
    executor_messages,
    planner_messages,
    semantic_guard_messages,
    verifier_messages,
)
from diagnosis.nodes.release_review import known_names
from diagnosis.nodes.semantic_guard import guard_claims
from diagnosis.nodes.verified_input import project
from diagnosis.providers.base import RoleModels
from diagnosis.release.policy import PolicyResult, check_draft
from tools.harness import ToolHarness
from tools.registry import tool_specs
from tools.store import load_verified_payload


@dataclass
class ExecutorRun:
    output: dict[str, Any]
    turns: int
    calls: list[tuple[str, dict[str, Any]]]


@dataclass
class Diagnosis:
    plan: dict[str, Any]
    executor: ExecutorRun
    gatekeeper: GatekeeperResult
    verified_claims: list[dict[str, Any]]
    verification: dict[str, Any]
    effective_verdict: str
    answer: dict[str, Any]
    policy: PolicyResult
    guard: dict[str, Any]

    @property
    def released(self) -> bool:
        """Whether the release guard lets the first draft through unchanged."""
        return self.policy.released and self.guard["verdict"] == "RELEASE"


def run_executor(
    models: RoleModels,
    harness: ToolHarness,
    *,
    question: str,
    plan: dict[str, Any],
    environment: dict[str, Any],
    mode: str = "NORMAL",
    retry_context: dict[str, Any] | None = None,
) -> ExecutorRun:
    messages = executor_messages(
        question=question, plan=plan, mode=mode, retry_context=retry_context, environment=environment
    )
    calls: list[tuple[str, dict[str, Any]]] = []
    for turn in range(1, MAX_TURNS + 1):
        reply = models.executor.complete(messages, tools=tool_specs())
        if not reply.tool_calls:
            return ExecutorRun(parse_output(reply.content, ExecutorOutput), turn, calls)
        assert len(reply.tool_calls) <= MAX_CALLS_PER_TURN, "the node would refuse the extra calls"
        messages.append(reply.as_message())
        for call in reply.tool_calls:
            calls.append((call.name, json.loads(call.arguments)))
            result = harness.call(call.name, call.arguments)
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result.projection, ensure_ascii=False)}
            )
    raise AssertionError(f"the executor did not report within the node's {MAX_TURNS} turns")


def gatekeep(harness: ToolHarness, output: dict[str, Any]) -> tuple[GatekeeperResult, list[dict[str, Any]]]:
    """The gatekeeper's result and the verifier's ``verified_claims`` (the verified-input projection)."""
    result = check_output(output, lambda invocation_id: load_verified_payload(harness.run_id, invocation_id))
    verified_output, _ = project(result.to_dict())
    return result, verified_output["claims"]


def plan_for(models: RoleModels, question: str, environment: dict[str, Any], **retry: Any) -> dict[str, Any]:
    messages = planner_messages(
        question=question,
        history=[],
        mode=retry.get("mode", "NORMAL"),
        retry_context=retry.get("retry_context"),
        environment=environment,
    )
    return parse_output(models.planner.complete(messages).content, PlannerOutput)


def diagnose(models: RoleModels, harness: ToolHarness, question: str, environment: dict[str, Any]) -> Diagnosis:
    """planner -> executor loop -> gatekeeper -> verified input -> verifier -> composer."""
    plan = plan_for(models, question, environment)
    executor = run_executor(models, harness, question=question, plan=plan, environment=environment)
    result, verified = gatekeep(harness, executor.output)
    ceiling = {"PASS": Verdict.PASS, "LOW_CONFID": Verdict.LOW_CONFID}.get(result.status.value, Verdict.LOW_CONFID)
    reply = models.verifier.complete(
        verifier_messages(question=question, verdict_ceiling=ceiling.value, verified_claims=verified)
    )
    verification = parse_output(reply.content, VerifierOutput)
    effective = min_verdict(Verdict(verification["verdict"]), ceiling)
    state = {
        "effective_verdict": effective,
        "verified_executor_output": {"claims": verified},
        "verifier_output": verification,
    }
    composed = models.composer.complete(
        composer_messages(
            question=question,
            effective_verdict=effective.value,
            allowed_claims=allowed_claims(state),
            missing_info=verification["missing_info"],
            evidence_gaps=verification["evidence_gaps"],
            recommended_actions=verification["recommended_actions"],
        )
    )
    answer = parse_output(composed.content, ComposerOutput)
    allowed = allowed_claims(state)
    guidance = verification["missing_info"] + verification["evidence_gaps"] + verification["recommended_actions"]
    policy = check_draft(
        answer["answer_markdown"],
        answer["cited_claim_ids"],
        allowed,
        guidance=guidance,
        known_names=known_names(environment),
    )
    reviewed = models.semantic_guard.complete(
        semantic_guard_messages(draft=answer["answer_markdown"], allowed_claims=guard_claims(allowed))
    )
    guard = parse_output(reviewed.content, SemanticGuardOutput)
    return Diagnosis(plan, executor, result, verified, verification, effective.value, answer, policy, guard)
