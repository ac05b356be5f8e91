"""Errors a tool handler raises to end a call with a status the model can act on.

The harness turns each into a recorded invocation and a tool error the model sees, never an exception out
of the harness: ``ToolInputError`` (the call itself is refused, BLOCKED — the model should change its
arguments) and ``ToolBackendError`` (a well-formed call the backend could not answer, FAILED).
"""

from __future__ import annotations

from tools.models import InvocationStatus


class ToolError(Exception):
    """A call ended without a payload; ``code`` goes to ``tool_invocation.error_code``."""

    status: InvocationStatus = InvocationStatus.FAILED

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ToolInputError(ToolError):
    """The arguments are well-typed but not acceptable (bad window, refused SQL, too many points)."""

    status = InvocationStatus.BLOCKED


class ToolBackendError(ToolError):
    """The backend failed on a valid call (SQL error on a missing column, no scenario loaded)."""

    status = InvocationStatus.FAILED


class ToolTimeout(ToolBackendError):
    """The call ran past its wall-time budget."""

    def __init__(self, message: str = "the call ran past its time budget") -> None:
        super().__init__("timeout", message)
