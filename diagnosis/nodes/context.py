"""What the node actions of one run share: the run's identity, question, models, tools and progress.

Built once per run by the diagnosis path and bound into the actions, so that the graph state only carries
control data and structured results, never clients, connections or prompts.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from diagnosis.progress import RunProgress
from diagnosis.providers.base import RoleModels
from diagnosis.providers.deadline import Deadline
from tools.harness import ToolHarness
from tools.store import PayloadLookup, payload_loader
from tracing.steps import StepLog


@dataclass
class ReleaseLog:
    """The release guard's decisions on this run's drafts: for ``self_evaluation`` and the composer's retry."""

    decisions: list[dict[str, Any]] = field(default_factory=list)
    last_findings: list[dict[str, str]] = field(default_factory=list)
    """Why the latest draft was blocked (it quotes the draft): shown to the composer's retry, never published."""


@dataclass
class NodeContext:
    run_id: uuid.UUID
    question: str
    history: list[dict[str, str]]
    environment: dict[str, Any]
    models: RoleModels
    harness: ToolHarness
    # The run's model steps, numbered in memory.
    steps: StepLog
    progress: RunProgress
    # The run's model budget (the models enforce it; the executor stops running tools once it is spent).
    model_deadline: Deadline | None = None
    # Summaries of every tool call of the run, in order: the evidence retry's "completed queries".
    tool_calls: list[str] = field(default_factory=list)
    release: ReleaseLog = field(default_factory=ReleaseLog)
    # Payloads this run has verified (``payload_loader``), by invocation id.
    verified: dict[str, PayloadLookup] = field(default_factory=dict)

    def payload_loader(self, invocation_ids: Iterable[str]) -> Callable[[str], PayloadLookup]:
        """``tools.store.payload_loader`` for this run, remembering what it verified.

        The gatekeeper verifies the payloads the claims cite, and the answer's figures are drawn from the same
        payloads once the graph has ended: a payload verified once (its row READY and of this run, the stored
        bytes hashing to the row's digest) is kept as verified, not read, decoded and hashed a second time. A
        refused lookup is not remembered: it is asked again.
        """
        load = payload_loader(self.run_id, {str(key) for key in invocation_ids} - self.verified.keys())

        def lookup(invocation_id: str) -> PayloadLookup:
            found = self.verified.get(invocation_id) or load(invocation_id)
            if found.ok:
                self.verified[invocation_id] = found
            return found

        return lookup
