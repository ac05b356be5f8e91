"""Holding an uploaded file to ``KNOWLEDGE_MAX_UPLOAD_BYTES`` while it arrives, not after.

Django's default upload handlers store a file of any size — in memory up to ``FILE_UPLOAD_MAX_MEMORY_SIZE``,
then in a temporary file — before a view can look at its size. This handler replaces them (it is the only
entry of ``FILE_UPLOAD_HANDLERS``): it keeps a file in memory while it is within the limit and, past it,
drops what it kept and only counts the rest. The file then arrives as an ``OversizedUpload`` that carries
its real size and no content, so ``uploads.read_upload`` answers its usual ``file_too_large`` (413) and
nothing of the file is kept. The rest of the request is still read (Django drains it), so the client gets
that answer rather than a reset connection. (Under ASGI Django has copied the request's whole body to a
temporary file before any handler runs, on disk past ``FILE_UPLOAD_MAX_MEMORY_SIZE``: ``config/body_limit.py``
caps that body at ``REQUEST_MAX_BYTES``.)

Knowledge documents are the project's only uploads, so their limit is the limit of every upload. Each file
of a request is bounded on its own; Django's ``DATA_UPLOAD_MAX_NUMBER_FILES`` bounds how many there are.
"""

from __future__ import annotations

from io import BytesIO
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import InMemoryUploadedFile, UploadedFile
from django.core.files.uploadhandler import FileUploadHandler


class OversizedUpload(UploadedFile):
    """A file refused for its size as it arrived: name and real size only; there is nothing to read."""

    def __init__(self, handler: FileUploadHandler, size: int) -> None:
        super().__init__(
            file=None,
            name=handler.file_name,
            content_type=handler.content_type,
            size=size,
            charset=handler.charset,
            content_type_extra=handler.content_type_extra,
        )


class LimitedMemoryUploadHandler(FileUploadHandler):
    """Keeps each uploaded file in memory up to ``KNOWLEDGE_MAX_UPLOAD_BYTES``; a larger one is only counted."""

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        self.limit: int = settings.KNOWLEDGE_MAX_UPLOAD_BYTES
        self.kept: BytesIO | None = BytesIO()

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        if start + len(raw_data) > self.limit:
            self.kept = None
        if self.kept is not None:
            self.kept.write(raw_data)

    def file_complete(self, file_size: int) -> UploadedFile:
        if self.kept is None:
            return OversizedUpload(self, file_size)
        self.kept.seek(0)
        return InMemoryUploadedFile(
            file=self.kept,
            field_name=self.field_name,
            name=self.file_name,
            content_type=self.content_type,
            size=file_size,
            charset=self.charset,
            content_type_extra=self.content_type_extra,
        )
