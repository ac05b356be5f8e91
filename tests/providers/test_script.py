"""Script files: every accepted form, and a clear one-line refusal for each kind of bad file."""

from __future__ import annotations

import json

import pytest

from diagnosis.providers.base import ErrorCode, ProviderConfigError, Role
from diagnosis.providers.script import ScriptedReply, ScriptedToolCall, ScriptError, load_script


@pytest.fixture
def write_script(tmp_path):
    def write(data: object) -> str:
        path = tmp_path / "script.json"
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
        return str(path)

    return write


def test_it_loads_every_reply_form(write_script):
    path = write_script(
        {
            "planner": ['{"mode": "NORMAL"}', {"content": "again {{inv:1}}"}],
            "executor": [
                {"tool_calls": [{"name": "query_logs", "arguments": {"service": "payment", "note": "ü"}}]},
                {"tool_calls": [{"name": "query_metrics", "arguments": '{"service": "payment"'}]},
                {"content": "final", "reasoning_content": "I looked at {{inv:2}}", "delay_seconds": 0.5},
            ],
            "verifier": [{"error": "rate_limit"}, {"error": "bad_request", "delay_seconds": 2}],
        }
    )

    script = load_script(path)

    assert script.for_role(Role.PLANNER) == (
        ScriptedReply(content='{"mode": "NORMAL"}'),
        ScriptedReply(content="again {{inv:1}}"),
    )
    executor = script.for_role(Role.EXECUTOR)
    assert executor[0].tool_calls == (
        ScriptedToolCall(name="query_logs", arguments='{"service": "payment", "note": "ü"}'),
    )
    assert executor[1].tool_calls[0].arguments == '{"service": "payment"', "string arguments are kept verbatim"
    assert executor[2] == ScriptedReply(content="final", reasoning_content="I looked at {{inv:2}}", delay_seconds=0.5)
    assert [reply.error for reply in script.for_role(Role.VERIFIER)] == [ErrorCode.RATE_LIMIT, ErrorCode.BAD_REQUEST]
    assert script.for_role(Role.COMPOSER) == ()


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ("{not json", "not valid JSON (Expecting property name enclosed in double quotes at line 1 column 2)"),
        ('{"planner": ' + "9" * 5000 + "}", "not valid JSON (Exceeds the limit (4300 digits)"),
        ([], "must be a JSON object keyed by role"),
        ({"planer": []}, "unknown role 'planer'"),
        ({"planner": "hello"}, "planner: must be a list of replies"),
        ({"planner": [7]}, "planner[0]: a reply is a string or an object"),
        ({"planner": [{}]}, "planner[0]: needs content, tool_calls or error"),
        ({"planner": [{"text": "hi"}]}, "planner[0]: unknown key 'text'"),
        ({"planner": [{"content": None}]}, "planner[0].content: must be a string"),
        ({"verifier": ["ok", {"error": "exploded"}]}, "verifier[1].error: must be one of timeout, rate_limit"),
        ({"verifier": [{"error": "script_exhausted"}]}, "verifier[0].error: must be one of"),
        ({"verifier": [{"error": "timeout", "content": "x"}]}, "verifier[0]: an error reply has no content"),
        ({"executor": [{"tool_calls": []}]}, "executor[0].tool_calls: must be a non-empty list"),
        ({"executor": [{"tool_calls": [{"name": "q"}]}]}, "executor[0].tool_calls[0]: must be an object with exactly"),
        ({"executor": [{"tool_calls": [{"name": "", "arguments": {}}]}]}, "executor[0].tool_calls[0].name"),
        ({"executor": [{"tool_calls": [{"name": "q", "arguments": 3}]}]}, "tool_calls[0].arguments: must be an object"),
        ({"composer": [{"content": "x", "delay_seconds": -1}]}, "composer[0].delay_seconds: must be a number"),
        ({"composer": [{"content": "x", "delay_seconds": True}]}, "composer[0].delay_seconds: must be a number"),
        ({"composer": [{"content": "x", "delay_seconds": 1e10}]}, "composer[0].delay_seconds: must be a number"),
        ({"composer": ["cite {{inv:0}}"]}, "composer[0]: {{inv:0}} must name a tool invocation number from 1"),
        ({"composer": [{"content": "cite {{inv:first}}"}]}, "composer[0].content: {{inv:first}} must name"),
        (
            {"executor": [{"tool_calls": [{"name": "q", "arguments": {"id": "{{inv:-1}}"}}]}]},
            "executor[0].tool_calls[0].arguments: {{inv:-1}}",
        ),
    ],
)
def test_it_names_the_problem_in_a_bad_script(write_script, data, problem):
    path = write_script(data)

    with pytest.raises(ScriptError) as caught:
        load_script(path)

    assert str(caught.value).startswith(f"script {path}: ")
    assert problem in str(caught.value)
    assert isinstance(caught.value, ProviderConfigError), "the CLI exits 2 on every ProviderConfigError"


def test_it_names_a_missing_file(tmp_path):
    with pytest.raises(ScriptError, match=r"missing\.json: cannot be read"):
        load_script(tmp_path / "missing.json")


def test_it_refuses_a_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"planner": ["café"]}'.encode("latin-1"))

    with pytest.raises(ScriptError, match="cannot be read"):
        load_script(path)


def test_it_refuses_a_file_past_its_size_without_reading_it_whole():
    # /dev/zero never ends: a script read whole would take the machine's memory.
    with pytest.raises(ScriptError, match="larger than 16 MiB"):
        load_script("/dev/zero")
