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
from tools.harness import ToolHarness


@dataclass
class NodeContext:
    run_id: uuid.UUID
    question: str
    history: list[dict[str, str]]
    environment: dict[str, Any]
    models: RoleModels
    harness: ToolHarness
    progress: RunProgress
    # Summaries of every tool call of the run, in order: the evidence retry's "completed queries".
    tool_calls: list[str] = field(default_factory=list)
