"""Reads of the documents API, and the one rule on who may delete a document.

The knowledge base is shared: every signed-in user searches all of it, so every signed-in user may list and
read every document. Deleting it, or changing its status or labels, is narrower: the uploader, or staff. Scenario documents have no uploader, so
only staff delete them (``load_scenario`` replaces them anyway).
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.db.models import Prefetch, Q, QuerySet

from tools.models import KnowledgeChunk, KnowledgeDocument

if TYPE_CHECKING:
    # Stub-only alias: the django-stubs plugin resolves it to settings.AUTH_USER_MODEL or AnonymousUser.
    from django.contrib.auth.models import _AnyUser


def document_list(
    *,
    source: str | None = None,
    scenario: str | None = None,
    status: str | None = None,
    fault_source: str | None = None,
    category: str | None = None,
    q: str | None = None,
) -> QuerySet[KnowledgeDocument]:
    """Newest first, without the document bodies, with the uploader in the same query.

    Each filter is an exact match but ``q``, which finds its text in the title, file name, category or
    fault source (case-insensitively): what a person remembers of a runbook.
    """
    documents = KnowledgeDocument.objects.select_related("uploaded_by").defer("content").order_by("-created_at", "id")
    exact = {
        "source": source,
        "scenario": scenario,
        "status": status,
        "fault_source": fault_source,
        "category": category,
    }
    documents = documents.filter(**{field: value for field, value in exact.items() if value})
    if q:
        documents = documents.filter(
            Q(title__icontains=q) | Q(filename__icontains=q) | Q(category__icontains=q) | Q(fault_source__icontains=q)
        )
    return documents


def document_get(document_id: str, *, with_chunks: bool = False) -> KnowledgeDocument | None:
    """The document, or None when the id is unknown or not a UUID (both are a 404 to the API)."""
    try:
        key = uuid.UUID(document_id)
    except ValueError:
        return None
    documents = KnowledgeDocument.objects.select_related("uploaded_by").defer("content")
    if with_chunks:
        # The search terms are the index's, not the API's: about as long as the text itself.
        documents = documents.prefetch_related(Prefetch("chunks", KnowledgeChunk.objects.defer("terms")))
    return documents.filter(pk=key).first()


def can_manage_document(user: _AnyUser, document: KnowledgeDocument) -> bool:
    """Who may delete a document or change its status and labels: its uploader, or staff."""
    if user.is_staff:
        return True
    return document.uploaded_by_id is not None and document.uploaded_by_id == user.pk
