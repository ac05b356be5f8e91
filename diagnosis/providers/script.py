"""Load and check a model script (DESIGN.md "Model providers") before any run starts.

Everything about a script is checked here, up front, so that ``manage.py diagnose --script FILE`` can
refuse a bad file with one line naming the place (``planner[2].tool_calls[0]: ...``) and exit 2, instead
of a run failing half-way. Playing a checked script can then only fail in the ways the script asks for.

Format: ``{"planner": [R…], "executor": [R…], "verifier": [R…], "composer": [R…], "semantic_guard": [R…]}``;
a role may be left out when the run never reaches it (a draft whose guard has no reply left is blocked:
the guard fails closed). Each R is a string (content) or an object with ``content``,
``tool_calls`` (``[{"name", "arguments"}]``, arguments an object or a JSON string kept verbatim), both, or
``error`` alone; any of them may add ``reasoning_content`` (to exercise the reasoning audit) and
``delay_seconds`` (a slow model, e.g. to kill a worker mid-run).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diagnosis.providers.base import ErrorCode, ProviderConfigError, Role

# The four failures a script may ask for; the others are transport or script faults, not model replies.
SCRIPTABLE_ERRORS = (ErrorCode.TIMEOUT, ErrorCode.RATE_LIMIT, ErrorCode.SERVER_ERROR, ErrorCode.BAD_REQUEST)
REPLY_KEYS = frozenset({"content", "tool_calls", "error", "reasoning_content", "delay_seconds"})
TOOL_CALL_KEYS = frozenset({"name", "arguments"})

# Any ``{{inv:...}}`` so that a typo such as ``{{inv:x}}`` is refused rather than left in the text.
INVOCATION_PLACEHOLDER = re.compile(r"\{\{inv:([^}]*)\}\}")


class ScriptError(ProviderConfigError):
    """The script file cannot be played; the message names the file and the place."""


@dataclass(frozen=True)
class ScriptedToolCall:
    name: str
    arguments: str


@dataclass(frozen=True)
class ScriptedReply:
    content: str | None = None
    tool_calls: tuple[ScriptedToolCall, ...] = ()
    error: ErrorCode | None = None
    reasoning_content: str | None = None
    delay_seconds: float = 0.0


@dataclass(frozen=True)
class Script:
    replies: dict[Role, tuple[ScriptedReply, ...]] = field(default_factory=dict)

    def for_role(self, role: Role) -> tuple[ScriptedReply, ...]:
        return self.replies.get(role, ())


# A script is a test's or a demo's few replies; a file past this (or /dev/zero) is no script, and reading it
# whole would hold the memory it is.
MAX_SCRIPT_BYTES = 16 * 1024 * 1024
#: A day: longer than any test waits, shorter than what the clock can add to now.
MAX_DELAY_SECONDS = 86_400


def load_script(path: str | Path) -> Script:
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_SCRIPT_BYTES + 1)
        if len(raw) > MAX_SCRIPT_BYTES:
            raise ScriptError(f"script {path}: larger than {MAX_SCRIPT_BYTES // (1024 * 1024)} MiB")
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptError(f"script {path}: cannot be read ({exc})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScriptError(f"script {path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from exc
    except ValueError as exc:  # an integer longer than Python converts (``sys.get_int_max_str_digits``)
        raise ScriptError(f"script {path}: not valid JSON ({exc})") from exc
    except RecursionError:
        raise ScriptError(f"script {path}: not valid JSON (nested too deeply)") from None
    try:
        return parse_script(data)
    except ScriptError as exc:
        raise ScriptError(f"script {path}: {exc}") from exc


def parse_script(data: Any) -> Script:
    if not isinstance(data, dict):
        raise ScriptError(f"must be a JSON object keyed by role ({', '.join(Role)})")
    unknown = sorted(set(data) - set(Role))
    if unknown:
        raise ScriptError(f"unknown role {unknown[0]!r}; roles are {', '.join(Role)}")
    replies = {}
    for role in Role:
        raw = data.get(role.value, [])
        if not isinstance(raw, list):
            raise ScriptError(f"{role}: must be a list of replies")
        replies[role] = tuple(_reply(item, f"{role}[{index}]") for index, item in enumerate(raw))
    return Script(replies)


def _reply(raw: Any, where: str) -> ScriptedReply:
    if isinstance(raw, str):
        return ScriptedReply(content=_text(raw, where))
    if not isinstance(raw, dict):
        raise ScriptError(f"{where}: a reply is a string or an object")
    unknown = sorted(set(raw) - REPLY_KEYS)
    if unknown:
        raise ScriptError(f"{where}: unknown key {unknown[0]!r}; allowed: {', '.join(sorted(REPLY_KEYS))}")
    reply = ScriptedReply(
        content=_optional_text(raw, "content", where),
        tool_calls=_tool_calls(raw.get("tool_calls"), where),
        error=_error(raw.get("error"), where),
        reasoning_content=_optional_text(raw, "reasoning_content", where),
        delay_seconds=_delay(raw.get("delay_seconds", 0), where),
    )
    if reply.error is not None and (reply.content is not None or reply.tool_calls):
        raise ScriptError(f"{where}: an error reply has no content or tool_calls")
    if reply.error is None and reply.content is None and not reply.tool_calls:
        raise ScriptError(f"{where}: needs content, tool_calls or error")
    return reply


def _optional_text(raw: dict[str, Any], key: str, where: str) -> str | None:
    if key not in raw:
        return None
    if not isinstance(raw[key], str):
        raise ScriptError(f"{where}.{key}: must be a string")
    return _text(raw[key], f"{where}.{key}")


def _text(value: str, where: str) -> str:
    """Return ``value`` once every ``{{inv:N}}`` in it has a valid N (a positive integer)."""
    for match in INVOCATION_PLACEHOLDER.finditer(value):
        if not match.group(1).isdigit() or int(match.group(1)) < 1:
            raise ScriptError(f"{where}: {match.group(0)} must name a tool invocation number from 1")
    return value


def _tool_calls(raw: Any, where: str) -> tuple[ScriptedToolCall, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not raw:
        raise ScriptError(f"{where}.tool_calls: must be a non-empty list")
    return tuple(_tool_call(item, f"{where}.tool_calls[{index}]") for index, item in enumerate(raw))


def _tool_call(raw: Any, where: str) -> ScriptedToolCall:
    if not isinstance(raw, dict) or set(raw) != TOOL_CALL_KEYS:
        raise ScriptError(f"{where}: must be an object with exactly name and arguments")
    name, arguments = raw["name"], raw["arguments"]
    if not isinstance(name, str) or not name:
        raise ScriptError(f"{where}.name: must be a non-empty string")
    if isinstance(arguments, dict):
        arguments = json.dumps(arguments, ensure_ascii=False)
    elif not isinstance(arguments, str):
        raise ScriptError(f"{where}.arguments: must be an object or a JSON string")
    return ScriptedToolCall(name=name, arguments=_text(arguments, f"{where}.arguments"))


def _error(raw: Any, where: str) -> ErrorCode | None:
    if raw is None:
        return None
    if raw not in SCRIPTABLE_ERRORS:
        raise ScriptError(f"{where}.error: must be one of {', '.join(SCRIPTABLE_ERRORS)}")
    return ErrorCode(raw)


def _delay(raw: Any, where: str) -> float:
    # Bounded: a sleep of 1e10 s raised OverflowError inside the run (a failed run with a traceback), not here.
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 <= raw <= MAX_DELAY_SECONDS:
        raise ScriptError(f"{where}.delay_seconds: must be a number of seconds from 0 to {MAX_DELAY_SECONDS}")
    return float(raw)
