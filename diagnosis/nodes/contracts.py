"""The JSON contracts between nodes (DESIGN.md "Contracts between nodes").

Every model output is parsed and validated against one of these schemas before any node trusts it; an
output that fails is INVALID_OUTPUT, whatever it says. Sizes are bounded so that a runaway model cannot
bloat the graph state or the audit rows.
"""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator

from diagnosis.graph.status import PlannerMode, SemanticVerdict, Verdict, Verification
from tools.names import ToolName

TOOL_NAMES = [name.value for name in ToolName]
EXECUTOR_SCHEMA_NAME = "executor_evidence_v2"
VERIFICATIONS = [verification.value for verification in Verification]
VERDICTS = [verdict.value for verdict in Verdict]

_TEXT = {"type": "string", "minLength": 1, "maxLength": 2000}
_SHORT_LIST = {"type": "array", "items": _TEXT, "maxItems": 20}

PLANNER_OUTPUT = {
    "type": "object",
    "required": ["mode", "hypotheses", "steps"],
    "additionalProperties": False,
    "properties": {
        "mode": {"enum": [mode.value for mode in PlannerMode]},
        "hypotheses": _SHORT_LIST,
        "steps": {
            "type": "array",
            "minItems": 1,
            "maxItems": 12,
            "items": {
                "type": "object",
                "required": ["tool", "purpose", "args"],
                "additionalProperties": False,
                "properties": {"tool": {"enum": TOOL_NAMES}, "purpose": _TEXT, "args": {"type": "object"}},
            },
        },
    },
}

BINDING = {
    "type": "object",
    "required": ["source_invocation_id", "tool_name", "raw_path", "evidence_excerpt"],
    "additionalProperties": False,
    "properties": {
        "source_invocation_id": {"type": "string", "minLength": 1, "maxLength": 64},
        "tool_name": {"type": "string", "minLength": 1, "maxLength": 40},
        "raw_path": {"type": "string", "minLength": 1, "maxLength": 300},
        "evidence_excerpt": {"type": "string", "maxLength": 2000},
    },
}

EXECUTOR_OUTPUT = {
    "type": "object",
    "required": ["schema", "claims", "no_evidence_reason", "completed_queries"],
    "additionalProperties": False,
    "properties": {
        "schema": {"const": EXECUTOR_SCHEMA_NAME},
        "claims": {
            "type": "array",
            "maxItems": 20,
            "items": {
                "type": "object",
                "required": ["claim_id", "statement", "bindings"],
                "additionalProperties": False,
                "properties": {
                    "claim_id": {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,40}$"},
                    "statement": _TEXT,
                    "bindings": {"type": "array", "maxItems": 10, "items": BINDING},
                },
            },
        },
        "no_evidence_reason": {"type": ["string", "null"], "maxLength": 2000},
        "completed_queries": {"type": "array", "items": {"type": "string", "maxLength": 500}, "maxItems": 50},
    },
}

VERIFIER_OUTPUT = {
    "type": "object",
    "required": ["verdict", "facts_checked", "missing_info", "evidence_gaps", "recommended_actions"],
    "additionalProperties": False,
    "properties": {
        "verdict": {"enum": VERDICTS},
        "facts_checked": {
            "type": "array",
            "maxItems": 40,
            "items": {
                "type": "object",
                "required": ["claim_id", "fact", "verification"],
                "additionalProperties": False,
                "properties": {
                    "claim_id": {"type": "string", "minLength": 1, "maxLength": 40},
                    "fact": _TEXT,
                    "verification": {"enum": VERIFICATIONS},
                },
            },
        },
        "missing_info": _SHORT_LIST,
        "evidence_gaps": _SHORT_LIST,
        "recommended_actions": _SHORT_LIST,
    },
}

COMPOSER_OUTPUT = {
    "type": "object",
    "required": ["answer_markdown", "cited_claim_ids"],
    "additionalProperties": False,
    "properties": {
        "answer_markdown": {"type": "string", "minLength": 1, "maxLength": 12000},
        "cited_claim_ids": {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 40},
    },
}


GUARD_VERDICTS = [verdict.value for verdict in SemanticVerdict]

SEMANTIC_GUARD_OUTPUT = {
    "type": "object",
    "required": ["verdict", "unsupported"],
    "additionalProperties": False,
    "properties": {
        "verdict": {"enum": GUARD_VERDICTS},
        "unsupported": {
            "type": "array",
            "maxItems": 40,
            "items": {
                "type": "object",
                "required": ["sentence", "reason"],
                "additionalProperties": False,
                "properties": {"sentence": _TEXT, "reason": {"type": "string", "minLength": 1, "maxLength": 500}},
            },
        },
    },
}


class InvalidOutput(ValueError):
    """A model output that is not the node's JSON contract; the node reports INVALID_OUTPUT."""


def parse_output(text: str | None, schema: dict[str, Any]) -> dict[str, Any]:
    """Parse a model's final content as JSON and validate it; a fenced ```json block is accepted."""
    if not text or not text.strip():
        raise InvalidOutput("empty output")
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        raise InvalidOutput(f"not JSON: {exc.msg} at {exc.pos}") from None
    errors = sorted(Draft202012Validator(schema).iter_errors(value), key=lambda error: list(error.path))
    if errors:
        first = errors[0]
        where = "/".join(str(part) for part in first.path) or "(root)"
        # Where and which rule, never the offending value: this text lands in agent_step.summary, which
        # every trace reader sees, and model output may carry reasoning that belongs to the restricted audit.
        raise InvalidOutput(f"{where}: fails '{first.validator}'")
    return value
