"""SYSTEM_CHAT: greetings and help get a fixed answer; no tools, no model."""

from __future__ import annotations

from diagnosis.intent import SYSTEM_CHAT_ANSWER
from diagnosis.models import DiagnosisRun
from diagnosis.paths.options import ExecutionOptions
from diagnosis.progress import RunProgress
from diagnosis.services import RunResult


def execute(run: DiagnosisRun, progress: RunProgress, options: ExecutionOptions) -> RunResult:
    progress.status("system_chat", "completed")
    return RunResult(final_answer=SYSTEM_CHAT_ANSWER, self_evaluation={"path": "system_chat"})
