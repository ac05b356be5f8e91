"""Per-run execution choices that are not settings: what ``manage.py diagnose`` may override."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExecutionOptions:
    provider: str | None = None  # None: settings.LLM_PROVIDER
    script_path: str | None = None  # None: settings.LLM_SCRIPT_PATH
