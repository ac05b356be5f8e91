"""The one controlled way for a path to end a run FAILED."""

from __future__ import annotations

from typing import Any

from diagnosis.failures import FailureCode


class RunFailure(Exception):
    """No safe answer can be produced; the run is FAILED with ``code`` (``detail`` after its sentence) and,
    for graph runs, a partial trace."""

    def __init__(
        self, code: FailureCode, orchestration_trace: dict[str, Any] | None = None, *, detail: str = ""
    ) -> None:
        super().__init__(code)
        self.code, self.orchestration_trace, self.detail = code, orchestration_trace, detail
