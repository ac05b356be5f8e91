"""Live progress of a run: each report is one timeline event and one SSE ``status`` event.

Nodes and the tool harness report through this object only, so what a user watches and what an auditor
reads afterwards are the same sequence. Reports also refresh the run's heartbeat for the reaper.
"""

from __future__ import annotations

import time
import uuid

from django.db import transaction

from diagnosis import sse
from diagnosis.services import run_heartbeat
from tracing.models import TraceEventKind
from tracing.selectors import NODE_FINISHED
from tracing.timeline import append_event


HEARTBEAT_EVERY_SECONDS = 5.0


class RunProgress:
    def __init__(self, run_id: uuid.UUID | str) -> None:
        self.run_id = run_id
        self._last_heartbeat = float("-inf")

    def status(self, node: str, phase: str, detail: str = "") -> None:
        """A node started or ended (``phase``: started|completed|retrying|failed...)."""
        append_event(self.run_id, TraceEventKind.NODE, f"{node}_{phase}", {"node": node, "phase": phase, "detail": detail})
        self._publish({"node": node, "phase": phase, "detail": detail})

    def node_finished(self, *, node: str, outcome: str, reason_code: str, attempt: int) -> None:
        """One graph node attempt ended: the orchestration event, kept in the timeline as well.

        If the worker dies, the reaper rebuilds the partial orchestration trace from these rows.
        """
        details = {"node": node, "outcome": outcome, "reason_code": reason_code, "attempt": attempt}
        append_event(self.run_id, TraceEventKind.NODE, NODE_FINISHED, details)
        self._publish({"node": node, "phase": "finished", "detail": outcome})

    def tool(self, tool_name: str, status: str) -> None:
        """A tool call finished; its name is streamed as it happens."""
        append_event(self.run_id, TraceEventKind.TOOL, "tool_called", {"tool": tool_name, "status": status})
        self._publish({"node": "executor", "phase": "tool", "detail": f"{tool_name} {status}".strip()})

    def _publish(self, data: dict[str, str]) -> None:
        # The reaper's limit is minutes; one heartbeat write every few seconds is plenty.
        if time.monotonic() - self._last_heartbeat >= HEARTBEAT_EVERY_SECONDS:
            run_heartbeat(self.run_id)
            self._last_heartbeat = time.monotonic()
        transaction.on_commit(lambda: sse.publish(self.run_id, "status", data))
