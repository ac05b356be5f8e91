"""Chunk terms tokenised at ingest and stored: an index reads them, and tokenises only what was stored without."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError, connection

from tests.tools.knowledge.conftest import CACHE_RUNBOOK, CHINESE_RUNBOOK, DB_POOL_RUNBOOK
from tools.knowledge import index as index_module
from tools.knowledge import ingest as ingest_module
from tools.knowledge.index import KnowledgeIndex
from tools.knowledge.ingest import store_current_terms
from tools.knowledge.tokenize import TERMS_VERSION, indexed_text, tokenize
from tools.models import KnowledgeChunk

STALE = "an older tokeniser"


def _no_tokenising(text: str) -> list[str]:
    raise AssertionError(f"tokenised in the index: {text[:40]!r}")


def test_an_ingested_document_stores_each_chunks_terms(ingest):
    ingest(CHINESE_RUNBOOK)

    chunks = list(KnowledgeChunk.objects.all())
    assert chunks
    for chunk in chunks:
        assert chunk.terms_version == TERMS_VERSION
        assert chunk.terms.split() == tokenize(indexed_text(chunk.heading, chunk.text))


def test_an_index_of_stored_terms_tokenises_nothing_and_scores_as_tokenising_would(ingest, monkeypatch):
    ingest(DB_POOL_RUNBOOK)
    ingest(CHINESE_RUNBOOK)
    tokenised = KnowledgeIndex()
    KnowledgeChunk.objects.update(terms_version=STALE)
    expected = tokenised.snapshot(None)
    KnowledgeChunk.objects.update(terms_version=TERMS_VERSION)

    monkeypatch.setattr(index_module, "tokenize", _no_tokenising)
    stored = KnowledgeIndex().snapshot(None)

    assert [chunk.chunk_id for chunk in stored.chunks] == [chunk.chunk_id for chunk in expected.chunks]
    for terms in (["hikaripool-1", "connection"], tokenize("磁盘 满了")):
        scores = stored.lexical(terms).scores.tolist()
        assert scores == expected.lexical(terms).scores.tolist()
        assert max(scores) > 0


def test_terms_stored_by_another_tokeniser_are_not_used(ingest):
    ingest(DB_POOL_RUNBOOK)
    KnowledgeChunk.objects.update(terms="unrelated words", terms_version=STALE)

    snapshot = KnowledgeIndex().snapshot(None)

    assert snapshot.lexical(["hikaripool-1"]).scores.max() > 0
    assert snapshot.lexical(["unrelated"]).scores.tolist() == [0.0] * len(snapshot.chunks)


@pytest.mark.django_db(transaction=True)
def test_an_upload_is_tokenised_before_its_transaction(monkeypatch):
    """Tokenising a megabyte takes a second or more: no writer should wait for it behind the upload's lock."""
    from tools.knowledge.ingest import ingest_documents
    from tools.models import DocumentSource

    inside: list[bool] = []
    real = ingest_module.stored_terms
    monkeypatch.setattr(
        ingest_module, "stored_terms", lambda *args: inside.append(connection.in_atomic_block) or real(*args)
    )

    ingest_documents([("a.md", DB_POOL_RUNBOOK), ("b.md", CACHE_RUNBOOK)], source=DocumentSource.UPLOAD)

    assert inside and not any(inside)
    assert KnowledgeChunk.objects.exclude(terms_version=TERMS_VERSION).count() == 0


def test_store_current_terms_stores_stale_chunks_in_batches_and_then_nothing(ingest, monkeypatch):
    ingest(DB_POOL_RUNBOOK)
    ingest(CHINESE_RUNBOOK)
    KnowledgeChunk.objects.update(terms="", terms_version=STALE)
    count = KnowledgeChunk.objects.count()
    monkeypatch.setattr(ingest_module, "TERMS_BATCH", 2)
    progress: list[tuple[int, int]] = []

    assert store_current_terms(progress=lambda done, total: progress.append((done, total))) == count

    assert progress[-1] == (count, count)
    assert [done for done, _ in progress] == sorted({*range(2, count, 2), count})
    for chunk in KnowledgeChunk.objects.all():
        assert (chunk.terms.split(), chunk.terms_version) == (
            tokenize(indexed_text(chunk.heading, chunk.text)),
            TERMS_VERSION,
        )
    assert store_current_terms() == 0


def test_the_command_reports_what_it_stored(ingest):
    ingest(DB_POOL_RUNBOOK)
    KnowledgeChunk.objects.update(terms_version=STALE)
    count = KnowledgeChunk.objects.count()

    out = StringIO()
    call_command("store_knowledge_terms", stdout=out)
    again = StringIO()
    call_command("store_knowledge_terms", stdout=again)

    assert out.getvalue().splitlines() == [f"{count}/{count} chunks", f"stored the terms of {count} chunks"]
    assert again.getvalue().strip() == "every chunk's terms are current"


def test_the_command_says_when_interrupted_what_it_kept(ingest, monkeypatch):
    ingest(DB_POOL_RUNBOOK)
    KnowledgeChunk.objects.update(terms_version=STALE)

    def interrupted(progress):
        progress(200, 1000)
        raise KeyboardInterrupt

    monkeypatch.setattr("tools.management.commands.store_knowledge_terms.store_current_terms", interrupted)
    with pytest.raises(CommandError, match="interrupted: the 200 chunks stored so far keep their terms") as raised:
        call_command("store_knowledge_terms", stdout=StringIO())
    assert raised.value.returncode == 130


def test_the_command_says_when_the_database_failed_what_it_kept(ingest, monkeypatch):
    def locked(progress):
        progress(200, 1000)
        raise OperationalError("database is locked")

    monkeypatch.setattr("tools.management.commands.store_knowledge_terms.store_current_terms", locked)
    with pytest.raises(CommandError, match=r"database failed \(database is locked\): the 200 chunks stored so far"):
        call_command("store_knowledge_terms", stdout=StringIO())


def test_the_command_refuses_to_store_terms_no_other_process_would_trust(monkeypatch):
    monkeypatch.setattr(
        "tools.management.commands.store_knowledge_terms.TERMS_VERSION", "jieba-0.42.1:unicode-15.0.0:no-source-abc"
    )

    with pytest.raises(CommandError, match="cannot be read"):
        call_command("store_knowledge_terms", stdout=StringIO())
