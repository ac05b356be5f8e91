"""SYSTEM_CHAT: greetings and help get a fixed answer in the message's language; no tools, no model."""

from __future__ import annotations

from diagnosis.intent import system_chat_answer
from diagnosis.models import DiagnosisRun
from diagnosis.paths.options import ExecutionOptions
from diagnosis.progress import RunProgress
from diagnosis.services import RunResult


def execute(run: DiagnosisRun, progress: RunProgress, options: ExecutionOptions) -> RunResult:
    progress.status("system_chat", "completed")
    return RunResult(final_answer=system_chat_answer(run.query), self_evaluation={"path": "system_chat"})
