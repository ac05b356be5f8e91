"""The write services: what a stored document holds, scenario replacement, refusals that write nothing."""

from __future__ import annotations

import hashlib

import pytest

from tests.tools.knowledge.conftest import CACHE_RUNBOOK, DB_POOL_RUNBOOK
from tools.knowledge.errors import DocumentRejected
from tools.knowledge.ingest import ingest_document, prepare_documents, replace_scenario_documents
from tools.knowledge.search import search_knowledge
from tools.models import DocumentSource, KnowledgeChunk, KnowledgeDocument

pytestmark = pytest.mark.django_db


def test_it_stores_the_document_with_its_chunks(owner):
    document = ingest_document(
        title_hint="ignored",
        filename="db-pool.md",
        content=DB_POOL_RUNBOOK,
        source=DocumentSource.UPLOAD,
        uploaded_by=owner,
    )
    document.refresh_from_db()
    assert document.title == "Runbook: payment-service DB connection pool exhausted"
    assert (document.filename, document.source, document.uploaded_by) == ("db-pool.md", "UPLOAD", owner)
    assert document.content == DB_POOL_RUNBOOK
    assert document.content_sha256 == hashlib.sha256(DB_POOL_RUNBOOK.encode()).hexdigest()
    assert document.size_bytes == len(DB_POOL_RUNBOOK.encode())
    chunks = list(document.chunks.order_by("ordinal"))
    assert document.chunk_count == len(chunks) == 2
    assert [chunk.ordinal for chunk in chunks] == [0, 1]
    assert all(chunk.text_sha256 == hashlib.sha256(chunk.text.encode()).hexdigest() for chunk in chunks)


def test_it_titles_a_document_without_heading_by_the_hint_or_the_file_name():
    hinted = ingest_document(title_hint="Kafka notes", filename="k.md", content="disk usage", source="UPLOAD")
    unhinted = ingest_document(title_hint=" ", filename="kafka-disk.txt", content="disk usage", source="UPLOAD")
    assert (hinted.title, unhinted.title) == ("Kafka notes", "kafka-disk")


def test_it_reads_a_text_file_without_looking_for_headings():
    document = ingest_document(title_hint="", filename="notes.txt", content="# 1. check disk\n", source="UPLOAD")
    assert document.title == "notes"
    assert document.chunks.get().text == "# 1. check disk"


def test_it_refuses_a_document_with_nothing_to_index():
    with pytest.raises(DocumentRejected) as refused:
        ingest_document(title_hint="", filename="h.md", content="# Title\n\n## Section\n", source="UPLOAD")
    assert refused.value.code == "no_content"
    assert not KnowledgeDocument.objects.exists()


def test_it_replaces_every_previous_scenario_document_and_keeps_uploads(owner):
    upload = ingest_document(title_hint="", filename="c.md", content=CACHE_RUNBOOK, source="UPLOAD", uploaded_by=owner)
    replace_scenario_documents("old-pack", prepare_documents([("old.md", "# Old pack\n\nzookeeper session expired\n")]))
    count = replace_scenario_documents(
        "new-pack", prepare_documents([("a.md", DB_POOL_RUNBOOK), ("b.txt", "ORA-00020 raised")])
    )
    assert count == 2
    scenario = KnowledgeDocument.objects.filter(source=DocumentSource.SCENARIO)
    assert sorted(scenario.values_list("scenario", "filename")) == [("new-pack", "a.md"), ("new-pack", "b.txt")]
    assert scenario.filter(uploaded_by__isnull=False).count() == 0
    assert KnowledgeDocument.objects.filter(pk=upload.pk).exists()
    assert search_knowledge("zookeeper session expired", top_k=3)["evidence_status"] == "no_evidence"
    assert search_knowledge("ORA-00020", top_k=3)["evidence_status"] == "ok"


def test_a_replacement_with_a_document_it_cannot_index_is_refused_before_anything_changes():
    replace_scenario_documents("pack", prepare_documents([("a.md", DB_POOL_RUNBOOK)]))
    before = set(KnowledgeChunk.objects.values_list("id", flat=True))
    with pytest.raises(DocumentRejected, match=r"^empty\.md has no text to index"):
        prepare_documents([("b.md", CACHE_RUNBOOK), ("empty.md", "# Only a title\n")])
    assert set(KnowledgeChunk.objects.values_list("id", flat=True)) == before
    assert search_knowledge("HikariPool-1", top_k=3)["evidence_status"] == "ok"
