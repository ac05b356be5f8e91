"""Write services of the knowledge base: ingest, update metadata, delete, and replace a scenario pack's documents.

Each runs in one transaction that also bumps the knowledge revision (``revision.bump``), so the chunks and
the new revision commit together: the next search in any process sees the new revision and rebuilds its
index from exactly the committed chunks. That is what makes an upload "indexed at once" and a deletion
"gone at once" without any message between processes.
"""

from __future__ import annotations

import hashlib
from pathlib import PurePath
from typing import TYPE_CHECKING

from django.db import transaction

from tools.knowledge import revision
from tools.knowledge.chunking import chunk_markdown, chunk_plain_text
from tools.knowledge.errors import DocumentGone, DocumentRejected
from tools.models import DocumentSource, DocumentStatus, KnowledgeChunk, KnowledgeDocument

if TYPE_CHECKING:
    # Stub-only alias: the django-stubs plugin resolves it to the model of settings.AUTH_USER_MODEL.
    from django.contrib.auth.models import _User

PLAIN_TEXT_SUFFIX = ".txt"
FILENAME_MAX_CHARS = 255


@transaction.atomic
def ingest_document(
    *,
    title_hint: str,
    filename: str,
    content: str,
    source: str,
    scenario: str = "",
    uploaded_by: _User | None = None,
    category: str = "",
    fault_source: str = "",
) -> KnowledgeDocument:
    """Store and chunk one document; searchable as soon as the transaction commits.

    The first heading is the title; ``title_hint`` (else the file name) names a document without one.
    Raises ``DocumentRejected("no_content")`` when nothing in it can be indexed.
    """
    [document] = ingest_documents(
        [(filename, content)],
        title_hint=title_hint,
        source=source,
        scenario=scenario,
        uploaded_by=uploaded_by,
        category=category,
        fault_source=fault_source,
    )
    return document


@transaction.atomic
def ingest_documents(
    files: list[tuple[str, str]],
    *,
    title_hint: str = "",
    source: str,
    scenario: str = "",
    uploaded_by: _User | None = None,
    category: str = "",
    fault_source: str = "",
) -> list[KnowledgeDocument]:
    """Store several ``(filename, text)`` documents with the same metadata, all or none.

    A document that cannot be indexed raises ``DocumentRejected`` with its file name in the message, and
    the transaction rolls back the ones stored before it: an upload of several files never half succeeds.
    """
    documents = []
    for filename, content in files:
        try:
            documents.append(
                _create_document(
                    title_hint=title_hint,
                    filename=filename,
                    content=content,
                    source=source,
                    scenario=scenario,
                    uploaded_by=uploaded_by,
                    category=category,
                    fault_source=fault_source,
                )
            )
        except DocumentRejected as rejected:
            if len(files) == 1:
                raise
            raise DocumentRejected(rejected.code, f"{filename}: {rejected.message}") from rejected
    revision.bump()
    return documents


@transaction.atomic
def update_document(*, document: KnowledgeDocument, **changes: str) -> KnowledgeDocument:
    """Change a document's ``status``, ``category`` or ``fault_source``; a status change is a search change.

    Archiving takes the document out of every process's search once this commits (the revision moves), and
    restoring puts it back; its chunks are kept either way. ``DocumentGone`` when it was deleted meanwhile.
    """
    # The status as it is now, the row locked until the commit: another request may have archived, restored
    # or deleted the document since it was read, and whether search changes is decided against the row.
    status = KnowledgeDocument.objects.select_for_update().filter(pk=document.pk).values_list("status", flat=True)
    current = status.first()
    if current is None:
        raise DocumentGone(str(document.pk))
    searched_before = current == DocumentStatus.ACTIVE
    document.status = current  # what the row holds, for the response and the comparison below
    for field, value in changes.items():
        setattr(document, field, value)
    document.save(update_fields=[*changes])
    if (document.status == DocumentStatus.ACTIVE) != searched_before:
        revision.bump()
    return document


@transaction.atomic
def delete_document(*, document: KnowledgeDocument) -> None:
    """Delete a document and its chunks; gone from every process's search once this commits."""
    document.delete()
    revision.bump()


@transaction.atomic
def replace_scenario_documents(scenario_name: str, documents: list[tuple[str, str]]) -> int:
    """Swap the knowledge of the loaded scenario pack: every previous SCENARIO document goes, these come.

    ``documents`` are ``(filename, markdown)`` pairs. Uploaded documents are kept. All or nothing: a
    rejected document rolls the whole replacement back. Returns the number of documents ingested.
    """
    KnowledgeDocument.objects.filter(source=DocumentSource.SCENARIO).delete()
    for filename, markdown in documents:
        _create_document(
            title_hint="",
            filename=filename,
            content=markdown,
            source=DocumentSource.SCENARIO,
            scenario=scenario_name,
            uploaded_by=None,
        )
    revision.bump()
    return len(documents)


def _create_document(
    *,
    title_hint: str,
    filename: str,
    content: str,
    source: str,
    scenario: str,
    uploaded_by: _User | None,
    category: str = "",
    fault_source: str = "",
) -> KnowledgeDocument:
    fallback_title = title_hint.strip() or PurePath(filename).stem or "Untitled document"
    chunker = chunk_plain_text if filename.lower().endswith(PLAIN_TEXT_SUFFIX) else chunk_markdown
    chunked = chunker(content, fallback_title=fallback_title)
    if not chunked.chunks:
        raise DocumentRejected("no_content", f"{filename or 'the document'} has no text to index, only headings")
    document = KnowledgeDocument.objects.create(
        title=chunked.title,
        filename=filename[:FILENAME_MAX_CHARS],
        source=source,
        scenario=scenario,
        content=content,
        content_sha256=_sha256(content),
        size_bytes=len(content.encode()),
        chunk_count=len(chunked.chunks),
        uploaded_by=uploaded_by,
        category=category,
        fault_source=fault_source,
    )
    KnowledgeChunk.objects.bulk_create(
        KnowledgeChunk(
            document=document, ordinal=ordinal, heading=chunk.heading, text=chunk.text, text_sha256=_sha256(chunk.text)
        )
        for ordinal, chunk in enumerate(chunked.chunks)
    )
    return document


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
