"""The node output contracts: every bound at its edge, and failures that never quote the output."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from diagnosis.contracts import (
    EXECUTOR_SCHEMA_NAME,
    ComposerOutput,
    Contract,
    ExecutorOutput,
    InvalidOutput,
    PlannerOutput,
    SemanticGuardOutput,
    VerifierOutput,
    parse_model,
    parse_output,
)
from diagnosis.graph.status import PlannerMode, SemanticVerdict, Verdict, Verification
from diagnosis.nodes.messages import OUTPUT_CONTRACTS, prompt

PLAN = {
    "mode": "NORMAL",
    "hypotheses": ["pool exhausted"],
    "steps": [{"tool": "query_logs", "purpose": "errors", "args": {"service": "payment", "limit": 5}}],
}
REPORT = {
    "schema": "executor_evidence_v2",
    "claims": [
        {
            "claim_id": "c1",
            "statement": "pool exhausted",
            "bindings": [
                {
                    "source_invocation_id": "inv-1",
                    "tool_name": "query_logs",
                    "raw_path": "$.records[0].message",
                    "evidence_excerpt": "connection pool exhausted",
                }
            ],
        }
    ],
    "no_evidence_reason": None,
    "completed_queries": ["query_logs service=payment"],
}
VERIFICATION = {
    "verdict": "LOW_CONFID",
    "facts_checked": [{"claim_id": "c1", "fact": "the pool ran out", "verification": "indirect_support"}],
    "missing_info": ["deploy time"],
    "evidence_gaps": ["no metric"],
    "recommended_actions": [],
}
ANSWER = {"answer_markdown": "The pool ran out [c1].", "cited_claim_ids": ["c1"]}
GUARD = {"verdict": "BLOCK", "unsupported": [{"sentence": "It was the deploy.", "reason": "no fact states it"}]}

VALID = [
    (PlannerOutput, PLAN),
    (ExecutorOutput, REPORT),
    (VerifierOutput, VERIFICATION),
    (ComposerOutput, ANSWER),
    (SemanticGuardOutput, GUARD),
]


def changed(value: dict[str, Any], path: str, new: Any) -> str:
    """``value`` as JSON with the item at ``path`` (``a/0/b``) replaced; ``...`` deletes it."""
    result = copy.deepcopy(value)
    *parents, last = [int(part) if part.isdigit() else part for part in path.split("/")]
    target = result
    for part in parents:
        target = target[part]
    if new is ...:
        del target[last]
    else:
        target[last] = new
    return json.dumps(result)


@pytest.mark.parametrize(("contract", "value"), VALID, ids=lambda item: getattr(item, "__name__", ""))
def test_a_valid_output_comes_back_as_the_same_dict(contract, value):
    parsed = parse_output(json.dumps(value), contract)

    assert parsed == value
    assert all(type(key) is str for key in parsed)


def test_enum_fields_stay_plain_strings_and_typed_access_reads_them():
    plan = parse_output(json.dumps(PLAN), PlannerOutput)
    verification = parse_model(json.dumps(VERIFICATION), VerifierOutput)

    assert type(plan["mode"]) is str and type(plan["steps"][0]["tool"]) is str
    assert verification.verdict == Verdict.LOW_CONFID
    assert verification.facts_checked[0].verification == Verification.INDIRECT_SUPPORT
    assert parse_model(json.dumps(REPORT), ExecutorOutput).schema_name == EXECUTOR_SCHEMA_NAME


def test_the_executor_schema_name_is_the_wire_value():
    assert EXECUTOR_SCHEMA_NAME == "executor_evidence_v2"


@pytest.mark.parametrize(
    "text",
    ["```json\n" + json.dumps(ANSWER) + "\n```", "```\n" + json.dumps(ANSWER) + "\n```", "  " + json.dumps(ANSWER)],
)
def test_a_fenced_or_padded_output_is_accepted(text):
    assert parse_output(text, ComposerOutput) == ANSWER


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "empty output"),
        ("", "empty output"),
        ("  \n", "empty output"),
        ("nope", "not JSON: Expecting value at 0"),
        ('{"a": 1', "not JSON: Expecting ',' delimiter at 7"),
        ("[" * 1500 + "]" * 1500, "not JSON: nested too deeply"),  # a degenerate output: a node error no more
        ('{"answer": ' + "9" * 5000 + "}", "not JSON: a number with more digits than can be read"),
    ],
)
def test_empty_or_non_json_output_is_refused(text, problem):
    with pytest.raises(InvalidOutput) as caught:
        parse_output(text, ComposerOutput)

    assert str(caught.value) == problem


# (contract, valid value, path, replacement, expected problem or None when still valid)
BOUNDS = [
    # planner
    (PlannerOutput, PLAN, "mode", "EVIDENCE_GAP_ONLY", None),
    (PlannerOutput, PLAN, "mode", "FAST", "mode: fails 'enum'"),
    (PlannerOutput, PLAN, "hypotheses", ["h"] * 20, None),
    (PlannerOutput, PLAN, "hypotheses", ["h"] * 21, "hypotheses: fails 'too_long'"),
    (PlannerOutput, PLAN, "hypotheses", ["x" * 2000], None),
    (PlannerOutput, PLAN, "hypotheses", ["x" * 2001], "hypotheses/0: fails 'string_too_long'"),
    (PlannerOutput, PLAN, "hypotheses", [""], "hypotheses/0: fails 'string_too_short'"),
    (PlannerOutput, PLAN, "hypotheses", [3], "hypotheses/0: fails 'string_type'"),
    (PlannerOutput, PLAN, "steps", [], "steps: fails 'too_short'"),
    (PlannerOutput, PLAN, "steps", PLAN["steps"] * 12, None),
    (PlannerOutput, PLAN, "steps", PLAN["steps"] * 13, "steps: fails 'too_long'"),
    (PlannerOutput, PLAN, "steps/0/tool", "query_redis", "steps/0/tool: fails 'enum'"),
    (PlannerOutput, PLAN, "steps/0/args", [], "steps/0/args: fails 'dict_type'"),
    (PlannerOutput, PLAN, "steps/0/args", {}, None),
    (PlannerOutput, PLAN, "steps/0/args", {"a": [[[[[[[1]]]]]]]}, None),  # eight levels
    # Deeper, the executor's own message (which holds the plan) could not be encoded.
    (PlannerOutput, PLAN, "steps/0/args", {"a": [[[[[[[[1]]]]]]]]}, "steps/0/args: fails 'value_error'"),
    (PlannerOutput, PLAN, "steps/0/purpose", ..., "steps/0/purpose: fails 'missing'"),
    (PlannerOutput, PLAN, "steps/0/why", "x", "steps/0: fails 'extra_forbidden'"),
    # executor
    (ExecutorOutput, REPORT, "schema", "executor_evidence_v1", "schema: fails 'literal_error'"),
    (ExecutorOutput, REPORT, "schema", ..., "schema: fails 'missing'"),
    (ExecutorOutput, REPORT, "claims", [], None),
    (ExecutorOutput, REPORT, "claims", REPORT["claims"] * 20, None),
    (ExecutorOutput, REPORT, "claims", REPORT["claims"] * 21, "claims: fails 'too_long'"),
    (ExecutorOutput, REPORT, "claims/0/claim_id", "c999", None),
    (ExecutorOutput, REPORT, "claims/0/claim_id", "K7", None),
    (ExecutorOutput, REPORT, "claims/0/claim_id", "500", "claims/0/claim_id: fails 'string_pattern_mismatch'"),
    (ExecutorOutput, REPORT, "claims/0/claim_id", "c1000", "claims/0/claim_id: fails 'string_pattern_mismatch'"),
    # An id is shown as the citation marker and stripped before the release policy checks a sentence.
    (ExecutorOutput, REPORT, "claims/0/claim_id", "db-7-oom", "claims/0/claim_id: fails 'string_pattern_mismatch'"),
    (ExecutorOutput, REPORT, "claims/0/claim_id", "cc1", "claims/0/claim_id: fails 'string_pattern_mismatch'"),
    # "$" matches before a final newline: the id would pass as "c1" and never match its marker.
    (ExecutorOutput, REPORT, "claims/0/claim_id", "c1\n", "claims/0/claim_id: fails 'value_error'"),
    (ExecutorOutput, REPORT, "claims/0/claim_id", "c 1", "claims/0/claim_id: fails 'string_pattern_mismatch'"),
    (ExecutorOutput, REPORT, "claims/0/claim_id", "", "claims/0/claim_id: fails 'string_pattern_mismatch'"),
    (ExecutorOutput, REPORT, "claims/0/bindings", [], None),
    (ExecutorOutput, REPORT, "claims/0/bindings", REPORT["claims"][0]["bindings"] * 10, None),
    (
        ExecutorOutput,
        REPORT,
        "claims/0/bindings",
        REPORT["claims"][0]["bindings"] * 11,
        "claims/0/bindings: fails 'too_long'",
    ),
    (ExecutorOutput, REPORT, "claims/0/bindings/0/source_invocation_id", "i" * 64, None),
    (
        ExecutorOutput,
        REPORT,
        "claims/0/bindings/0/source_invocation_id",
        "i" * 65,
        "claims/0/bindings/0/source_invocation_id: fails 'string_too_long'",
    ),
    (
        ExecutorOutput,
        REPORT,
        "claims/0/bindings/0/source_invocation_id",
        "",
        "claims/0/bindings/0/source_invocation_id: fails 'string_too_short'",
    ),
    (ExecutorOutput, REPORT, "claims/0/bindings/0/tool_name", "t" * 40, None),
    (
        ExecutorOutput,
        REPORT,
        "claims/0/bindings/0/tool_name",
        "t" * 41,
        "claims/0/bindings/0/tool_name: fails 'string_too_long'",
    ),
    (ExecutorOutput, REPORT, "claims/0/bindings/0/raw_path", "$" * 300, None),
    (
        ExecutorOutput,
        REPORT,
        "claims/0/bindings/0/raw_path",
        "$" * 301,
        "claims/0/bindings/0/raw_path: fails 'string_too_long'",
    ),
    (ExecutorOutput, REPORT, "claims/0/bindings/0/evidence_excerpt", "", None),
    (
        ExecutorOutput,
        REPORT,
        "claims/0/bindings/0/evidence_excerpt",
        "e" * 2001,
        "claims/0/bindings/0/evidence_excerpt: fails 'string_too_long'",
    ),
    (ExecutorOutput, REPORT, "no_evidence_reason", "r" * 2000, None),
    (ExecutorOutput, REPORT, "no_evidence_reason", "r" * 2001, "no_evidence_reason: fails 'string_too_long'"),
    (ExecutorOutput, REPORT, "no_evidence_reason", ..., "no_evidence_reason: fails 'missing'"),
    (ExecutorOutput, REPORT, "no_evidence_reason", 0, "no_evidence_reason: fails 'string_type'"),
    (ExecutorOutput, REPORT, "completed_queries", [""] * 50, None),
    (ExecutorOutput, REPORT, "completed_queries", [""] * 51, "completed_queries: fails 'too_long'"),
    (ExecutorOutput, REPORT, "completed_queries", ["q" * 501], "completed_queries/0: fails 'string_too_long'"),
    # verifier
    (VerifierOutput, VERIFICATION, "verdict", "PASS", None),
    (VerifierOutput, VERIFICATION, "verdict", "pass", "verdict: fails 'enum'"),
    (VerifierOutput, VERIFICATION, "facts_checked", VERIFICATION["facts_checked"] * 40, None),
    (
        VerifierOutput,
        VERIFICATION,
        "facts_checked",
        VERIFICATION["facts_checked"] * 41,
        "facts_checked: fails 'too_long'",
    ),
    (VerifierOutput, VERIFICATION, "facts_checked/0/claim_id", "any id at all, 40 characters long.......", None),
    (
        VerifierOutput,
        VERIFICATION,
        "facts_checked/0/claim_id",
        "",
        "facts_checked/0/claim_id: fails 'string_too_short'",
    ),
    (
        VerifierOutput,
        VERIFICATION,
        "facts_checked/0/claim_id",
        "c" * 41,
        "facts_checked/0/claim_id: fails 'string_too_long'",
    ),
    (VerifierOutput, VERIFICATION, "facts_checked/0/verification", "contradicted", None),
    (
        VerifierOutput,
        VERIFICATION,
        "facts_checked/0/verification",
        "likely",
        "facts_checked/0/verification: fails 'enum'",
    ),
    (VerifierOutput, VERIFICATION, "facts_checked/0/fact", "", "facts_checked/0/fact: fails 'string_too_short'"),
    (VerifierOutput, VERIFICATION, "missing_info", ..., "missing_info: fails 'missing'"),
    (VerifierOutput, VERIFICATION, "evidence_gaps", ["g"] * 21, "evidence_gaps: fails 'too_long'"),
    (VerifierOutput, VERIFICATION, "recommended_actions", [None], "recommended_actions/0: fails 'string_type'"),
    # composer
    (ComposerOutput, ANSWER, "answer_markdown", "a" * 12000, None),
    (ComposerOutput, ANSWER, "answer_markdown", "a" * 12001, "answer_markdown: fails 'string_too_long'"),
    (ComposerOutput, ANSWER, "answer_markdown", "", "answer_markdown: fails 'string_too_short'"),
    (ComposerOutput, ANSWER, "cited_claim_ids", [""] * 40, None),
    (ComposerOutput, ANSWER, "cited_claim_ids", ["c1"] * 41, "cited_claim_ids: fails 'too_long'"),
    (ComposerOutput, ANSWER, "cited_claim_ids", ["c" * 41], "cited_claim_ids/0: fails 'string_too_long'"),
    # semantic guard
    (SemanticGuardOutput, GUARD, "verdict", "RELEASE", None),
    (SemanticGuardOutput, GUARD, "verdict", "FAILED", "verdict: fails 'enum'"),
    (SemanticGuardOutput, GUARD, "unsupported", GUARD["unsupported"] * 40, None),
    (SemanticGuardOutput, GUARD, "unsupported", GUARD["unsupported"] * 41, "unsupported: fails 'too_long'"),
    (SemanticGuardOutput, GUARD, "unsupported/0/reason", "r" * 500, None),
    (SemanticGuardOutput, GUARD, "unsupported/0/reason", "r" * 501, "unsupported/0/reason: fails 'string_too_long'"),
    (SemanticGuardOutput, GUARD, "unsupported/0/sentence", "", "unsupported/0/sentence: fails 'string_too_short'"),
]


@pytest.mark.parametrize(("contract", "value", "path", "new", "problem"), BOUNDS)
def test_every_bound_holds_at_its_edge(contract, value, path, new, problem):
    text = changed(value, path, new)

    if problem is None:
        assert parse_output(text, contract) == json.loads(text)
    else:
        with pytest.raises(InvalidOutput) as caught:
            parse_output(text, contract)
        assert str(caught.value) == problem


@pytest.mark.parametrize(("contract", "value"), VALID, ids=lambda item: getattr(item, "__name__", ""))
def test_the_root_must_be_an_object_without_unknown_keys(contract, value):
    for text in ("[]", '"text"', "null"):
        with pytest.raises(InvalidOutput, match=r"^\(root\): fails 'model_type'$"):
            parse_output(text, contract)
    with pytest.raises(InvalidOutput, match=r"^\(root\): fails 'extra_forbidden'$"):
        parse_output(json.dumps({**value, "reasoning": "x"}), contract)


SECRET = "the db password is hunter2"


@pytest.mark.parametrize(
    ("contract", "value", "path"),
    [
        (PlannerOutput, PLAN, "mode"),
        (PlannerOutput, PLAN, "steps/0/tool"),
        (PlannerOutput, PLAN, "steps/0/args"),
        (PlannerOutput, PLAN, "hypotheses/0"),
        (ExecutorOutput, REPORT, "schema"),
        (ExecutorOutput, REPORT, "claims/0/claim_id"),
        (VerifierOutput, VERIFICATION, "verdict"),
        (ComposerOutput, ANSWER, "answer_markdown"),
        (SemanticGuardOutput, GUARD, "unsupported/0"),
    ],
)
def test_a_failure_never_quotes_the_output(contract, value, path):
    """The problem text lands in the public step summary: where and which rule, never what the model wrote."""
    for bad in (SECRET, SECRET * 1000, [SECRET], {SECRET: SECRET}, 7):
        try:
            parse_output(changed(value, path, bad), contract)
        except InvalidOutput as error:
            assert "hunter2" not in str(error)
            assert re.fullmatch(r"[\w/()]+: fails '\w+'", str(error)), str(error)


def test_an_unknown_key_is_reported_at_its_object_without_its_name():
    text = json.dumps({**PLAN, SECRET: 1})

    with pytest.raises(InvalidOutput) as caught:
        parse_output(text, PlannerOutput)

    assert str(caught.value) == "(root): fails 'extra_forbidden'"
    with pytest.raises(InvalidOutput, match=r"^steps/0: fails 'extra_forbidden'$"):
        parse_output(changed(PLAN, f"steps/0/{SECRET}", 1), PlannerOutput)


def test_text_that_cannot_be_stored_is_refused():
    """A lone surrogate (valid JSON escape, not encodable text) is invalid output, not a later crash."""
    text = json.dumps(ANSWER).replace("The pool", "The \\ud800 pool")

    with pytest.raises(InvalidOutput, match=r"^answer_markdown: fails 'string_unicode'$"):
        parse_output(text, ComposerOutput)


def test_contracts_refuse_what_json_schema_would_refuse_rather_than_coerce():
    for path, value in [("hypotheses/0", 12), ("hypotheses/0", True), ("steps/0/purpose", 1.5)]:
        with pytest.raises(InvalidOutput, match="string_type"):
            parse_output(changed(PLAN, path, value), PlannerOutput)
    with pytest.raises(InvalidOutput, match="list_type"):
        parse_output(changed(PLAN, "hypotheses", "one"), PlannerOutput)


@pytest.mark.parametrize(("contract", "value"), VALID, ids=lambda item: getattr(item, "__name__", ""))
def test_every_contract_has_a_json_schema(contract, value):
    schema = contract.model_json_schema(by_alias=True)

    assert schema["additionalProperties"] is False
    assert schema["required"] == list(value)
    assert issubclass(contract, Contract)


def _fields(contract: type[Contract]) -> set[str]:
    """Every JSON key of ``contract`` and of the contracts nested in it."""
    schema = contract.model_json_schema(by_alias=True)
    names = set(schema["properties"])
    for nested in schema.get("$defs", {}).values():
        names |= set(nested.get("properties", {}))
    return names


@pytest.mark.parametrize(
    ("role", "contract", "values"),
    [
        ("planner", PlannerOutput, [*PlannerMode]),
        ("executor", ExecutorOutput, [EXECUTOR_SCHEMA_NAME]),
        ("verifier", VerifierOutput, [*Verdict, *Verification]),
        ("composer", ComposerOutput, []),
        ("semantic_guard", SemanticGuardOutput, [*SemanticVerdict]),
    ],
)
def test_each_prompt_shows_its_contract(role, contract, values):
    """The prompt's reply shape names every key and every allowed value of the contract."""
    text, _ = prompt(role)

    assert {name for name in _fields(contract) if f'"{name}"' not in text} == set()
    assert [value for value in values if f'"{value}"' not in text] == []


@pytest.mark.parametrize("role", sorted(OUTPUT_CONTRACTS))
def test_each_prompt_shows_the_schema_its_reply_is_validated_against(role):
    system, _ = prompt(role)
    shown = json.loads(system.rsplit("valid against this JSON schema:\n", 1)[1])

    assert shown == OUTPUT_CONTRACTS[role].model_json_schema()
