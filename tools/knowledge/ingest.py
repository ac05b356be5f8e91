"""Write services of the knowledge base: ingest, update metadata, delete, and replace a scenario pack's documents.

Each runs in one transaction that also bumps the knowledge revision (``revision.bump``), so the chunks and
the new revision commit together: the next search in any process sees the new revision and rebuilds its
index from exactly the committed chunks. That is what makes an upload "indexed at once" and a deletion
"gone at once" without any message between processes.

A document is chunked and its chunks tokenised before that transaction (one to four seconds a megabyte of
Chinese, which no other writer should wait for), and the terms are stored with the chunks: every process
then builds its index from them instead of tokenising the knowledge base itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Sum
from django.utils.translation import gettext

from tools.knowledge import revision
from tools.knowledge.chunking import ChunkedDocument, chunk_markdown, chunk_plain_text
from tools.knowledge.errors import DocumentGone, DocumentRejected
from tools.knowledge.tokenize import TERMS_VERSION, stored_terms
from tools.models import DocumentSource, DocumentStatus, KnowledgeChunk, KnowledgeDocument

if TYPE_CHECKING:
    # Stub-only alias: the django-stubs plugin resolves it to the model of settings.AUTH_USER_MODEL.
    from django.contrib.auth.models import _User

PLAIN_TEXT_SUFFIX = ".txt"
FILENAME_MAX_CHARS = 255
# Chunks tokenised and stored per transaction by ``store_current_terms``.
TERMS_BATCH = 200


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

    A document that cannot be indexed raises ``DocumentRejected`` with its file name in the message, before
    anything is stored: an upload of several files never half succeeds.
    """
    prepared = []
    for filename, content in files:
        try:
            document = _prepare(filename, content, title_hint)
        except DocumentRejected as rejected:
            if len(files) == 1:
                raise
            # Each refusal of a request of several starts with the file's name, as ``read_upload``'s do.
            raise DocumentRejected(rejected.code, f"{filename}: {rejected.message}") from rejected
        if source == DocumentSource.UPLOAD:
            # At once, before the next file is parsed: a refused request costs one document's parse.
            _check_sections(document)
        prepared.append(document)
    with transaction.atomic():
        # First: the revision row's lock, held to the commit, orders the writers that change what search
        # holds, so two uploads cannot both find room for their sections.
        revision.bump()
        if source == DocumentSource.UPLOAD:
            added = sum(len(document.chunked.chunks) for document in prepared)
            _check_room(added)
            _check_quota(uploaded_by, added)
        documents = [
            _store(
                document,
                source=source,
                scenario=scenario,
                uploaded_by=uploaded_by,
                category=category,
                fault_source=fault_source,
            )
            for document in prepared
        ]
    return documents


def _check_sections(document: PreparedDocument) -> None:
    """Refuse an uploaded document of more than ``KNOWLEDGE_MAX_DOCUMENT_CHUNKS`` sections."""
    sections = len(document.chunked.chunks)
    if sections > settings.KNOWLEDGE_MAX_DOCUMENT_CHUNKS:
        message = gettext("%(name)s has %(sections)d sections; a document may have at most %(limit)d")
        raise DocumentRejected(
            "too_many_sections",
            message
            % {
                "name": document.filename or gettext("the document"),
                "sections": sections,
                "limit": settings.KNOWLEDGE_MAX_DOCUMENT_CHUNKS,
            },
        )


def _check_room(added: int) -> None:
    """Refuse to make ``added`` more sections searchable past ``KNOWLEDGE_MAX_CHUNKS`` active ones: every
    process rebuilds its index from all of them after a change, within a search's deadline, so a base of a
    million one-line sections would make every search time out. Uploads and restores are refused; a pack's
    documents, which operators load, count but are not refused. Call it holding the revision row's lock."""
    held = _active_sections()
    if held + added > settings.KNOWLEDGE_MAX_CHUNKS:
        message = gettext(
            "the knowledge base holds %(held)d sections and may hold %(limit)d; archive or delete documents first"
        )
        raise DocumentRejected("knowledge_base_full", message % {"held": held, "limit": settings.KNOWLEDGE_MAX_CHUNKS})


def _active_sections(**documents: Any) -> int:
    """The sections of the active documents (of those ``documents`` selects) that search holds."""
    total = KnowledgeDocument.objects.filter(status=DocumentStatus.ACTIVE, **documents).aggregate(
        total=Sum("chunk_count")
    )["total"]
    return total or 0


def _check_quota(uploader: _User | None, added: int) -> None:
    """Refuse an upload that would give one uploader more than ``KNOWLEDGE_MAX_CHUNKS_PER_UPLOADER`` active
    sections: one account could otherwise fill the base and leave the team no room to add a runbook. Staff,
    who curate the base, are not counted. Call it holding the revision row's lock, as ``_check_room``."""
    if uploader is None or uploader.is_staff:
        return
    held = _active_sections(uploaded_by=uploader)
    limit = settings.KNOWLEDGE_MAX_CHUNKS_PER_UPLOADER
    if held + added > limit:
        message = gettext(
            "your documents hold %(held)d searchable sections and yours may hold %(limit)d; archive or delete "
            "some of them first"
        )
        raise DocumentRejected("uploader_quota_full", message % {"held": held, "limit": limit})


@transaction.atomic
def update_document(*, document: KnowledgeDocument, **changes: str) -> KnowledgeDocument:
    """Change a document's ``status``, ``category`` or ``fault_source``; a status change is a search change.

    Archiving takes the document out of every process's search once this commits (the revision moves), and
    restoring puts it back (``DocumentRejected`` when the base has no room for its sections); its chunks are
    kept either way. ``DocumentGone`` when it was deleted meanwhile.
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
    if (document.status == DocumentStatus.ACTIVE) != searched_before:
        revision.bump()  # before the check, as an upload does
        if not searched_before:
            _check_room(document.chunk_count)
            # Counted against whoever uploaded it (archiving and restoring would get round the quota).
            _check_quota(document.uploaded_by, document.chunk_count)
    document.save(update_fields=[*changes])
    return document


@transaction.atomic
def delete_document(*, document: KnowledgeDocument) -> None:
    """Delete a document and its chunks; gone from every process's search once this commits.
    ``DocumentGone`` when another request deleted it since it was read: one of two deletes is told 404."""
    deleted, _ = KnowledgeDocument.objects.filter(pk=document.pk).delete()
    if not deleted:
        raise DocumentGone(str(document.pk))
    revision.bump()


def replace_scenario_documents(scenario_name: str, documents: list[PreparedDocument]) -> int:
    """Swap the knowledge of the loaded scenario pack: every previous SCENARIO document goes, these come.

    ``documents`` come from ``prepare_documents``, called before the caller's transaction (``load_scenario``
    holds one for the whole load): tokenising under it would keep every other writer waiting. Uploaded
    documents are kept. Returns the number of documents stored.
    """
    with transaction.atomic():
        KnowledgeDocument.objects.filter(source=DocumentSource.SCENARIO).delete()
        for document in documents:
            _store(document, source=DocumentSource.SCENARIO, scenario=scenario_name, uploaded_by=None)
        revision.bump()
    return len(documents)


def prepare_documents(documents: list[tuple[str, str]]) -> list[PreparedDocument]:
    """``(filename, markdown)`` documents chunked and tokenised, ready to store; ``DocumentRejected`` (its
    message names the file) for one with nothing to index."""
    return [_prepare(filename, content, "") for filename, content in documents]


def store_current_terms(progress: Callable[[int, int], object] = lambda done, total: None) -> int:
    """Tokenise and store the terms of every chunk stored without the current tokeniser's: chunks ingested
    before terms were stored, or by a tokeniser changed since (``TERMS_VERSION``), which every process would
    otherwise tokenise itself at its first search. Returns how many were stored; ``progress(done, total)``
    after each batch. Each batch commits on its own: an interrupted call keeps what it stored, and the next
    one goes on from there. Search results do not change (a process tokenises such chunks the same way), so
    the revision does not move."""
    stale = KnowledgeChunk.objects.exclude(terms_version=TERMS_VERSION).order_by("pk").only("pk", "heading", "text")
    total = stale.count()
    done = 0
    batch = list(stale[:TERMS_BATCH])
    while batch:
        for chunk in batch:
            chunk.terms, chunk.terms_version = stored_terms(chunk.heading, chunk.text), TERMS_VERSION
        KnowledgeChunk.objects.bulk_update(batch, ["terms", "terms_version"])
        done += len(batch)
        progress(done, total)
        batch = list(stale.filter(pk__gt=batch[-1].pk)[:TERMS_BATCH])
    return done


@dataclass(frozen=True)
class PreparedDocument:
    """A document ready to store: its chunks, and each chunk's terms."""

    filename: str
    content: str
    chunked: ChunkedDocument
    terms: list[str]


def _prepare(filename: str, content: str, title_hint: str) -> PreparedDocument:
    fallback_title = title_hint.strip() or PurePath(filename).stem or "Untitled document"
    chunker = chunk_plain_text if filename.lower().endswith(PLAIN_TEXT_SUFFIX) else chunk_markdown
    chunked = chunker(content, fallback_title=fallback_title)
    if not chunked.chunks:
        message = gettext("%(name)s has no text to index, only headings")
        raise DocumentRejected("no_content", message % {"name": filename or gettext("the document")})
    return PreparedDocument(
        filename, content, chunked, [stored_terms(chunk.heading, chunk.text) for chunk in chunked.chunks]
    )


def _cut_name(filename: str) -> str:
    """``filename`` within ``FILENAME_MAX_CHARS``, its extension kept (it tells how the text was read)."""
    if len(filename) <= FILENAME_MAX_CHARS:
        return filename
    path = PurePath(filename)
    suffix = path.suffix if len(path.suffix) < FILENAME_MAX_CHARS // 2 else ""
    return filename[: FILENAME_MAX_CHARS - len(suffix)] + suffix


def _store(
    prepared: PreparedDocument,
    *,
    source: str,
    scenario: str,
    uploaded_by: _User | None,
    category: str = "",
    fault_source: str = "",
) -> KnowledgeDocument:
    content = prepared.content
    document = KnowledgeDocument.objects.create(
        title=prepared.chunked.title,
        filename=_cut_name(prepared.filename),
        source=source,
        scenario=scenario,
        content=content,
        content_sha256=_sha256(content),
        size_bytes=len(content.encode()),
        chunk_count=len(prepared.chunked.chunks),
        uploaded_by=uploaded_by,
        category=category,
        fault_source=fault_source,
    )
    KnowledgeChunk.objects.bulk_create(
        KnowledgeChunk(
            document=document,
            ordinal=ordinal,
            heading=chunk.heading,
            text=chunk.text,
            text_sha256=_sha256(chunk.text),
            terms=terms,
            terms_version=TERMS_VERSION,
        )
        for ordinal, (chunk, terms) in enumerate(zip(prepared.chunked.chunks, prepared.terms, strict=True))
    )
    return document


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
