"""Tokenisation: English words stem together, identifiers stay whole, Chinese is segmented by jieba."""

from __future__ import annotations

import pytest

from tools.knowledge.tokenize import query_terms, stem, tokenize


@pytest.mark.parametrize(
    "words",
    [
        ("connection", "connections", "connected", "connecting"),
        ("cache", "caches", "cached", "caching"),
        ("exhausted", "exhaustion", "exhausts"),
        ("eviction", "evictions", "evicted"),
        ("retry", "retries", "retried"),
        ("exceed", "exceeds", "exceeded"),
        ("process", "processes"),
        ("stop", "stopped"),
    ],
)
def test_it_stems_forms_of_a_word_together(words):
    assert len({stem(word) for word in words}) == 1


@pytest.mark.parametrize("word", ["status", "redis", "analysis", "p99", "5xx", "pool", "kafka"])
def test_it_leaves_words_that_only_look_inflected(word):
    assert stem(word) == word


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        ("payment-service p99 latency", "payment-service"),
        ("ORA-00020: maximum number of processes exceeded", "ora-00020"),
        ("HikariPool-1 - Connection is not available", "hikaripool-1"),
        ("replica 10.0.3.7 lagging", "10.0.3.7"),
        ("table orders_db.payments", "orders_db.payments"),
    ],
)
def test_it_keeps_identifiers_whole(text, whole):
    assert whole in tokenize(text)


def test_it_also_indexes_the_parts_of_an_identifier():
    terms = tokenize("payment-service HikariPool-1 ORA-00020")
    assert {"payment", stem("service"), "hikaripool", "ora"} <= set(terms)


def test_it_does_not_index_bare_numbers_of_an_identifier():
    terms = tokenize("since 10:05 on 10.0.3.7, HikariPool-1, ORA-00020")
    assert not {"10", "05", "0", "3", "7", "1", "00020"} & set(terms)


def test_it_keeps_short_alphanumeric_terms_whole():
    assert {"p99", "5xx", "503"} <= set(tokenize("p99 up, 5xx rate high, HTTP 503"))


def test_it_drops_english_stopwords_and_lowercases():
    assert tokenize("Why is THE Pool of the Service down?") == ["pool", stem("service"), "down"]


def test_it_segments_chinese_with_jieba_in_search_mode():
    terms = tokenize("数据库连接池耗尽")
    assert {"数据库", "连接池", "耗尽"} <= set(terms)
    assert {"数据", "连接"} <= set(terms)  # search mode: the short words of a long one too


def test_it_drops_chinese_particles_but_keeps_ops_words():
    terms = tokenize("支付服务的延迟为什么上升了？")
    assert {"支付", "服务", "延迟", "上升"} <= set(terms)
    assert not {"的", "为什么", "了"} & set(terms)


def test_it_splits_mixed_chinese_and_english_runs():
    terms = tokenize("payment-service的p99延迟升高，HikariPool-1连接超时")
    assert {"payment-service", "p99", "延迟", "升高", "hikaripool-1", "连接", "超时"} <= set(terms)


def test_it_folds_full_width_characters():
    assert tokenize("ＨｉｋａｒｉＰｏｏｌ－１") == tokenize("HikariPool-1")


def test_it_gives_no_terms_for_punctuation_and_stopwords():
    assert tokenize("?? — what is this, 的 了") == []


def test_it_counts_each_query_term_once_in_first_seen_order():
    assert query_terms("pool pool timeout pool") == ["pool", "timeout"]
