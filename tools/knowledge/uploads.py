"""Turning an uploaded file into text, or refusing it before anything is written.

Accepted: ``.md``, ``.markdown`` and ``.txt`` files, UTF-8 (a byte-order mark is dropped), at most
``KNOWLEDGE_MAX_UPLOAD_BYTES``. The extension decides, not the client's content type, which browsers guess.
A file with NUL bytes or other control characters is binary whatever its name says.

The size is checked here on what the upload handler (``upload_limit``) handed over: a file over the limit
arrives without its content, with its real size, and is refused before anything reads it.
"""

from __future__ import annotations

import codecs
import re
from pathlib import PurePath

from django.core.files.uploadedfile import UploadedFile
from django.utils.translation import gettext

from tools.knowledge.errors import DocumentRejected

ALLOWED_SUFFIXES = (".md", ".markdown", ".txt")
# C0 controls other than tab, line feed, form feed and carriage return, and DEL: never in a text document.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def read_upload(upload: UploadedFile, *, max_bytes: int) -> str:
    """The upload's text; raises ``DocumentRejected`` with the reason when it is not an acceptable document."""
    name = upload.name or ""
    if PurePath(name).suffix.lower() not in ALLOWED_SUFFIXES:
        # The caller names the file (``tools.api``): a request may carry several.
        message = gettext("not a %(suffixes)s file; only those are accepted")
        raise DocumentRejected("unsupported_type", message % {"suffixes": ", ".join(ALLOWED_SUFFIXES)})
    size = upload.size or 0
    if size > max_bytes:
        message = gettext("the file has %(size)d bytes; the limit is %(limit)d bytes")
        raise DocumentRejected("file_too_large", message % {"size": size, "limit": max_bytes})
    if size == 0:
        raise DocumentRejected("empty_file", gettext("the file is empty"))
    data = upload.read()
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        # Windows Notepad's "Unicode": text, in an encoding the knowledge base does not read (its NULs would
        # otherwise call it binary).
        raise DocumentRejected("not_utf8", gettext("the file is UTF-16; save it as UTF-8 and upload it again"))
    if b"\x00" in data:
        raise DocumentRejected("binary_file", gettext("the file is binary, not text"))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        message = gettext("the file is not UTF-8 (invalid byte at offset %(offset)d)") % {"offset": error.start}
        raise DocumentRejected("not_utf8", message) from error
    if CONTROL_CHARACTERS.search(text):
        raise DocumentRejected(
            "binary_file", gettext("the file contains control characters; it is not a text document")
        )
    if not text.strip():
        raise DocumentRejected("empty_file", gettext("the file contains only whitespace"))
    return text
