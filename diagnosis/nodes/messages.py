"""What each agent node sends its model: a versioned system prompt and one JSON user message.

The user message is JSON so that every provider - a hosted model or the rule-based ``offline`` one - reads
exactly the same input, and so that what a node shows its model is explicit and testable. Prompts live in
``diagnosis/prompts/<role>.md``; their first line carries the version recorded in ``self_evaluation``.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from diagnosis.contracts import (
    ComposerOutput,
    Contract,
    ExecutorOutput,
    PlannerOutput,
    SemanticGuardOutput,
    VerifierOutput,
)

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
_VERSION = re.compile(r"<!--\s*prompt-version:\s*([\w.-]+)\s*-->")


#: The contract each role's final reply must satisfy: validated by ``parse_output`` and shown in its prompt.
OUTPUT_CONTRACTS: dict[str, type[Contract]] = {
    "planner": PlannerOutput,
    "executor": ExecutorOutput,
    "verifier": VerifierOutput,
    "composer": ComposerOutput,
    "semantic_guard": SemanticGuardOutput,
}


@cache
def prompt(role: str) -> tuple[str, str]:
    """The system prompt of ``role`` and its version.

    The prompt file's words, followed by the JSON schema of the role's output generated from the same
    Pydantic model that validates the reply, so what a model is told and what is checked cannot drift.
    """
    text = (PROMPTS_DIR / f"{role}.md").read_text(encoding="utf-8")
    match = _VERSION.search(text)
    if match is None:
        raise ValueError(f"prompt {role}.md has no prompt-version header")
    schema = json.dumps(OUTPUT_CONTRACTS[role].model_json_schema(), ensure_ascii=False, sort_keys=True)
    body = f"{text[match.end() :].strip()}\n\nYour final reply is one JSON object valid against this JSON schema:\n{schema}"
    return body, match.group(1)


def prompt_versions() -> dict[str, str]:
    return {role: prompt(role)[1] for role in OUTPUT_CONTRACTS}


def _conversation(role: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    system, _ = prompt(role)
    user = json.dumps({"task": role, **payload}, ensure_ascii=False, sort_keys=True, default=str)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _investigation(
    role: str,
    *,
    question: str,
    mode: str,
    retry_context: dict[str, Any] | None,
    environment: dict[str, Any],
    **extra: Any,
) -> list[dict[str, Any]]:
    """The planner and executor see the same investigation: question, mode, retry context, environment."""
    payload = {"question": question, "mode": mode, "retry_context": retry_context, "environment": environment}
    return _conversation(role, {**payload, **extra})


def planner_messages(
    *,
    question: str,
    history: list[dict[str, str]],
    mode: str,
    retry_context: dict[str, Any] | None,
    environment: dict[str, Any],
) -> list[dict[str, Any]]:
    return _investigation(
        "planner", question=question, mode=mode, retry_context=retry_context, environment=environment, history=history
    )


def executor_messages(
    *, question: str, plan: dict[str, Any], mode: str, retry_context: dict[str, Any] | None, environment: dict[str, Any]
) -> list[dict[str, Any]]:
    return _investigation(
        "executor", question=question, mode=mode, retry_context=retry_context, environment=environment, plan=plan
    )


def verifier_messages(
    *, question: str, verdict_ceiling: str, verified_claims: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    return _conversation(
        "verifier", {"question": question, "verdict_ceiling": verdict_ceiling, "verified_claims": verified_claims}
    )


def composer_messages(
    *,
    question: str,
    effective_verdict: str,
    allowed_claims: list[dict[str, Any]],
    missing_info: list[str],
    evidence_gaps: list[str],
    recommended_actions: list[str],
    release_findings: list[dict[str, str]] | None = None,
) -> list[dict[str, Any]]:
    """``release_findings``: why the previous draft of this stage was blocked (empty on a first attempt)."""
    return _conversation(
        "composer",
        {
            "question": question,
            "effective_verdict": effective_verdict,
            "allowed_claims": allowed_claims,
            "missing_info": missing_info,
            "evidence_gaps": evidence_gaps,
            "recommended_actions": recommended_actions,
            "release_findings": release_findings or [],
        },
    )


def semantic_guard_messages(*, draft: str, allowed_claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The guard's isolated context: the draft and the allowed claims, nothing of the run besides."""
    return _conversation("semantic_guard", {"draft": draft, "allowed_claims": allowed_claims})
