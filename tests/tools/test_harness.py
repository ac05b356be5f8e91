"""The harness: every call recorded before the model sees it, budgets enforced, never an exception for bad input."""

from __future__ import annotations

import json
import time

import pytest
from django.core.cache import cache
from django.db import DatabaseError

from tools.arguments import MAX_KEY_CHARS, MAX_SHAPE_KEYS
from tools.errors import ToolBackendError, ToolInputError
from tools.harness import MAX_ARGUMENTS_BYTES, ToolHarness
from tools.jsonpath import format_path, resolve
from tools.models import InvocationStatus, ToolInvocation
from tools.projection import PROJECTION_MAX_CHARS, listing, size_of
from tools.registry import CallContext, Tool, ToolOutput, ToolRegistry
from tools.store import arguments_key, canonical_json, load_arguments, load_verified_payload, sha256_hex
from tools.truncation import Truncation

pytestmark = pytest.mark.django_db

PARAMETERS = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0}, "text": {"type": "string"}},
    "required": ["n"],
    "additionalProperties": False,
}


def items(arguments: dict, context: CallContext) -> ToolOutput:
    count = min(arguments["n"], context.max_rows)
    text = arguments.get("text", "item")
    payload = {"items": [f"{text}-{index}" for index in range(count)], "truncated": count < arguments["n"]}
    return ToolOutput(payload, row_count=count)


def project_items(payload: dict, budget: int) -> dict:
    def view(index: int) -> dict:
        return {"raw_path": format_path("$", "items", index), "value": payload["items"][index]}

    return {"truncated": payload["truncated"], **listing("items", range(len(payload["items"])), budget, view)}


def make_tool(handler=items, *, name="items", truncation=None) -> Tool:
    return Tool(
        name=name,
        description="Lists items.",
        parameters=PARAMETERS,
        handler=handler,
        project=project_items,
        truncation=truncation,
    )


def harness_with(run, *tools: Tool, on_call=None) -> ToolHarness:
    return ToolHarness(run.id, registry=ToolRegistry(tools or [make_tool()]), on_call=on_call)


def test_it_records_a_ready_call_with_its_payload_digest(run):
    result = harness_with(run).call("items", {"n": 3})

    invocation = ToolInvocation.objects.get(pk=result.invocation_id)
    canonical = canonical_json({"items": ["item-0", "item-1", "item-2"], "truncated": False})
    assert (invocation.run_id, invocation.seq, invocation.tool_name) == (run.id, 1, "items")
    assert (invocation.status, invocation.error_code, invocation.row_count) == (InvocationStatus.READY, "", 3)
    assert invocation.payload_sha256 == sha256_hex(canonical)
    assert invocation.payload_bytes == len(canonical)
    assert (invocation.args_sha256, invocation.args_shape) == (sha256_hex(b'{"n":3}'), {"n": "int"})
    assert result.status == InvocationStatus.READY
    assert load_verified_payload(run.id, result.invocation_id).payload == json.loads(canonical)


def test_it_gives_the_model_the_invocation_id_and_a_raw_path_per_item(run):
    result = harness_with(run).call("items", {"n": 2})

    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert result.projection["invocation_id"] == str(result.invocation_id)
    assert result.projection["status"] == "READY"
    assert result.projection["tool"] == "items"
    for view in result.projection["items"]:
        assert resolve(payload, view["raw_path"]) == view["value"]


def test_it_accepts_arguments_as_a_json_string(run):
    result = harness_with(run).call("items", '{"n": 1}')

    assert result.status == InvocationStatus.READY


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ('{"n": 1', "invalid_json"),
        ("not json at all", "invalid_json"),
        ("[" * 60_000, "invalid_json"),  # deeper than the JSON decoder's recursion (and within the size kept)
        ('{"n": ' + "9" * 5000 + "}", "invalid_json"),  # more digits than Python converts to an int
        ("[1, 2]", "invalid_arguments"),
        ('"n"', "invalid_arguments"),
        (["n", 1], "invalid_arguments"),
        ("", "invalid_arguments"),
        ({}, "invalid_arguments"),
        ({"n": "three"}, "invalid_arguments"),
        ({"n": -1}, "invalid_arguments"),
        ({"n": 1, "extra": True}, "invalid_arguments"),
    ],
)
def test_it_blocks_bad_arguments_with_an_error_the_model_sees(run, arguments, code):
    result = harness_with(run).call("items", arguments)

    invocation = ToolInvocation.objects.get(pk=result.invocation_id)
    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, code)
    assert (invocation.status, invocation.error_code, invocation.payload_sha256) == (InvocationStatus.BLOCKED, code, "")
    assert result.projection["invocation_id"] == str(result.invocation_id)
    assert result.projection["error_code"] == code
    assert result.projection["error"]


def test_it_names_every_schema_error(run):
    result = harness_with(run).call("items", {"text": 5})

    assert "'n' is a required property" in result.projection["error"]
    assert "$.text: 5 is not of type 'string'" in result.projection["error"]


def test_it_blocks_an_unknown_tool_and_lists_the_known_ones(run):
    result = harness_with(run).call("drop_database", {"n": 1})

    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, "unknown_tool")
    assert "items" in result.projection["error"]
    # The name is the model's text, which the trace's readers must not see: the row says no tool had it.
    assert ToolInvocation.objects.get(pk=result.invocation_id).tool_name == "unknown_tool"


def test_a_long_unknown_tool_name_is_not_kept_either(run):
    result = harness_with(run).call("maybe the root cause is hunter2 " + "x" * 300, {"n": 1})

    assert ToolInvocation.objects.get(pk=result.invocation_id).tool_name == "unknown_tool"


def test_it_records_the_digest_and_shape_of_the_arguments_never_their_text(run):
    secret = "SELECT card_number FROM payments WHERE " + "y" * 5000

    result = harness_with(run).call("items", json.dumps({"n": 1, "text": secret}))

    row = ToolInvocation.objects.filter(pk=result.invocation_id).values().get()
    canonical = canonical_json({"n": 1, "text": secret})
    assert (row["args_sha256"], row["args_shape"]) == (
        sha256_hex(canonical),
        {"n": "int", "text": f"str({len(secret)})"},
    )
    assert not any("card_number" in str(value) for value in row.values())
    # The text itself stays in the invocation store for its TTL, where the digest checks it.
    assert load_arguments(ToolInvocation.objects.get(pk=result.invocation_id)) == canonical.decode()


@pytest.mark.parametrize("as_text", [True, False])
def test_arguments_too_large_to_keep_are_refused_and_only_their_digest_and_shape_recorded(run, as_text):
    """Megabytes of arguments (a model looping on one string) would sit in the invocation store for a day."""
    arguments = {"n": 1, "text": "x" * MAX_ARGUMENTS_BYTES}
    handled = []

    result = harness_with(run, make_tool(lambda a, c: handled.append(a) or items(a, c))).call(
        "items", json.dumps(arguments) if as_text else arguments
    )

    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, "arguments_too_large")
    assert str(MAX_ARGUMENTS_BYTES) in result.projection["error"] and handled == []
    invocation = ToolInvocation.objects.get(pk=result.invocation_id)
    assert invocation.args_sha256 == sha256_hex(canonical_json(arguments))
    assert invocation.args_shape == {"n": "int", "text": f"str({MAX_ARGUMENTS_BYTES})"}
    assert cache.get(arguments_key(invocation.pk)) is None


def test_equal_arguments_have_equal_digests_however_they_are_spaced(run):
    spaced = harness_with(run).call("items", '{ "text" : "a",  "n": 2 }')
    compact = harness_with(run).call("items", {"n": 2, "text": "a"})

    digests = {ToolInvocation.objects.get(pk=result.invocation_id).args_sha256 for result in (spaced, compact)}
    assert len(digests) == 1


@pytest.mark.parametrize(
    ("arguments", "shape"),
    [
        ("{broken", "str(7)"),
        ("[1, 2]", "str(6)"),
        (["n", 1], "array(2)"),
        ("", {}),
        (
            {"n": None, "flag": True, "ratio": 0.5, "tags": ["a"], "filter": {"a": 1}},
            {"filter": "object(1)", "flag": "bool", "n": "null", "ratio": "float", "tags": "array(1)"},
        ),
    ],
)
def test_it_records_the_shape_of_any_arguments_and_keeps_unparsed_text_as_it_came(run, arguments, shape):
    result = harness_with(run).call("items", arguments)

    invocation = ToolInvocation.objects.get(pk=result.invocation_id)
    assert invocation.args_shape == shape
    if isinstance(arguments, str) and shape != {}:
        assert invocation.args_sha256 == sha256_hex(arguments.encode())
        assert load_arguments(invocation) == arguments


def test_it_bounds_the_shape_of_arguments_with_many_long_keys(run):
    arguments = {f"{index:02d}" + "k" * 100: index for index in range(30)}

    shape = ToolInvocation.objects.get(pk=harness_with(run).call("items", arguments).invocation_id).args_shape

    assert len(shape) == MAX_SHAPE_KEYS + 1
    assert shape["…"] == "10 more keys"
    assert all(len(key) <= MAX_KEY_CHARS for key in shape)


def test_it_shows_no_arguments_once_the_store_lost_them_or_they_were_altered(run):
    invocation = ToolInvocation.objects.get(pk=harness_with(run).call("items", {"n": 1}).invocation_id)

    cache.set(arguments_key(invocation.pk), b'{"n":2}')
    assert load_arguments(invocation) is None
    cache.delete(arguments_key(invocation.pk))
    assert load_arguments(invocation) is None


def test_it_numbers_the_calls_of_a_run_across_harnesses(run, other_run):
    first = harness_with(run).call("items", {"n": 1})
    harness_with(other_run).call("items", {"n": 1})
    second = harness_with(run).call("nope", {})
    third = harness_with(run).call("items", {"n": 1})

    seqs = [ToolInvocation.objects.get(pk=result.invocation_id).seq for result in (first, second, third)]
    assert seqs == [1, 2, 3]


def test_it_blocks_calls_over_the_run_budget_even_from_a_new_harness(run, other_run, settings):
    settings.TOOL_MAX_CALLS_PER_RUN = 2
    harness_with(run).call("items", {"n": 1})
    harness_with(run).call("items", {"n": 1})

    blocked = harness_with(run).call("items", {"n": 1})

    assert (blocked.status, blocked.error_code) == (InvocationStatus.BLOCKED, "call_budget_exhausted")
    assert ToolInvocation.objects.filter(run=run).count() == 3
    assert harness_with(other_run).call("items", {"n": 1}).status == InvocationStatus.READY


def test_it_hands_the_row_budget_to_the_handler(run, settings):
    settings.TOOL_MAX_ROWS = 4

    result = harness_with(run).call("items", {"n": 10})

    assert result.projection["truncated"] is True
    assert len(result.projection["items"]) == 4
    assert ToolInvocation.objects.get(pk=result.invocation_id).row_count == 4


def test_it_fails_a_call_that_runs_past_its_time_budget(run, settings):
    settings.TOOL_TIMEOUT_SECONDS = 0.05

    def slow(arguments, context):
        time.sleep(0.1)
        return items(arguments, context)

    result = harness_with(run, make_tool(slow)).call("items", {"n": 1})

    invocation = ToolInvocation.objects.get(pk=result.invocation_id)
    assert (result.status, result.error_code) == (InvocationStatus.FAILED, "timeout")
    assert (invocation.payload_sha256, invocation.payload_bytes) == ("", 0)
    assert invocation.latency_ms >= 100


def test_it_gives_the_handler_a_deadline_of_the_time_budget(run, settings):
    settings.TOOL_TIMEOUT_SECONDS = 7
    seen = []

    def remember(arguments, context):
        seen.append(context.deadline - time.monotonic())
        return items(arguments, context)

    harness_with(run, make_tool(remember)).call("items", {"n": 1})

    assert 6 < seen[0] <= 7


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (ToolInputError("invalid_window", "start must be before end"), InvocationStatus.BLOCKED, "invalid_window"),
        (ToolBackendError("sql_error", "no such column: nope"), InvocationStatus.FAILED, "sql_error"),
        (DatabaseError("disk I/O error"), InvocationStatus.FAILED, "backend_error"),
    ],
)
def test_it_turns_handler_errors_into_recorded_tool_errors(run, error, status, code):
    def failing(arguments, context):
        raise error

    result = harness_with(run, make_tool(failing)).call("items", {"n": 1})

    assert (result.status, result.error_code) == (status, code)
    assert ToolInvocation.objects.get(pk=result.invocation_id).status == status
    assert str(error) in result.projection["error"]


def test_it_does_not_hide_a_bug_in_a_handler(run):
    def buggy(arguments, context):
        return {}["missing"]

    with pytest.raises(KeyError):
        harness_with(run, make_tool(buggy)).call("items", {"n": 1})


def test_it_cuts_an_oversized_payload_keeping_every_path(run, settings):
    settings.TOOL_MAX_PAYLOAD_BYTES = 300
    tool = make_tool(truncation=Truncation("items", flag_key="truncated"))

    result = harness_with(run, tool).call("items", {"n": 50, "text": "x" * 20})

    invocation = ToolInvocation.objects.get(pk=result.invocation_id)
    payload = load_verified_payload(run.id, result.invocation_id).payload
    assert result.status == InvocationStatus.READY
    assert payload["truncated"] is True
    assert payload["items"] == [f"{'x' * 20}-{index}" for index in range(len(payload["items"]))]
    assert 0 < invocation.row_count == len(payload["items"]) < 50
    assert invocation.payload_bytes <= 300
    assert len(canonical_json(payload)) == invocation.payload_bytes


def test_it_blocks_an_oversized_payload_it_cannot_cut(run, settings):
    settings.TOOL_MAX_PAYLOAD_BYTES = 300

    result = harness_with(run).call("items", {"n": 50})

    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, "payload_too_large")
    assert "300-byte budget" in result.projection["error"]


def test_it_blocks_a_payload_whose_first_item_alone_is_over_budget(run, settings):
    settings.TOOL_MAX_PAYLOAD_BYTES = 300
    tool = make_tool(truncation=Truncation("items", flag_key="truncated"))

    result = harness_with(run, tool).call("items", {"n": 3, "text": "x" * 400})

    invocation = ToolInvocation.objects.get(pk=result.invocation_id)
    assert (result.status, result.error_code) == (InvocationStatus.BLOCKED, "payload_too_large")
    assert (invocation.payload_sha256, invocation.payload_bytes) == ("", 0)


def test_it_bounds_the_projection_and_says_what_it_left_out(run, settings):
    settings.TOOL_MAX_ROWS = 5000

    result = harness_with(run).call("items", {"n": 5000, "text": "y" * 40})

    assert size_of(result.projection) < PROJECTION_MAX_CHARS + 500
    assert result.projection["omitted"] == 5000 - len(result.projection["items"])
    assert result.projection["note"]


def test_it_reports_each_call_after_recording_it(run):
    seen = []

    def on_call(tool_name, status):
        seen.append((tool_name, status, ToolInvocation.objects.filter(run=run).count()))

    harness = harness_with(run, on_call=on_call)
    harness.call("items", {"n": 1})
    harness.call("items", "{")

    assert seen == [("items", "READY", 1), ("items", "BLOCKED", 2)]
