"""The revision tag and the per-process index: bumped by every write, rebuilt once when stale, never reused."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from tests.tools.knowledge.conftest import CACHE_RUNBOOK, DB_POOL_RUNBOOK
from tools.knowledge import revision
from tools.knowledge.index import INDEX, KnowledgeIndex
from tools.knowledge.ingest import delete_document, ingest_document, prepare_documents, replace_scenario_documents
from tools.knowledge.search import search_knowledge
from tools.models import DocumentSource, KnowledgeChunk, KnowledgeDocument, KnowledgeIndexState


@pytest.mark.django_db
def test_the_state_row_is_there_before_the_first_write_and_made_again_when_missing(ingest):
    """Made by a migration (tools/0007): made by the first write, concurrent first uploads deadlocked on
    MariaDB. A flushed database has none, and its first write makes it."""
    assert KnowledgeIndexState.objects.get().revision == 0
    KnowledgeIndexState.objects.all().delete()
    assert revision.current_tag() == revision.EMPTY_TAG
    ingest(DB_POOL_RUNBOOK)
    assert KnowledgeIndexState.objects.get().revision == 1


@pytest.mark.django_db
def test_it_bumps_the_revision_on_every_write(ingest):
    document = ingest(DB_POOL_RUNBOOK)
    ingest(CACHE_RUNBOOK)
    replace_scenario_documents("pack", prepare_documents([("runbook.md", DB_POOL_RUNBOOK)]))
    delete_document(document=document)
    assert KnowledgeIndexState.objects.get().revision == 4


@pytest.mark.django_db
def test_it_bumps_nothing_when_a_write_is_refused(ingest):
    ingest(DB_POOL_RUNBOOK)
    tag = revision.current_tag()
    with pytest.raises(ValueError):
        ingest_document(title_hint="", filename="empty.md", content="# Only a title\n", source=DocumentSource.UPLOAD)
    assert revision.current_tag() == tag


@pytest.mark.django_db
def test_it_never_reuses_an_index_built_before_the_state_row_was_recreated(ingest):
    ingest(DB_POOL_RUNBOOK)
    assert search_knowledge("HikariPool-1", top_k=3)["evidence_status"] == "ok"
    # A flushed or restored database starts again at revision 1.
    KnowledgeChunk.objects.all().delete()
    KnowledgeDocument.objects.all().delete()
    KnowledgeIndexState.objects.all().delete()
    document = ingest(CACHE_RUNBOOK)
    assert KnowledgeIndexState.objects.get().revision == 1
    assert search_knowledge("HikariPool-1", top_k=3)["evidence_status"] == "no_evidence"
    assert search_knowledge("evicted_keys", top_k=3)["chunks"][0]["document_id"] == str(document.id)


@pytest.mark.django_db
def test_it_keeps_one_index_per_instance(ingest):
    ingest(DB_POOL_RUNBOOK)
    index = KnowledgeIndex()
    first = index.snapshot(None)
    assert index.snapshot(None) is first
    ingest(CACHE_RUNBOOK)
    rebuilt = index.snapshot(None)
    assert rebuilt is not first
    assert len(rebuilt.chunks) == len(first.chunks) + 2


def test_a_rebuild_tokenises_only_stale_text_it_has_not_seen(ingest, monkeypatch):
    """Chunks stored without current terms (before an upgrade that changed the tokeniser) are tokenised by the
    process, and archiving and restoring a document, or adding another, must not make their text be read
    again: tokenising a megabyte of Chinese takes seconds, under the lock every search waits on."""
    from tools.knowledge import index as index_module
    from tools.knowledge.ingest import update_document
    from tools.models import DocumentStatus

    pool = ingest(DB_POOL_RUNBOOK)
    KnowledgeChunk.objects.update(terms_version="an older tokeniser")
    tokenised: list[str] = []
    real_tokenize = index_module.tokenize
    monkeypatch.setattr(index_module, "tokenize", lambda text: tokenised.append(text) or real_tokenize(text))
    index = KnowledgeIndex()
    first = index.snapshot(None)
    assert len(tokenised) == len(first.chunks)

    update_document(document=pool, status=DocumentStatus.ARCHIVED)
    assert index.snapshot(None).chunks == []
    update_document(document=pool, status=DocumentStatus.ACTIVE)
    restored = index.snapshot(None)
    assert len(tokenised) == len(first.chunks)  # nothing read again
    KnowledgeChunk.objects.filter(document=ingest(CACHE_RUNBOOK)).update(terms_version="an older tokeniser")
    grown = index.snapshot(None)

    assert len(tokenised) == len(grown.chunks)  # the new document's chunks only
    assert restored.lexical(["hikaripool"]).scores.tolist() == first.lexical(["hikaripool"]).scores.tolist()


@pytest.mark.django_db(transaction=True)
def test_it_rebuilds_once_when_threads_search_a_stale_index_together(ingest, monkeypatch):
    ingest(DB_POOL_RUNBOOK)
    builds = []
    real_build = KnowledgeIndex._build

    def counted_build(self, tag, embedder, deadline):
        builds.append(tag)
        time.sleep(0.3)  # a slow rebuild: every other thread reaches the lock while it runs
        return real_build(self, tag, embedder, deadline)

    monkeypatch.setattr(KnowledgeIndex, "_build", counted_build)
    start = threading.Barrier(6)
    results = []

    def search() -> None:
        try:
            start.wait()
            results.append(search_knowledge("HikariPool-1 connection", top_k=3))
        finally:
            connection.close()

    threads = [threading.Thread(target=search) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1
    assert len(results) == 6
    assert all(result == results[0] and result["evidence_status"] == "ok" for result in results)
    assert INDEX.snapshot(None).tag == builds[0]
