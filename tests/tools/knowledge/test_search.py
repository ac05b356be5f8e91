"""search_knowledge: the canonical payload, BM25 ranking, dedup, the no_evidence threshold, top_k bounds."""

from __future__ import annotations

import pytest

from tests.tools.knowledge.conftest import CACHE_RUNBOOK, CHINESE_RUNBOOK, DB_POOL_RUNBOOK
from tools.knowledge.glossary import gloss
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


@pytest.mark.parametrize(
    ("query", "document"),
    [
        ("支付服务连接池耗尽怎么办", "db_pool"),  # no word of the base: each read in English
        ("连接池耗尽怎么处理？", "db_pool"),
        ("缓存命中率下降怎么处理", "cache"),
        ("发布失败怎么办", "db_pool"),  # words of every incident, and nothing else: they decide
    ],
)
def test_a_chinese_question_finds_an_english_runbook_through_the_glossary(english_corpus, query, document):
    """Without embeddings, a Chinese how-to question shared no word with an English runbook: the demo's first
    users, asking in Chinese, were told the knowledge base had nothing."""
    payload = search_knowledge(query, top_k=3)

    assert payload["evidence_status"] == "ok"
    assert _documents(payload)[0] == str(english_corpus[document].id)


def test_a_how_to_question_in_chinese_puts_the_mitigation_first(english_corpus):
    assert search_knowledge("连接池耗尽怎么处理？", top_k=1)["chunks"][0]["title"].endswith("Mitigation")


def _lexical(query: str):
    return INDEX.snapshot(None).lexical(query_terms(query), gloss(query))


@pytest.mark.parametrize(
    "query",
    [
        "连接池",  # connection and pool: one word
        "报错 错误 异常 连接池",  # three words for "error", common ones: they weigh nothing
        "连接池 connection pool",  # the English words first, the Chinese one adds nothing
    ],
)
def test_each_english_term_counts_once_whatever_reads_as_it(english_corpus, query):
    assert _lexical(query).matched_terms.max() == (2 if "connection" in query else 1)


@pytest.mark.parametrize(
    "query",
    [
        "烤面包的做法",
        "员工报销流程是什么",
        # Words of every incident question, and nothing a runbook is about (a review's cases)
        "我家猫咪生病了怎么处理",
        "员工报销失败怎么处理",
        "打印机故障怎么处理",
        "高铁延迟了怎么办",
        "年终奖发布时间",
        "考试成绩下降怎么办",
        # One word of what an incident is about, and others the glossary does not read: those weigh as unseen
        "牛奶过期了还能喝吗",
        "我的手机内存不够怎么办",
        "证书过期了怎么处理",  # read into nothing the base holds: an unseen word too
    ],
)
def test_a_chinese_question_about_nothing_the_base_covers_still_finds_nothing(english_corpus, query):
    assert search_knowledge(query, top_k=3) == {"evidence_status": "no_evidence", "chunks": []}


def test_a_word_jieba_cuts_apart_is_read_whole(english_corpus):
    """jieba cuts "不可用" into "不可" and "用": the glossary's words are found in the question's text."""
    assert [reading.word for reading in gloss("数据库不可用").readings] == ["数据库", "不可用"]
    # "从库存" is "from the stock", not a replica (从库)
    assert [reading.word for reading in gloss("下单时从库存服务扣减失败").readings] == ["库存", "失败"]


@pytest.mark.parametrize(
    ("query", "unread"),
    [
        ("牛奶过期了还能喝吗", ("牛奶",)),
        ("越来越慢的连接池", ()),  # filler, and jieba's parts of it ("越来")
        ("线程池满了", ()),  # no part across a word the glossary reads ("池满")
    ],
)
def test_the_words_the_glossary_does_not_read_are_the_longest_cuts_filler_aside(query, unread):
    assert gloss(query).unread == unread


@pytest.mark.parametrize(("query", "document"), [("连接池耗尽怎么处理？", "db_pool"), ("磁盘写满怎么处理", "chinese")])
def test_a_mostly_english_base_with_a_chinese_runbook_reads_both_ways(corpus, query, document):
    """Three English runbooks and a Chinese one: a Chinese question finds an English runbook by the glossary,
    and the Chinese one by its own words."""
    assert _documents(search_knowledge(query, top_k=1)) == [str(corpus[document].id)]


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("message queue disk full", True),  # an alert's English words, read as the runbook's Chinese ones
        ("disk full how to fix", True),
        ("fridge temperature too high", False),  # no word the glossary reads: unseen, as before
        ("printer failure fix", False),  # common words decide nothing beside an unseen one
        ("coffee machine error how to fix", False),
    ],
)
def test_a_chinese_base_reads_an_english_question_through_the_glossary(ingest, query, found):
    ingest(CHINESE_RUNBOOK, filename="mq-disk-zh.md")
    ingest("# 发布失败处理\n\n发布失败时先看错误日志，修复配置后重新发布。\n", filename="deploy-zh.md")

    assert (search_knowledge(query, top_k=1)["evidence_status"] == "ok") is found


def test_a_mostly_chinese_base_matches_a_chinese_question_as_it_is(ingest):
    """A Chinese word the base lacks is one it could have said: it weighs as unseen, as before the glossary."""
    ingest(CHINESE_RUNBOOK, filename="mq-disk-zh.md")
    ingest(CACHE_RUNBOOK, filename="cache.md")
    query = "令牌过期怎么处理"
    snapshot = INDEX.snapshot(None)
    with_glossary, without = _lexical(query), snapshot.lexical(query_terms(query))

    assert (with_glossary.coverage == without.coverage).all()
    assert (with_glossary.scores == without.scores).all()


def test_in_a_base_holding_chinese_an_unseen_chinese_word_still_weighs(corpus):
    # The corpus holds a Chinese runbook: "烤面包" is off topic there, whatever English word comes with it.
    assert search_knowledge("烤面包的做法 latency", top_k=3)["evidence_status"] == "no_evidence"
