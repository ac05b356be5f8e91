"""What the node actions of one run share: the run's identity, question, models, tools and progress.

Built once per run by the diagnosis path and bound into the actions, so that the graph state only carries
control data and structured results, never clients, connections or prompts.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from diagnosis.progress import RunProgress
from diagnosis.providers.base import RoleModels
from diagnosis.providers.deadline import Deadline
from tools.harness import ToolHarness
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
    progress: RunProgress
    # The run's model budget (the models enforce it; the executor stops running tools once it is spent).
    model_deadline: Deadline | None = None
    # Summaries of every tool call of the run, in order: the evidence retry's "completed queries".
    tool_calls: list[str] = field(default_factory=list)
    release: ReleaseLog = field(default_factory=ReleaseLog)
    # The run's model steps, numbered in memory.
    steps: StepLog = field(init=False)

    def __post_init__(self) -> None:
        self.steps = StepLog(self.run_id)
