"""The registry: the four tools of the design, as function definitions a model can call."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from tools.registry import Tool, ToolOutput, ToolRegistry, default_registry, tool_specs


def noop_tool(name: str = "noop", parameters: dict | None = None) -> Tool:
    return Tool(
        name=name,
        description="Does nothing.",
        parameters=parameters or {"type": "object", "properties": {}},
        handler=lambda arguments, context: ToolOutput({}, row_count=0),
        project=lambda payload, budget: {},
    )


@pytest.mark.django_db
def test_it_offers_the_four_tools_as_openai_functions():
    specs = tool_specs()

    assert [spec["function"]["name"] for spec in specs] == [
        "lookup_knowledge",
        "query_logs",
        "query_metrics",
        "query_mysql",
    ]
    for spec in specs:
        assert spec["type"] == "function"
        assert spec["function"]["description"]
        parameters = spec["function"]["parameters"]
        Draft202012Validator.check_schema(parameters)
        assert parameters["additionalProperties"] is False
        assert set(parameters["required"]) <= set(parameters["properties"])


@pytest.mark.parametrize(
    ("tool", "required"),
    [
        ("lookup_knowledge", {"query", "top_k"}),
        ("query_logs", {"service", "start", "end", "limit"}),
        ("query_metrics", {"service", "metric", "start", "end", "step"}),
        ("query_mysql", {"sql"}),
    ],
)
def test_it_requires_the_arguments_of_the_design(tool, required):
    assert set(default_registry().get(tool).parameters["required"]) == required


def test_it_keeps_level_and_contains_optional_for_logs():
    properties = default_registry().get("query_logs").parameters["properties"]

    assert {"level", "contains"} <= set(properties)


@pytest.mark.django_db
def test_it_tells_the_model_there_are_no_tables_before_a_pack_is_loaded():
    description = default_registry().get("query_mysql").spec()["function"]["description"]

    assert description.endswith("No scenario pack is loaded: there are no tables.")


def test_it_tells_the_model_the_tables_and_columns_of_the_loaded_pack(loaded):
    description = default_registry().get("query_mysql").spec()["function"]["description"]

    assert "deploys(version, service, deployed_at, change_summary)" in description
    assert "orders(id, order_no, status, amount, created_at)" in description


def test_it_refuses_two_tools_of_one_name():
    with pytest.raises(ValueError, match="'noop' is defined twice"):
        ToolRegistry([noop_tool(), noop_tool()])


def test_it_refuses_a_tool_with_a_broken_schema():
    with pytest.raises(SchemaError):
        noop_tool(parameters={"type": "no-such-type"})


def test_it_lists_schema_errors_in_a_stable_order():
    tool = noop_tool(
        parameters={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
            "required": ["a", "b"],
        }
    )

    assert tool.schema_errors({"a": "x", "b": 1}) == [
        "$.a: 'x' is not of type 'integer'",
        "$.b: 1 is not of type 'string'",
    ]
    assert tool.schema_errors({"a": 1, "b": "ok"}) == []
