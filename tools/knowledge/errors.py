"""The one error a knowledge write refuses with: a document or upload that cannot become searchable text."""

from __future__ import annotations


class DocumentRejected(ValueError):
    """Refused input, with a stable machine ``code`` (the API's error code) and a message for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
