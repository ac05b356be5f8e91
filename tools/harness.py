"""The tool harness: every tool call of a run goes through ``ToolHarness.call``.

It is the boundary between the model and the evidence. Whatever the model sends (malformed JSON, an unknown
tool, arguments that break the schema, a call over budget), the call ends as a recorded invocation and a
tool error the model can read — never as an exception into the agent loop. For each call it:

1. parses and validates the arguments (BLOCKED ``invalid_json`` / ``unknown_tool`` / ``invalid_arguments``,
   or ``arguments_too_large`` past ``MAX_ARGUMENTS_BYTES``, whose text is then not stored);
2. enforces the run's call budget, counted from the run's ``tool_invocation`` rows (read once, then
   counted in memory: after the claim the run's worker is their only writer) so it holds across executor
   attempts; refused calls count too, so a model cannot loop on bad calls (BLOCKED
   ``call_budget_exhausted``);
3. runs the handler with a row budget and a deadline (FAILED ``timeout`` past ``TOOL_TIMEOUT_SECONDS``);
4. cuts a payload over ``TOOL_MAX_PAYLOAD_BYTES`` to fit, or BLOCKS it (``payload_too_large``);
5. stores the canonical arguments and payload (TTL, one write), then records the ``tool_invocation`` row
   (one insert, numbered in memory) — metadata only: digests, sizes, the arguments' shape, never their
   text — and calls ``on_call(tool_name, status)``.

Outside a node attempt each call writes its row and store entries before it returns. Within ``attempt()``
(the executor's node attempt) they are kept in memory and written together when the attempt ends, in one
transaction: the store entries in one write, the rows in one insert. Nobody waits for them meanwhile: the
progress event of each call is still reported at the call, and the gatekeeper and the fallback read the
rows in later node attempts; ``flush()`` writes them earlier for a reader that cannot wait (the
``{{inv:N}}`` resolver). A worker killed mid-attempt loses that attempt's rows and entries; its
timeline still names every call it made (decisions.md, "Tool invocation rows written per executor attempt").

A bug in a handler (any other exception) is not disguised as a tool error: it propagates like any bug.

Time is enforced cooperatively: a Python thread cannot be killed, so handlers bound their own work with the
deadline (the SQL connections set a statement timeout from it) and a call that still ends late is FAILED
``timeout`` with its payload discarded.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import Count, Max

from tools.arguments import RecordedArguments, record_arguments
from tools.errors import ToolError, ToolTimeout
from tools.models import InvocationStatus, ToolInvocation
from tools.names import UNKNOWN_TOOL
from tools.projection import PROJECTION_MAX_CHARS, clip
from tools.registry import CallContext, Tool, ToolOutput, ToolRegistry, default_registry
from tools.store import canonical_json, invocation_entries, put_entries, sha256_hex
from tools.truncation import fit_payload

logger = logging.getLogger(__name__)

# Far past any tool's arguments (a SQL statement's 10 000 characters). A model sending megabytes would fill the
# invocation store (Redis, in production) with them for a day, for a call that is refused anyway.
MAX_ARGUMENTS_BYTES = 64 * 1024
ARGUMENTS_TOO_LARGE = "arguments_too_large"

OnCall = Callable[[str, str], None]


@dataclass(frozen=True)
class ToolResult:
    """What the agent loop gets back; ``projection`` is the JSON-able view to hand the model."""

    invocation_id: uuid.UUID
    tool_name: str
    status: InvocationStatus
    error_code: str
    projection: dict[str, Any]


@dataclass(frozen=True)
class _Outcome:
    status: InvocationStatus
    error_code: str = ""
    message: str = ""
    payload: dict[str, Any] | None = None
    canonical: bytes = b""
    row_count: int = 0


class ToolHarness:
    def __init__(
        self,
        run_id: uuid.UUID | str,
        *,
        on_call: OnCall | None = None,
        registry: ToolRegistry | None = None,
        empty: bool = False,
    ) -> None:
        """``empty``: the run has no calls yet (it was just claimed), so none are read to count them."""
        self.run_id = uuid.UUID(str(run_id))
        self.on_call = on_call
        self.registry = registry or default_registry()
        # (calls, last seq), read from the rows once
        self._recorded: tuple[int, int] | None = (0, 0) if empty else None
        # Within ``attempt()``: the rows and store entries of the calls not written yet; None outside.
        self._rows: list[ToolInvocation] | None = None
        self._entries: dict[str, bytes] = {}

    @contextmanager
    def attempt(self) -> Iterator[None]:
        """One node attempt: its calls' rows and store entries are written together when it ends, raised
        or not."""
        self._rows = []
        try:
            yield
        finally:
            try:
                self.flush()
            finally:
                self._rows = None

    def flush(self) -> None:
        """Write the rows and store entries kept so far in this attempt (entries first: a row found has
        its payload), in one transaction; nothing to do outside an attempt."""
        if not self._rows:
            return
        rows, entries = self._rows, self._entries
        with transaction.atomic():
            put_entries(entries)
            ToolInvocation.objects.bulk_create(rows)
        self._rows, self._entries = [], {}

    def _counts(self) -> tuple[int, int]:
        if self._recorded is None:
            rows = ToolInvocation.objects.filter(run_id=self.run_id).aggregate(calls=Count("id"), last=Max("seq"))
            self._recorded = rows["calls"], rows["last"] or 0
        return self._recorded

    def call(self, tool_name: str, arguments: dict[str, Any] | str) -> ToolResult:
        started = time.monotonic()
        invocation_id = uuid.uuid4()
        parsed, outcome = self._parse(arguments)
        # What did not parse is recorded as it came.
        recorded = record_arguments(parsed if outcome is None else arguments)
        kept = recorded.canonical if len(recorded.canonical) <= MAX_ARGUMENTS_BYTES else None
        if kept is None:
            outcome = _blocked(
                ARGUMENTS_TOO_LARGE,
                f"the arguments are {len(recorded.canonical)} bytes, over the {MAX_ARGUMENTS_BYTES}-byte limit",
            )
        tool = self.registry.get(tool_name)
        if outcome is None:
            if tool is None:
                known = ", ".join(self.registry.names)
                outcome = _blocked(UNKNOWN_TOOL, f"there is no tool {tool_name!r}; the tools are {known}")
            else:
                outcome = self._run(tool, parsed, started)
        entries = invocation_entries(invocation_id, kept, outcome.canonical if outcome.payload is not None else None)
        # A name no tool has is the model's text, which the trace's readers must not see (the restricted
        # reasoning audit keeps the model's whole answer).
        row = self._row(invocation_id, tool_name if tool else UNKNOWN_TOOL, recorded, outcome, started)
        if self._rows is None:
            put_entries(entries)
            row.save(force_insert=True)
        else:
            self._rows.append(row)
            self._entries.update(entries)
        if self.on_call is not None:
            self.on_call(tool_name, outcome.status.value)
        projection = self._project(invocation_id, tool_name, tool, outcome)
        return ToolResult(invocation_id, tool_name, outcome.status, outcome.error_code, projection)

    @staticmethod
    def _parse(arguments: dict[str, Any] | str) -> tuple[dict[str, Any], _Outcome | None]:
        if isinstance(arguments, dict):
            return arguments, None
        if not isinstance(arguments, str):
            return {}, _blocked("invalid_arguments", "arguments must be a JSON object")
        if not arguments.strip():
            # Some providers send "" for a call without arguments; the schema then names what is missing.
            return {}, None
        try:
            parsed = json.loads(arguments)
        except ValueError as error:
            # JSONDecodeError, or an integer longer than Python converts (``sys.get_int_max_str_digits``).
            return {}, _blocked("invalid_json", f"arguments are not valid JSON: {error}")
        except RecursionError:
            return {}, _blocked("invalid_json", "arguments are nested too deeply to read")
        if not isinstance(parsed, dict):
            return {}, _blocked("invalid_arguments", "arguments must be a JSON object")
        return parsed, None

    def _run(self, tool: Tool, arguments: dict[str, Any], started: float) -> _Outcome:
        errors = tool.schema_errors(arguments)
        if errors:
            return _blocked("invalid_arguments", "; ".join(errors[:5]))
        budget = settings.TOOL_MAX_CALLS_PER_RUN
        if self._counts()[0] >= budget:
            return _blocked(
                "call_budget_exhausted", f"this run has used its {budget} tool calls; answer with the evidence you have"
            )
        deadline = started + settings.TOOL_TIMEOUT_SECONDS
        context = CallContext(deadline=deadline, max_rows=settings.TOOL_MAX_ROWS)
        try:
            output = tool.handler(tool.with_integers(arguments), context)
            if time.monotonic() > deadline:
                raise ToolTimeout()
        except ToolError as error:
            return _Outcome(error.status, error.code, error.message)
        except DatabaseError as error:
            # The evidence tables are a backend like any other: a failed query is a FAILED call the model
            # can react to, not a crash of the run. Logged with its traceback for operators.
            logger.exception("tool %s failed on the database", tool.name)
            return _Outcome(InvocationStatus.FAILED, "backend_error", f"the backend failed: {error}")
        return _fit(tool, output)

    def _row(
        self, invocation_id: uuid.UUID, tool_name: str, arguments: RecordedArguments, outcome: _Outcome, started: float
    ) -> ToolInvocation:
        """The call's row, numbered and counted; the caller writes it now or with the attempt's rows."""
        calls, last_seq = self._counts()
        row = ToolInvocation(
            id=invocation_id,
            run_id=self.run_id,
            seq=last_seq + 1,
            tool_name=tool_name,
            args_sha256=arguments.sha256,
            args_shape=arguments.shape,
            status=outcome.status,
            error_code=outcome.error_code,
            row_count=outcome.row_count,
            payload_sha256=sha256_hex(outcome.canonical) if outcome.payload is not None else "",
            payload_bytes=len(outcome.canonical),
            latency_ms=int((time.monotonic() - started) * 1000),
        )
        self._recorded = calls + 1, last_seq + 1
        return row

    @staticmethod
    def _project(invocation_id: uuid.UUID, tool_name: str, tool: Tool | None, outcome: _Outcome) -> dict[str, Any]:
        view: dict[str, Any] = {"invocation_id": str(invocation_id), "tool": tool_name, "status": outcome.status.value}
        if outcome.payload is None or tool is None:
            return {**view, "error_code": outcome.error_code, "error": clip(outcome.message, 1000)}
        return {**view, **tool.project(outcome.payload, PROJECTION_MAX_CHARS)}


def _blocked(code: str, message: str) -> _Outcome:
    return _Outcome(InvocationStatus.BLOCKED, code, message)


def _fit(tool: Tool, output: ToolOutput) -> _Outcome:
    """A READY outcome within the byte budget: the payload as is, cut to fit, or BLOCKED; FAILED when a
    backend answered a value no payload can hold (a lone surrogate of a ``\\ud800`` escape in a log line)."""
    try:
        canonical = canonical_json(output.payload)
    except ValueError as error:  # UnicodeEncodeError, or a float no JSON writes
        logger.warning("tool %s answered a value JSON cannot hold: %s", tool.name, error)
        return _Outcome(
            InvocationStatus.FAILED, "backend_bad_response", f"the backend answered a value JSON cannot hold: {error}"
        )
    limit = settings.TOOL_MAX_PAYLOAD_BYTES
    if len(canonical) <= limit:
        return _Outcome(InvocationStatus.READY, payload=output.payload, canonical=canonical, row_count=output.row_count)
    fitted = fit_payload(output.payload, tool.truncation, limit) if tool.truncation else None
    if fitted is None:
        return _blocked(
            "payload_too_large",
            f"the result is {len(canonical)} bytes, over the {limit}-byte budget; narrow the window or the query",
        )
    return _Outcome(InvocationStatus.READY, payload=fitted.payload, canonical=fitted.canonical, row_count=fitted.items)
