"""The JSON contracts between nodes (DESIGN.md "Contracts between nodes").

Every model output is parsed and validated against one of these Pydantic models before any node trusts
it; an output that fails is INVALID_OUTPUT, whatever it says. One definition gives the validation, the
JSON schema (``PlannerOutput.model_json_schema()``) and typed access (``parse_model``). Sizes are bounded
so that a runaway model cannot bloat the graph state or the audit rows.

The models coerce nothing a JSON schema would refuse: unknown keys are refused (``extra="forbid"``), a
string field takes only a string, and enum fields keep the plain string the model sent
(``use_enum_values``), so ``parse_output`` hands the nodes the same dict the model wrote.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from diagnosis.graph.status import PlannerMode, SemanticVerdict, Verdict, Verification
from tools.names import ToolName

EXECUTOR_SCHEMA_NAME = "executor_evidence_v2"

Text = Annotated[str, Field(min_length=1, max_length=2000)]
ShortList = Annotated[list[Text], Field(max_length=20)]
#: A tool's arguments nest a level or two; a plan's are re-encoded inside the executor's own message, where
#: hundreds of levels would exhaust the encoder's recursion (a crash, not an invalid output).
MAX_ARGS_DEPTH = 8
CLAIM_ID = r"[A-Za-z][0-9]{1,3}"


def _nesting_within(value: Any, depth: int) -> bool:
    if isinstance(value, dict | list):
        items = value.values() if isinstance(value, dict) else value
        return depth > 0 and all(_nesting_within(item, depth - 1) for item in items)
    return True


def _shallow(value: dict[str, Any]) -> dict[str, Any]:
    if not _nesting_within(value, MAX_ARGS_DEPTH):
        raise ValueError(f"arguments nest deeper than {MAX_ARGS_DEPTH} levels")
    return value


def _whole_claim_id(value: str) -> str:
    # ``$`` of the schema's pattern also matches before a final newline in Python: "c1\n" passed as "c1".
    if not re.fullmatch(CLAIM_ID, value):
        raise ValueError(f"a claim id is a letter and one to three digits ({CLAIM_ID})")
    return value


class Contract(BaseModel):
    """A node's output contract: unknown keys refused, enums kept as the strings the model sent."""

    # python-re reads ``pattern`` with Python's ``re``, as the jsonschema checks before the models did (a claim
    # id is matched whole besides: ``_whole_claim_id``).
    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=True, regex_engine="python-re")


class PlanStep(Contract):
    tool: ToolName
    purpose: Text
    args: Annotated[dict[str, Any], AfterValidator(_shallow)]


class PlannerOutput(Contract):
    mode: PlannerMode
    hypotheses: ShortList
    steps: Annotated[list[PlanStep], Field(min_length=1, max_length=12)]


class Binding(Contract):
    source_invocation_id: Annotated[str, Field(min_length=1, max_length=64)]
    tool_name: Annotated[str, Field(min_length=1, max_length=40)]
    raw_path: Annotated[str, Field(min_length=1, max_length=300)]
    evidence_excerpt: Annotated[str, Field(max_length=2000)]


class Claim(Contract):
    # The answer shows a claim's id as its citation marker ("[c1]"), which the release policy strips before
    # it checks a sentence: an id of words ("[root-cause-redis-oom-on-db-7]") would be released unchecked.
    claim_id: Annotated[str, Field(pattern=rf"^{CLAIM_ID}$"), AfterValidator(_whole_claim_id)]
    statement: Text
    bindings: Annotated[list[Binding], Field(max_length=10)]


class ExecutorOutput(Contract):
    # ``schema`` would shadow a BaseModel attribute: the field has another name, the JSON key stays.
    schema_name: Literal[EXECUTOR_SCHEMA_NAME] = Field(alias="schema")  # type: ignore[valid-type]
    claims: Annotated[list[Claim], Field(max_length=20)]
    no_evidence_reason: Annotated[str, Field(max_length=2000)] | None
    completed_queries: Annotated[list[Annotated[str, Field(max_length=500)]], Field(max_length=50)]


class CheckedFact(Contract):
    claim_id: Annotated[str, Field(min_length=1, max_length=40)]
    fact: Text
    verification: Verification


class VerifierOutput(Contract):
    verdict: Verdict
    facts_checked: Annotated[list[CheckedFact], Field(max_length=40)]
    missing_info: ShortList
    evidence_gaps: ShortList
    recommended_actions: ShortList


class ComposerOutput(Contract):
    answer_markdown: Annotated[str, Field(min_length=1, max_length=12000)]
    cited_claim_ids: Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=40)]


class UnsupportedSentence(Contract):
    sentence: Text
    reason: Annotated[str, Field(min_length=1, max_length=500)]


class SemanticGuardOutput(Contract):
    verdict: SemanticVerdict
    unsupported: Annotated[list[UnsupportedSentence], Field(max_length=40)]


ContractT = TypeVar("ContractT", bound=Contract)


class InvalidOutput(ValueError):
    """A model output that is not the node's JSON contract; the node reports INVALID_OUTPUT."""


def parse_model(text: str | None, contract: type[ContractT]) -> ContractT:
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
    except ValueError:  # an integer longer than Python converts (``sys.get_int_max_str_digits``)
        raise InvalidOutput("not JSON: a number with more digits than can be read") from None
    except RecursionError:  # a degenerate, repetitive output: [[[[... deeper than the decoder goes
        raise InvalidOutput("not JSON: nested too deeply") from None
    try:
        return contract.model_validate(value)
    except ValidationError as exc:
        raise InvalidOutput(_first_problem(exc)) from None


def parse_output(text: str | None, contract: type[Contract]) -> dict[str, Any]:
    """``parse_model`` as the plain dict the nodes keep in the graph state (JSON keys, enum values as strings)."""
    return parse_model(text, contract).model_dump(by_alias=True)


def _first_problem(error: ValidationError) -> str:
    """Where and which rule, never the offending value.

    This text lands in agent_step.summary, which every trace reader sees, and model output may carry
    reasoning that belongs to the restricted audit. So the input, Pydantic's message (which may quote
    it) and an unknown key's name (the model's text) are all left out: an unknown key is reported at the
    object that holds it.
    """
    first = error.errors(include_url=False, include_context=False, include_input=False)[0]
    location = first["loc"][:-1] if first["type"] == "extra_forbidden" else first["loc"]
    where = "/".join(str(part) for part in location) or "(root)"
    return f"{where}: fails '{first['type']}'"
