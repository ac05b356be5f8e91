"""One module per intent path; each turns a claimed run into a ``RunResult`` or raises ``RunFailure``.

Each path module's ``execute`` is an ``IntentPath``; ``diagnosis.execution`` maps every intent to a loader
that imports its module on first use and returns that callable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from diagnosis.models import DiagnosisRun
    from diagnosis.paths.options import ExecutionOptions
    from diagnosis.progress import RunProgress
    from diagnosis.services import RunResult


class IntentPath(Protocol):
    """Execute a claimed run of one intent, reporting through ``progress``; raise ``RunFailure`` to fail it."""

    def __call__(self, run: DiagnosisRun, progress: RunProgress, options: ExecutionOptions) -> RunResult: ...
