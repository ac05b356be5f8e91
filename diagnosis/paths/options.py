"""Per-run execution choices that are not settings (what ``manage.py diagnose`` may override), and the
run's model budget, fixed when the run starts executing."""

from __future__ import annotations

from dataclasses import dataclass

from diagnosis.providers.deadline import Deadline


@dataclass(frozen=True)
class ExecutionOptions:
    provider: str | None = None  # None: settings.LLM_PROVIDER
    script_path: str | None = None  # None: settings.LLM_SCRIPT_PATH
    model_deadline: Deadline | None = None  # set by ``run_execute``; None: no budget (a path called directly)
