"""Live progress of a run: each report is one row of the run's event log, a timeline event that is also
the SSE ``status`` event.

A ``status`` event is ``{node, phase, detail, args}``: ``detail`` is the line as the worker writes it (English,
for logs and old readers), ``args`` the values it was written from, by phase, which the chat page formats in
its reader's language (``static/js/chat.js``) — node and tool names, codes and numbers stay as they are:

=============== ============================================================================
phase           args
=============== ============================================================================
started,        ``attempt`` (int) and the planner's ``mode`` (``normal``, ``evidence_gap_only``) when the
completed       node says them (``normal attempt 1``), ``excerpts`` (int, ``3 cited excerpts``); else ``{}``
finished        ``outcome`` (the node attempt's status), ``reason_code``, ``attempt``
tool            ``tool`` (a known tool name or ``unknown_tool``), ``status`` (READY, FAILED, BLOCKED)
evidence        ``passed``, ``total`` (claims)
semantic_guard  ``verdict`` (RELEASE, BLOCK, FAILED), ``attempt``
release         ``decision`` (released, blocked), ``rule``, ``attempt``
=============== ============================================================================

Reports are held back by the run's log for at most ``RUN_EVENT_LINGER_MS`` and written together, one
INSERT for all of them, then announced (``tracing.timeline``); ``flush`` writes them at once, and the run
calls it before every wait outside its process (``config.run_scope``) and before it ends.

Nodes and the tool harness report through this object only, so what a user watches and what an auditor
reads afterwards are the same sequence. Reports also refresh the run's heartbeat for the reaper, by time:
at most one write per ``RUN_HEARTBEAT_SECONDS`` (the first report always writes it), not one per event.
A run that another writer ended is noticed by the heartbeat's conditional update, and sooner when that
writer appended to the run's log (the reaper's ``failure`` and ``done``): the next report's number is
taken, and the report checks the run before it writes after them.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from django.conf import settings
from django.db import DatabaseError, transaction

from diagnosis import sse
from diagnosis.selectors import run_stop_requested
from diagnosis.services import run_heartbeat
from tools.names import TOOL_NAMES, UNKNOWN_TOOL
from tracing.events import TimelineEvent
from tracing.models import DiagnosisTraceEvent, TraceEventKind
from tracing.timeline import RunLog


def status_detail(*, attempt: int | None = None, mode: str = "", excerpts: int | None = None) -> str:
    """A node's ``status`` line in English, from the values the page formats itself (``args``)."""
    if excerpts is not None:
        return f"{excerpts} cited excerpt{'' if excerpts == 1 else 's'}"
    if attempt is not None:
        return f"{mode} attempt {attempt}" if mode else f"attempt {attempt}"
    return ""


# Inside a node (between an executor's model turns) a stop is asked at most this often: a run of quick turns
# asks no more than its node boundaries do, a slow model's turn is not followed by another once cancelled.
STOP_CHECK_SECONDS = 1.0


class RunEnded(Exception):
    """The run left RUNNING while its worker was still busy (the reaper ended it): stop working on it."""


class EventLogUnwritable(Exception):
    """The run's held reports could not be written. Not a ``DatabaseError``: ``flush`` runs inside tool
    handlers (before they wait), where a database error is the tool's own failure, not the run's."""


class RunProgress:
    def __init__(self, run_id: uuid.UUID | str) -> None:
        self.run_id = run_id
        self._heartbeat_at: float | None = None
        self._claim_checked = False
        self._stop_checked_at = time.monotonic()
        # The thread writing the run's end (``ending``): a write of the log that meets another writer's rows
        # stops the worker when that writer ended the run (the reaper), except the terminal events this
        # worker writes itself after ending it (``run_fail``), which must still be written.
        self._ending: int | None = None
        # The run's log as its owner numbers it; ``execution`` registers it for the run's other writers.
        self.log = RunLog(
            run_id,
            on_foreign_write=self._on_foreign_write,
            on_flushed=self._announce,
            linger=settings.RUN_EVENT_LINGER_MS / 1000,
        )

    def claimed(self) -> None:
        """The claim has just written the heartbeat and found the run RUNNING and not cancelled: neither the
        first report nor the first node boundary asks again."""
        self._heartbeat_at = time.monotonic()
        self._claim_checked = True

    def stop_requested(self) -> bool:
        """Whether the run must stop (``run_stop_requested``), asked at a node boundary; the first boundary
        after the claim takes the claim's answer."""
        self._stop_checked_at = time.monotonic()
        if self._claim_checked:
            self._claim_checked = False
            return False
        return run_stop_requested(self.run_id)

    def stop_requested_inside(self) -> bool:
        """``stop_requested`` inside a node, before it waits again (a model's next turn): asked only when
        ``STOP_CHECK_SECONDS`` have passed since the last question, by the boundary or here."""
        if time.monotonic() - self._stop_checked_at < STOP_CHECK_SECONDS:
            return False
        self._stop_checked_at = time.monotonic()
        return run_stop_requested(self.run_id)

    def flush(self) -> None:
        """Store and announce the reports held back so far; RunEnded when the run was ended meanwhile."""
        try:
            self.log.flush()
        except DatabaseError as error:
            raise EventLogUnwritable(f"run {self.run_id}: its progress reports could not be written") from error

    @contextmanager
    def ending(self) -> Iterator[None]:
        """While this worker writes the end of its run (``run_finish``, ``run_fail``)."""
        self._ending = threading.get_ident()
        try:
            yield
        finally:
            self._ending = None

    @staticmethod
    def _announce(rows: list[DiagnosisTraceEvent]) -> None:
        # Written inside a transaction (a report or a flush made inside one): announced after its commit.
        transaction.on_commit(lambda: sse.announce(rows))

    def status(
        self, node: str, phase: str, *, attempt: int | None = None, mode: str = "", excerpts: int | None = None
    ) -> None:
        """A node started or ended (``phase``: started|completed|retrying|failed...), with the attempt (and the
        planner's mode) or the knowledge path's count of cited excerpts when it has them."""
        values = {"attempt": attempt, "mode": mode, "excerpts": excerpts}
        args = {key: value for key, value in values.items() if value not in (None, "")}
        details = {"node": node, "phase": phase, "detail": status_detail(attempt=attempt, mode=mode, excerpts=excerpts)}
        self._report(TraceEventKind.NODE, f"{node}_{phase}", details, {**details, "args": args})

    def node_finished(self, *, node: str, outcome: str, reason_code: str, attempt: int) -> None:
        """One graph node attempt ended: the orchestration event, kept in the timeline as well.

        If the worker dies, the reaper rebuilds the partial orchestration trace from these rows.
        """
        details = {"node": node, "outcome": outcome, "reason_code": reason_code, "attempt": attempt}
        self._report(
            TraceEventKind.NODE,
            TimelineEvent.NODE_FINISHED,
            details,
            {
                "node": node,
                "phase": "finished",
                "detail": outcome,
                "args": {"outcome": outcome, "reason_code": reason_code, "attempt": attempt},
            },
        )

    def tool(self, tool_name: str, status: str) -> None:
        """A tool call finished; its name is reported with its status (a name no tool has is not echoed)."""
        name = tool_name if tool_name in TOOL_NAMES else UNKNOWN_TOOL
        args = {"tool": name, "status": status}
        stream = {"node": "executor", "phase": "tool", "detail": f"{name} {status}", "args": dict(args)}
        self._report(TraceEventKind.TOOL, TimelineEvent.TOOL_CALLED, args, stream)

    def evidence(self, *, node: str, status: str, claims: list[str], passed: int) -> None:
        """The EvidenceGuard's verdict on each claim (``c1 verified``, ``c2 excerpt_not_found``)."""
        details = {"status": status, "claims": claims, "passed": passed, "failed": len(claims) - passed}
        stream = {
            "node": node,
            "phase": "evidence",
            "detail": f"{passed} of {len(claims)} claims verified",
            "args": {"passed": passed, "total": len(claims)},
        }
        self._report(TraceEventKind.EVIDENCE, TimelineEvent.EVIDENCE_CHECKED, details, stream)

    def semantic(self, *, attempt: int, verdict: str, unsupported: int, guard_version: str) -> None:
        """The SemanticGuard's verdict on one draft: counts only, the sentences stay in the restricted audit."""
        details = {"attempt": attempt, "verdict": verdict, "unsupported": unsupported, "guard_version": guard_version}
        stream = {
            "node": "composer",
            "phase": "semantic_guard",
            "detail": verdict,
            "args": {"verdict": verdict, "attempt": attempt},
        }
        self._report(TraceEventKind.SEMANTIC, TimelineEvent.SEMANTIC_GUARD_REVIEWED, details, stream)

    def release(
        self, *, node: str, attempt: int, decision: str, rule: str, rules: list[str], policy_version: str
    ) -> None:
        """Whether a draft may be shown, and the rule that decided (``passed``, ``ungrounded_token``...)."""
        details = {
            "attempt": attempt,
            "decision": decision,
            "rule": rule,
            "rules": rules,
            "policy_version": policy_version,
        }
        stream = {
            "node": node,
            "phase": "release",
            "detail": f"{decision} ({rule})",
            "args": {"decision": decision, "rule": rule, "attempt": attempt},
        }
        self._report(TraceEventKind.RELEASE, TimelineEvent.RELEASE_DECIDED, details, stream)

    def _check_running(self) -> None:
        # The heartbeat is a conditional update: when it matches nothing the run has already ended and its
        # stream already has its ``done``, so nothing more may be recorded or published for it.
        if not run_heartbeat(self.run_id):
            raise RunEnded(f"run {self.run_id} is no longer RUNNING")
        self._heartbeat_at = time.monotonic()

    def _on_foreign_write(self) -> None:
        # Any write of the owner's (a report, a held step lingering past its time), not only a report: after
        # the reaper's ``done`` nothing more may be stored, steps included.
        if self._ending != threading.get_ident():
            self._check_running()

    def _report(
        self, kind: TraceEventKind, name: str, details: Mapping[str, object], stream: Mapping[str, object]
    ) -> None:
        if self._heartbeat_at is None or time.monotonic() - self._heartbeat_at >= settings.RUN_HEARTBEAT_SECONDS:
            self._check_running()
        # The row is the report itself, not news about other rows to commit: announced once stored.
        sse.hold(self.log, "status", dict(stream), timeline=sse.TimelineEntry(kind, name, details))
