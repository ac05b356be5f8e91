"""The errors a knowledge write ends with: a document or upload that cannot become searchable text, and a
document that another request deleted meanwhile."""

from __future__ import annotations


class DocumentRejected(ValueError):
    """Refused input, with a stable machine ``code`` (the API's error code) and a message for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class DocumentGone(LookupError):
    """The document was deleted after it was read, before this change could be written (the API's 404)."""
