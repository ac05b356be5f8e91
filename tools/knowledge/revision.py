"""The knowledge revision: how every process (web, Celery worker, CLI) learns that its in-memory index is stale.

Each knowledge write bumps one row inside the write's own transaction; each search reads that row first
(one indexed primary-key query) and rebuilds when the tag differs from the one its index was built at. The
tag is the revision *and* the time of the bump: a row recreated from scratch (a flushed test database, a
restored backup) restarts at revision 1, and the timestamp keeps it from matching an index built before.
"""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from tools.models import KnowledgeIndexState

STATE_PK = 1

RevisionTag = tuple[int, datetime | None]
EMPTY_TAG: RevisionTag = (0, None)


def current_tag() -> RevisionTag:
    """The tag of the knowledge base as committed now; ``EMPTY_TAG`` before the first write."""
    row = KnowledgeIndexState.objects.filter(pk=STATE_PK).values_list("revision", "updated_at").first()
    return row if row is not None else EMPTY_TAG


def bump() -> None:
    """Bump the revision with a conditional ``F()`` update, creating the row if it is missing (a migration
    made it: ``tools/0007``; a flushed test database has none).

    Call inside the write's transaction, so that the new chunks and the new revision commit together.
    """
    if _increment():
        return
    try:
        with transaction.atomic():
            KnowledgeIndexState.objects.create(pk=STATE_PK, revision=1)
    except IntegrityError:
        # Another process created the row first; our write still needs its own bump.
        _increment()


def _increment() -> int:
    return KnowledgeIndexState.objects.filter(pk=STATE_PK).update(revision=F("revision") + 1, updated_at=timezone.now())
