"""What a tool is — name, description, argument schema, handler, projection.

A handler receives arguments already validated against the tool's JSON schema and returns the canonical
payload; the projection turns that payload into the bounded view the model reads, with a ``raw_path`` per
item so the model can cite exactly what it saw. The definitions (``tools.definitions``) build on this
module and the registry (``tools.registry``) collects them, so no import runs in a circle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

from tools.truncation import Truncation


@dataclass(frozen=True)
class CallContext:
    """What a handler may need beyond its arguments: the monotonic deadline and the row budget."""

    deadline: float
    max_rows: int


@dataclass(frozen=True)
class ToolOutput:
    payload: dict[str, Any]
    row_count: int


Handler = Callable[[dict[str, Any], CallContext], ToolOutput]
# (canonical payload, character budget) -> the tool-specific part of the model's view.
Projector = Callable[[dict[str, Any], int], dict[str, Any]]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    handler: Handler
    project: Projector
    truncation: Truncation | None = None
    # Appended to the description each time specs are built: facts that change with the loaded data.
    live_note: Callable[[], str] | None = None
    # Whether a value of the payload (its parsed path, the value) may be cited, when not every one may: a
    # column name query_mysql's database made of the statement's own text is no citation. None: every one.
    evidence: Callable[[list[str | int], Any], bool] | None = None
    # Which of those values are cited whole or not at all (a heading path is a label, not a statement: its
    # "Restart the primary database" under "Anti-patterns" says not to). None: any part of any of them.
    whole: Callable[[list[str | int]], bool] | None = None
    validator: Draft202012Validator = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # A broken schema is a programming error: fail when the tool is defined, not on the first call.
        Draft202012Validator.check_schema(self.parameters)
        object.__setattr__(self, "validator", Draft202012Validator(self.parameters))

    def cited_whole(self, segments: list[str | int]) -> bool:
        """Whether the value at ``segments`` (a parsed path) may be cited only whole."""
        return self.whole is not None and self.whole(segments)

    def with_integers(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """``arguments`` with an integer property written as a float (``10.0``, which JSON Schema takes for
        an integer and models send) made an ``int``: the handlers count and slice with it."""
        properties = self.parameters.get("properties", {})
        return {
            key: int(value) if isinstance(value, float) and properties.get(key, {}).get("type") == "integer" else value
            for key, value in arguments.items()
        }

    def cites(self, segments: list[str | int], value: Any) -> bool:
        """Whether ``value``, at ``segments`` (a parsed path) of this tool's payload, may be cited."""
        return self.evidence is None or self.evidence(segments, value)

    def schema_errors(self, arguments: dict[str, Any]) -> list[str]:
        """Every way ``arguments`` break the schema, each as ``where: what``, in a stable order."""
        errors = sorted(self.validator.iter_errors(arguments), key=lambda error: list(error.absolute_path))
        return [f"{error.json_path}: {error.message}" for error in errors]

    def spec(self) -> dict[str, Any]:
        """The OpenAI-style function definition the model is given."""
        description = f"{self.description} {self.live_note()}" if self.live_note else self.description
        return {
            "type": "function",
            "function": {"name": self.name, "description": description, "parameters": self.parameters},
        }
