"""search_knowledge: the canonical payload, BM25 ranking, dedup, the no_evidence threshold, top_k bounds."""

from __future__ import annotations

import pytest

from tests.tools.knowledge.conftest import CACHE_RUNBOOK, DB_POOL_RUNBOOK
from tools.knowledge.index import INDEX
from tools.knowledge.ingest import delete_document
from tools.knowledge.search import (
    MANY_MATCHED_TERMS,
    MAX_TOP_K,
    MIN_COVERAGE_WITH_MANY_MATCHES,
    MIN_QUERY_COVERAGE,
    search_knowledge,
)
from tools.knowledge.tokenize import query_terms
from tools.models import KnowledgeDocument

pytestmark = pytest.mark.django_db


def _documents(payload: dict) -> list[str]:
    return [chunk["document_id"] for chunk in payload["chunks"]]


def test_it_returns_exactly_the_canonical_payload(corpus):
    payload = search_knowledge("payment-service connection pool exhausted", top_k=3)
    assert set(payload) == {"evidence_status", "chunks"}
    assert payload["evidence_status"] == "ok"
    chunk = payload["chunks"][0]
    assert set(chunk) == {"document_id", "chunk_id", "title", "text", "score"}
    assert chunk["document_id"] == str(corpus["db_pool"].id)
    chunk_ids = {str(pk) for pk in corpus["db_pool"].chunks.values_list("id", flat=True)}
    assert chunk["chunk_id"] in chunk_ids
    assert isinstance(chunk["score"], float)
    assert chunk["score"] == round(chunk["score"], 4) > 0


def test_it_titles_a_chunk_with_its_heading_path(corpus):
    chunk = search_knowledge("maximumPoolSize roll back", top_k=1)["chunks"][0]
    assert chunk["title"] == "Runbook: payment-service DB connection pool exhausted > Mitigation"
    assert chunk["text"].startswith("Roll back the deploy")


def test_it_ranks_the_matching_runbook_above_the_others(corpus):
    payload = search_knowledge("HikariPool-1 connection not available, p99 latency tripled", top_k=5)
    assert _documents(payload)[0] == str(corpus["db_pool"].id)
    scores = [chunk["score"] for chunk in payload["chunks"]]
    assert scores == sorted(scores, reverse=True)


def test_it_finds_an_exact_identifier(corpus):
    assert _documents(search_knowledge("ORA-00020", top_k=3)) == [str(corpus["oracle"].id)]


def test_it_answers_a_chinese_question_from_a_chinese_runbook(corpus):
    payload = search_knowledge("RabbitMQ磁盘写满，生产者阻塞怎么办？", top_k=3)
    assert payload["evidence_status"] == "ok"
    assert set(_documents(payload)) == {str(corpus["chinese"].id)}


@pytest.mark.parametrize("query", ["磁盘满了", "磁盘满了怎么办"])
def test_a_chinese_question_finds_its_runbook_whatever_single_character_it_ends_on(corpus, query):
    # jieba makes "磁盘" and "满" of the question, but keeps "写满" whole in the runbook: the lone "满" is a
    # term no document holds, and it must not outweigh the "磁盘" the runbook does hold.
    payload = search_knowledge(query, top_k=3)
    assert payload["evidence_status"] == "ok"
    assert set(_documents(payload)) == {str(corpus["chinese"].id)}


def test_it_returns_a_repeated_text_once(ingest, corpus):
    copy = ingest(DB_POOL_RUNBOOK.replace("# Runbook:", "# Copy of runbook:"), filename="copy.md")
    payload = search_knowledge("HikariPool-1 connection not available", top_k=10)
    texts = [chunk["text"] for chunk in payload["chunks"]]
    assert len(texts) == len(set(texts))
    assert {str(corpus["db_pool"].id), str(copy.id)} & set(_documents(payload))


def test_it_answers_no_evidence_on_an_empty_knowledge_base(db):
    assert search_knowledge("connection pool exhausted", top_k=3) == {"evidence_status": "no_evidence", "chunks": []}


@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        "what is this?",
        "sourdough bread recipe",
        "烤面包的做法",
        "打印机卡纸了",
        "员工报销流程是什么",
        "狗的告警",
    ],
)
def test_it_answers_no_evidence_when_nothing_matches(corpus, query):
    assert search_knowledge(query, top_k=3) == {"evidence_status": "no_evidence", "chunks": []}


def test_it_answers_no_evidence_when_only_a_minor_term_matches(corpus):
    # "latency" is in the pool runbook (a positive BM25 score), but the question is about something else.
    assert search_knowledge("latency", top_k=3)["evidence_status"] == "ok"
    payload = search_knowledge("kafka partition rebalance storm latency", top_k=3)
    assert payload == {"evidence_status": "no_evidence", "chunks": []}


def test_it_answers_no_evidence_when_a_short_query_shares_one_word(corpus):
    assert search_knowledge("oracle session", top_k=3)["evidence_status"] == "ok"
    assert search_knowledge("zookeeper session expired", top_k=3)["evidence_status"] == "no_evidence"


def test_it_accepts_a_long_question_whose_runbook_matches_many_of_its_terms(corpus):
    question = (
        "Why would checkout intermittently stall during flash sales whenever HikariPool-1 waits on payment-service?"
    )
    match = INDEX.snapshot(None).lexical(query_terms(question))
    best = int(match.scores.argmax())
    # Mostly words the corpus never saw: under the plain coverage bar, over the bar for many matched terms.
    assert MIN_COVERAGE_WITH_MANY_MATCHES <= match.coverage[best] < MIN_QUERY_COVERAGE
    assert match.matched_terms[best] >= MANY_MATCHED_TERMS
    assert search_knowledge(question, top_k=1)["chunks"][0]["document_id"] == str(corpus["db_pool"].id)


@pytest.mark.parametrize(("asked", "bound"), [(0, 1), (-5, 1), (3, 3), (50, MAX_TOP_K)])
def test_it_bounds_top_k(ingest, asked, bound):
    for number in range(12):
        ingest(f"# Pool note {number}\n\nconnection pool note number {number}\n", filename=f"n{number}.md")
    assert len(search_knowledge("connection pool note", top_k=asked)["chunks"]) == bound


def test_it_forgets_a_deleted_document_at_once(corpus):
    assert search_knowledge("ORA-00020", top_k=3)["evidence_status"] == "ok"
    delete_document(document=corpus["oracle"])
    assert search_knowledge("ORA-00020", top_k=3)["evidence_status"] == "no_evidence"


def test_it_finds_a_new_document_at_once(corpus, ingest):
    assert search_knowledge("zookeeper session expired", top_k=3)["evidence_status"] == "no_evidence"
    document = ingest("# ZooKeeper\n\nzookeeper session expired: raise tickTime.\n", filename="zk.md")
    assert _documents(search_knowledge("zookeeper session expired", top_k=3)) == [str(document.id)]


def test_it_reads_only_the_revision_when_the_index_is_fresh(corpus, django_assert_num_queries):
    search_knowledge("connection pool", top_k=3)
    with django_assert_num_queries(1):
        search_knowledge("redis eviction", top_k=3)


@pytest.mark.parametrize("content", ["# Сервер упал\n\nПерезапустите сервер.\n", "# 🚀\n\n😀 😀\n"])
def test_a_base_whose_chunks_have_no_terms_answers_no_evidence(ingest, content):
    # The tokeniser keeps Chinese and Latin-script words: a base of only other scripts has no term to index.
    ingest(content, filename="x.md")

    assert search_knowledge("server down", 3)["evidence_status"] == "no_evidence"


@pytest.fixture
def english_corpus(ingest) -> dict[str, KnowledgeDocument]:
    return {
        "db_pool": ingest(DB_POOL_RUNBOOK, filename="db-pool.md"),
        "cache": ingest(CACHE_RUNBOOK, filename="cache.md"),
    }


def test_a_chinese_question_naming_a_service_finds_its_runbook_in_an_english_base(english_corpus):
    """Chinese words could never match English runbooks: they weighed the most and kept every Chinese how-to
    question at no_evidence, while the same question in English was answered."""
    payload = search_knowledge("如何处理 payment-service 数据库连接池耗尽？", top_k=3)

    assert payload["evidence_status"] == "ok"
    assert _documents(payload)[0] == str(english_corpus["db_pool"].id)


@pytest.mark.parametrize("query", ["如何处理 kafka 磁盘满？", "支付服务连接池耗尽怎么办"])
def test_a_chinese_question_without_a_word_of_an_english_base_still_finds_nothing(english_corpus, query):
    assert search_knowledge(query, top_k=3) == {"evidence_status": "no_evidence", "chunks": []}


def test_in_a_base_holding_chinese_an_unseen_chinese_word_still_weighs(corpus):
    # The corpus holds a Chinese runbook: "烤面包" is off topic there, whatever English word comes with it.
    assert search_knowledge("烤面包的做法 latency", top_k=3)["evidence_status"] == "no_evidence"
