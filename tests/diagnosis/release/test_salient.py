"""Salient tokens are what a reader acts on, so each must be found in the evidence exactly, not by accident.

A sentence may paraphrase, but its numbers (with units), times, identifiers, quotes and known names are
compared with the cited evidence in one normal form: a number by value and unit, never inside a longer
number, a timestamp or an identifier; a time and an identifier only on their boundaries; a quote as a
copy of one evidence text.
"""

from __future__ import annotations

import pytest

from diagnosis.release.salient import NEGATION, Evidence, Kind, Token, normalise, occurs_whole, salient_tokens


def kinds(text: str, known_names=()) -> list[tuple[str, str]]:
    return [(token.kind, token.norm) for token in salient_tokens(text, known_names)]


def found(sentence: str, *evidence: str, known_names=()) -> list[bool]:
    """Whether each salient token of ``sentence`` occurs in ``evidence``."""
    texts = Evidence(evidence)
    return [texts.contains(token) for token in salient_tokens(sentence, known_names)]


# --- token kinds -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("timed out after 30 s", [(Kind.NUMBER, "30 s")]),
        ("timed out after 30s", [(Kind.NUMBER, "30 s")]),
        ("timed out after 30 seconds", [(Kind.NUMBER, "30 s")]),
        ("timed out after 30000ms", [(Kind.NUMBER, "30000 ms")]),
        ("timed out after 30000 milliseconds", [(Kind.NUMBER, "30000 ms")]),
        ("超时30000毫秒", [(Kind.NUMBER, "30000 ms")]),
        ("waited 5 min", [(Kind.NUMBER, "5 min")]),
        ("lag of 2 hours", [(Kind.NUMBER, "2 h")]),
        ("disk 512 MB", [(Kind.NUMBER, "512 mb")]),
        ("error rate 12.5%", [(Kind.NUMBER, "12.5 %")]),
        ("error rate 12.5 percent", [(Kind.NUMBER, "12.5 %")]),
        ("12.5%的请求失败", [(Kind.NUMBER, "12.5 %")]),
        ("pool size 44.0", [(Kind.NUMBER, "44")]),
        ("pool size 44.50", [(Kind.NUMBER, "44.5")]),
        ("HTTP 503 errors", [(Kind.NUMBER, "503")]),
        ("pool size ５０", [(Kind.NUMBER, "50")]),
        ("超时３０秒", [(Kind.NUMBER, "30 s")]),
    ],
)
def test_it_reads_numbers_with_their_units(text, tokens):
    assert kinds(text) == tokens


def test_it_keeps_the_written_form_next_to_the_normal_form():
    [token] = salient_tokens("pool size ５０")

    assert token == Token(Kind.NUMBER, "50", "50")


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("since 10:05", [(Kind.TIME, "10:05")]),
        ("at 10:05:03", [(Kind.TIME, "10:05:03")]),
        ("at 10:05:03.102", [(Kind.TIME, "10:05:03.102")]),
        ("at 10:07Z", [(Kind.TIME, "10:07")]),
        ("在１０：０５超时", [(Kind.TIME, "10:05")]),
        ("on 2026-10-14", [(Kind.TIME, "2026-10-14")]),
        ("at 2026-10-14T10:05:03Z", [(Kind.TIME, "2026-10-14 10:05:03")]),
        ("at 2026-10-14t10:05:03z", [(Kind.TIME, "2026-10-14 10:05:03")]),
        ("between 10:05 and 10:07", [(Kind.TIME, "10:05"), (Kind.TIME, "10:07")]),
    ],
)
def test_it_reads_times_dates_and_iso_datetimes(text, tokens):
    assert kinds(text) == tokens


@pytest.mark.parametrize(
    ("text", "identifier"),
    [
        ("HikariPool-1 timed out", "hikaripool-1"),
        ("db_pool_pending rose", "db_pool_pending"),
        ("host 10.0.3.7 answered", "10.0.3.7"),
        ("call /api/orders failed", "api/orders"),
        ("in payment-service", "payment-service"),
        ("MySQL::Pool failed", "mysql::pool"),
        ("paged ops@example.com", "ops@example.com"),
        ("MySQL refused", "mysql"),
        ("the HikariPool refused", "hikaripool"),
        ("p99 tripled", "p99"),
        ("many 5xx", "5xx"),
        ("release v1.2.3", "v1.2.3"),
        ("ORA-00020 raised", "ora-00020"),
    ],
)
def test_it_reads_identifiers_by_digits_punctuation_or_camel_case(text, identifier):
    assert kinds(text) == [(Kind.IDENTIFIER, identifier)]


@pytest.mark.parametrize(
    "text", ["Retry, e.g. with backoff", "the primary, i.e. the writer", "pool vs. queue", "logs etc.", "at ten a.m."]
)
def test_abbreviations_are_not_identifiers(text):
    assert kinds(text) == []


def test_an_identifier_loses_trailing_punctuation_of_the_sentence():
    assert kinds("It was payment-service.") == [(Kind.IDENTIFIER, "payment-service")]
    assert kinds("Check /api/orders/:") == [(Kind.IDENTIFIER, "api/orders")]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ('the log says "Connection is  NOT available" now', [(Kind.QUOTE, "connection is not available")]),
        ("ran `SELECT 1` once", [(Kind.QUOTE, "select 1")]),
        ("it said “pool full” then", [(Kind.QUOTE, "pool full")]),
        ("日志写道「连接池耗尽」", [(Kind.QUOTE, "连接池耗尽")]),
        ("日志写道『连接池耗尽』", [(Kind.QUOTE, "连接池耗尽")]),
        ("日志显示‘空间使用 100%’", [(Kind.QUOTE, "空间使用 100%")]),
        ("日志显示＂空间使用 100%＂", [(Kind.QUOTE, "空间使用 100%")]),
        ('an empty "" and a blank " " quote', []),
    ],
)
def test_it_reads_quoted_strings_and_code_spans_whole(text, tokens):
    assert kinds(text) == tokens


def test_tokens_inside_a_quote_are_not_read_again_on_their_own():
    assert kinds('the log says "HikariPool-1 timed out after 30000ms" at 10:05') == [
        (Kind.QUOTE, "hikaripool-1 timed out after 30000ms"),
        (Kind.TIME, "10:05"),
    ]


def test_it_reads_known_names_case_insensitively_and_only_when_known():
    assert kinds("The Orders table and the payment queue", known_names=["orders", "Payment"]) == [
        (Kind.NAME, "orders"),
        (Kind.NAME, "payment"),
    ]
    assert kinds("The orders table and the payment queue") == []


def test_plain_prose_has_no_salient_tokens():
    assert kinds("The pool ran out of connections, so requests waited and failed.") == []


@pytest.mark.parametrize(
    ("text", "norm"),
    [
        ("Connection is **NOT**   available", "connection is not available"),
        ("`db_pool_pending` *rose*", "db_pool_pending rose"),
        ("2026-04-22T14:02:37Z", "2026-04-22 14:02:37"),
        ("2026-04-22 14:02:37", "2026-04-22 14:02:37"),
        ("ＰＯＯＬ　５０", "pool 50"),
        ("db\u200b-host", "db-host"),
    ],
)
def test_normalise_folds_case_width_whitespace_emphasis_and_iso_times(text, norm):
    assert normalise(text) == norm


# --- Evidence.contains: numbers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "evidence", "expected"),
    [
        ("pool size 44", "db_pool_pending value 44.0", True),
        ("pool size 44.0", "db_pool_pending value 44", True),
        ("pool size 44.00", "db_pool_pending value 44.0", True),
        ("pool size 44", "db_pool_pending value 44.5", False),
        ("pool size 4", "db_pool_pending value 44", False),
        ("pool size 50", "pool size ５０", True),
        ("pool size ５０", "pool size 50", True),
        ("1234 orders", "failed orders: 1,234", True),
        ("1\u2009234 orders", "failed orders: 1234", True),  # a thin space groups digits
        ("1\u202f234 orders", "1 of 3 shards, 234 orders", False),
        ("1,234 orders", "failed orders: 1\u00a0234", True),
    ],
)
def test_numbers_match_by_value_never_as_part_of_a_longer_number(sentence, evidence, expected):
    assert found(sentence, evidence) == [expected]


@pytest.mark.parametrize(
    ("sentence", "evidence", "expected"),
    [
        ("after 30000ms", "request timed out after 30000ms", True),
        ("after 30000 ms", "request timed out after 30000ms", True),
        ("after 30000ms", "request timed out after 30000 ms", True),
        ("after 30000 milliseconds", "request timed out after 30000ms", True),
        ("after 30 s", "request timed out after 30000ms", False),
        ("after 30 ms", "request timed out after 30 s", False),
        ("after 30 s", "request took 30 seconds", True),
        ("after 30 min", "request took 30 s", False),
        ("rate 12.5%", "error rate 12.5 %", True),
        ("rate 12.5 percent", "error rate 12.5%", True),
        ("rate 12.5%", "error rate 12.5 ms", False),
        ("超时30000毫秒", "request timed out after 30000ms", True),
    ],
)
def test_numbers_with_units_match_only_when_the_units_agree(sentence, evidence, expected):
    assert found(sentence, evidence) == [expected]


@pytest.mark.parametrize(
    ("sentence", "evidence"),
    [
        ("pool size 50", "first error at 10:50"),
        ("pool size 50", "first error at 2026-10-14T10:50:00Z"),
        ("pool size 14", "incident on 2026-10-14"),
        ("pool size 2026", "incident on 2026-10-14"),
        ("pool size 3", "first error at 10:05:03.102"),
    ],
)
def test_a_number_is_not_found_inside_a_timestamp(sentence, evidence):
    assert found(sentence, evidence) == [False]


@pytest.mark.parametrize(
    ("sentence", "evidence"),
    [
        ("pool 1", "HikariPool-1 - Connection is not available"),
        ("pool 7", "host 10.0.3.7 refused"),
        ("pool 10", "host 10.0.3.7 refused"),  # a dotted identifier's head
        ("version 1.5", "release 1.5.3 deployed"),
        ("pool 10", "host 10.0.3.7."),
        ("pool 3", "release v1.2.3 deployed"),
        ("pool 99", "p99 tripled"),
        ("pool 20", "ORA-00020 raised"),
        ("pool 2", "errors at db_pool_2 rose"),
    ],
)
def test_a_number_is_not_found_inside_an_identifier(sentence, evidence):
    assert found(sentence, evidence) == [False]


def test_a_number_that_ends_a_sentence_is_found():
    assert found("took 3.5 s", "The query took 3.5 s.") == [True]
    assert found("pool 80%", "CPU 80%.5 pods") == [True]  # no space after the full stop


def test_a_port_standing_alone_is_a_number_as_a_sentence_reads_it():
    """A change record's "listener :443 ssl policy" read as a verifier's fact states 443: its cell, cited, must
    ground it, or the fact is replaced and every draft quoting the record is refused."""
    assert found("component=listener :443 ssl policy", "listener :443 ssl policy") == [True]
    assert found("pool 443", "host:443") == [False]  # a host's port
    assert found("重试1次", "listen on fe80::1") == [False]  # IPv6's
    assert found("重试37次", "uptime 3:14:02:37") == [False]  # what a time leaves
    assert found("retried 123 times", "2026-04-22 14:02:37,123 ERROR") == [False]  # a log's milliseconds


@pytest.mark.parametrize(
    ("sentence", "evidence", "expected"),
    [
        ("offset fell to -98.5242", "clock_offset_seconds read -98.5242", True),
        ("offset fell to -98.5", "offset -98.50 s", True),
        ("offset fell to 98.5242", "clock_offset_seconds read -98.5242", False),
        ("offset fell to -98.5242", "clock_offset_seconds read 98.5242", False),
        ("offset fell to -1", "HikariPool-1 - Connection is not available", False),
        ("waiting fell to \u221236", "waiting=36", False),  # U+2212, the minus sign: not 36
        ("offset fell to \u201398.5242", "clock_offset_seconds read 98.5242", False),  # an en dash before a number
        ("offset fell to \u221298.5242", "clock_offset_seconds read -98.5242", True),
    ],
)
def test_a_minus_sign_is_part_of_the_number(sentence, evidence, expected):
    assert found(sentence, evidence) == [expected]


def test_a_date_and_a_clock_time_written_apart_are_each_found_in_an_iso_datetime():
    assert found("at 2026-10-14 10:05:03", "2026-10-14T10:05:03Z ERROR pool") == [True, True]
    assert found("at 2026-10-14 10:05:04", "2026-10-14T10:05:03Z ERROR pool") == [True, False]


def test_a_number_is_found_in_any_one_of_the_evidence_texts():
    assert found("pool 44 after 30000ms", "db_pool_pending 44.0", "timed out after 30000ms") == [True, True]


# --- Evidence.contains: times ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "evidence", "expected"),
    [
        ("since 10:05", "2026-10-14T10:05:03.102000Z ERROR pool", True),
        ("at 10:05:03", "2026-10-14T10:05:03.102000Z ERROR pool", True),
        ("at 10:05:03.1", "2026-10-14T10:05:03.102000Z ERROR pool", True),
        ("on 2026-10-14", "2026-10-14T10:05:03.102000Z ERROR pool", True),
        ("at 2026-10-14T10:05:03Z", "2026-10-14 10:05:03 ERROR pool", True),
        ("at 2026-10-14T10:05:03Z", "2026-10-14T10:05:03.102000Z ERROR pool", True),
        ("at 14:02", "2026-04-22T14:02:37Z", True),
        ("since 10:05", "09:10:05 ERROR pool", False),
        ("since 10:05", "at 10:051 ERROR pool", False),
        ("since 10:05", "at 110:05", False),
        ("since 10:05", "at 10:06", False),
        ("at 10:05:04", "2026-10-14T10:05:03.102000Z", False),
        ("on 2026-10-15", "2026-10-14T10:05:03Z", False),
    ],
)
def test_times_match_only_on_their_boundaries(sentence, evidence, expected):
    assert found(sentence, evidence) == [expected]


# --- Evidence.contains: identifiers and names --------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "evidence", "expected"),
    [
        ("HikariPool-1 timed out", "hikaripool-1 - connection is not available", True),
        ("HikariPool-1 timed out", "HikariPool-12 - connection is not available", False),
        ("HikariPool-1 timed out", "HikariPool-10 - connection is not available", False),
        ("pool-1 timed out", "HikariPool-1 - connection is not available", False),
        ("db-host-7 failed", "db-host-77 failed", False),
        ("db-host-7 failed", "db-host-7 failed", True),
        ("10.0.3.7 failed", "host 10.0.3.71 refused", False),
        ("10.0.3.7 failed", "host 110.0.3.7 refused", False),
        ("MySQL refused", "mysql refused the client", True),
        ("MySQL refused", "mysqld refused the client", False),
        ("db_pool_pending rose", "`db_pool_pending` 44.0", True),
    ],
)
def test_identifiers_match_only_on_their_boundaries(sentence, evidence, expected):
    assert found(sentence, evidence) == [expected]


def test_known_names_match_on_word_boundaries():
    assert found("the orders table", "SELECT * FROM orders", known_names=["orders"]) == [True]
    assert found("the orders table", "SELECT * FROM preorders", known_names=["orders"]) == [False]


# --- Evidence.contains: quotes -----------------------------------------------------------------------------

LOG_LINE = "HikariPool-1 - Connection is **not** available, request timed out after 30000ms"


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ('"Connection is not available"', True),
        ('"connection IS NOT   available"', True),
        ('"Connection is `not` available, request timed"', True),
        ("`HikariPool-1 - Connection`", True),
        ('"Connection is available"', False),
        ('"connection timed out"', False),
        ('"Connection is not available, request timed out after 3000ms"', False),
    ],
)
def test_a_quote_must_be_a_copy_of_the_evidence_after_normalisation(sentence, expected):
    assert found(sentence, LOG_LINE) == [expected]


def test_a_quote_may_not_be_stitched_together_from_two_evidence_texts():
    assert found('"available, request timed"', "Connection is not available,", "request timed out") == [False]


def test_quotes_tells_whether_a_text_is_a_copy_of_one_evidence_text():
    evidence = Evidence([LOG_LINE, "db_pool_pending 44.0"])

    assert evidence.quotes("connection is NOT available, request")
    assert not evidence.quotes("connection is available")
    assert not evidence.quotes("   ")


def test_empty_evidence_contains_nothing():
    evidence = Evidence(["", None])  # type: ignore[list-item]

    assert evidence.texts == []
    assert [evidence.contains(token) for token in salient_tokens('44 at 10:05 in db-host "x y"')] == [False] * 4


# --- regressions found by review ---------------------------------------------------------------------------


def test_a_thousands_separator_keeps_one_number():
    assert [(token.kind, token.norm) for token in salient_tokens("1,234 orders failed, then 56.")] == [
        ("number", "1234"),
        ("number", "56"),
    ]


def test_a_unit_the_evidence_never_gave_is_not_grounded_by_a_bare_count():
    evidence = Evidence(["HikariPool-1 (active=10/10, waiting=36)"])

    assert [evidence.contains(token) for token in salient_tokens("waiting 36 s, waiting 36")] == [False, True]


def test_a_number_written_straight_after_a_chinese_word_is_the_evidences_number():
    """ "调整为5分钟" states 5 minutes: read as part of a word (为 is a letter to ``isalnum``), it grounded
    nothing, and a fact quoting the record was replaced by its first excerpt; "HikariPool-1" stays a name."""
    evidence = Evidence(["菜单缓存过期时间调整为5分钟，商家改价更快生效", "连接池已满（超过80%）", "HikariPool-1"])

    sentence = "缓存过期时间为 5 分钟，超过 80%，HikariPool 1"
    assert [(token.norm, evidence.contains(token)) for token in salient_tokens(sentence)] == [
        ("5 min", True),
        ("80 %", True),
        ("hikaripool", True),
        ("1", False),
    ]


def test_an_underscore_binds_like_a_letter():
    evidence = Evidence(["db_pool_pending_max 44.0 on payment-service-66b9c8d7f-5fx9s"])

    assert [evidence.contains(token) for token in salient_tokens("db_pool_pending and payment-service")] == [
        False,
        True,
    ]


@pytest.mark.parametrize(
    ("sentence", "evidence", "expected"),
    [
        ("`p99_latency_ms=150`", "p99_latency_ms=1500 on payment-service", False),
        ('"idle=0, waiting=3"', "HikariPool-1 - Connection stats (total=10, active=10, idle=0, waiting=36)", False),
        ("`p99_latency_ms=1500`", "p99_latency_ms=1500 on payment-service", True),
    ],
)
def test_a_quote_that_cuts_a_number_of_the_evidence_is_not_found(sentence, evidence, expected):
    assert found(sentence, evidence)[0] is expected


def test_a_unit_is_read_after_its_number_whatever_came_before():
    """A superscript is written as two characters (`` 1``): the unit after a later number is still found."""
    assert [token.norm for token in salient_tokens("¹¹ 30 s")][-1] == "30 s"


@pytest.mark.parametrize(
    ("text", "negates"),
    [
        ("别重启主机", True),
        ("千万别调大 connectionTimeout", True),
        ("日志级别 WARN", False),
        ("识别失败的请求", False),
        ("两者的区别", False),
        ("特别慢", False),
        ("别的服务正常", False),
        ("别名 orders", False),
        ("order-api 个别请求超时", False),
        ("两个阈值分别为 80 和 90", False),
        ("与旧版有别于配置", False),
        # "don't" after a word that would make a compound with it
        ("这部分别改，由 DBA 统一调整", True),
        ("这个别重启，等自动切换", True),
        ("故障转移期间别人工重启 orders-db", True),
        ("告警出现时先别处理，等连接池自动恢复", True),
    ],
)
def test_bie_negates_as_dont_not_inside_another_word(text, negates):
    """级别 (level) before an excerpt is no negation of it: the gatekeeper refused such a citation."""
    assert bool(NEGATION.search(text)) is negates


def test_an_excerpt_after_a_word_with_bie_in_it_is_cited_whole():
    assert occurs_whole("WARN 告警已恢复", "日志级别 WARN 告警已恢复", cited=True)
    assert not occurs_whole("重启主机", "别重启主机", cited=True)


@pytest.mark.parametrize(
    ("sentence", "grounded"),
    [
        ("变更时间 2026年11月12日 02:58:20", True),
        ("变更发生在 11月12日 02:58", True),
        ("变更发生在 １１月１２号", True),
        ("变更发生在 12月11日", False),  # another day
        ("变更发生在 2025年11月12日", False),  # another year
    ],
)
def test_a_date_written_the_chinese_way_is_the_evidences_date(sentence, grounded):
    """ "11月12日" is the evidence's 2026-11-12 to a reader: not the numbers 11 and 12, which it never states."""
    evidence = Evidence(["service=image-worker; changed_at=2026-11-12 02:58:20"])
    assert all(evidence.contains(token) for token in salient_tokens(sentence)) is grounded


@pytest.mark.parametrize(
    ("sentence", "evidence", "grounded"),
    [
        ("变更发生在 11月12日", "重试耗时11-12秒", False),  # a range, not a date
        ("变更发生在 11月12日", "release 2025-11-12", True),  # a month and day, of any year
        ("变更发生在 11月12日", "变更时间 2026年11月12日 02:58", True),
        ("变更发生在 11月12日", "变更时间 11月12日 02:58", True),
        ("变更发生在 11月12日", "build 12026-11-12", False),
        ("change at 2026-11-12", "变更时间 2026年11月12日", True),  # evidence's Chinese date in ISO's form
        ("change at 2026-11-12", "变更时间 11月12日", False),  # no year stated
        ("11月12日的索引", "index logs-2026-11-12", True),
        ("重试了11次", "发布于 11月12日", False),  # a date's month is no number
        ("重试了12次", "发布于 11月12日", False),
        ("重启后有3个节点异常", "发布于11月12日3点重启", False),  # nor the hour written after it
        ("有10个请求失败", "2026年12月1日10时发布", False),
        ("变更于02:58", "变更时间 2026年11月12日02:58", True),  # a clock time written straight after it
        ("11月12日 02:58 出现错误", "11-12 02:58:20.123 ERROR HikariPool-1", True),  # a log's month and day
    ],
)
def test_a_chinese_date_is_compared_as_a_date(sentence, evidence, grounded):
    assert all(found(sentence, evidence)) is grounded


@pytest.mark.parametrize(
    ("sentence", "evidence", "grounded"),
    [
        ("订单服务重试5次后放弃", "订单服务重试5次后放弃", True),  # an honest copy
        ("重试5次", "ジョブ重试5次", True),
        ("等待5秒后重试", "等待5秒后重试", True),
        ("QPS达到1万5", "QPS达到1万5", False),  # its 1 of "1万5" is stated nowhere on its own
        ("重试了5次", "重试5次后放弃", False),  # other words before it
        ("重试3次", "重试3-5次", False),  # a range's first bound
        ("耗时30分钟", "耗时1小时30分钟", False),  # part of 90 minutes
        ("轮询5秒", "重试5秒", False),
        ("重试5分钟", "重试5次", False),  # another unit
        ("重试5万次", "重试5次", False),
        ("重试5次", "重试5秒", False),
        ("重试5次", "订单服务重试5万次", False),  # a multiplier the sentence leaves out
        ("扩容5台", "扩容5倍", False),
        ("每小时30次请求超时", "耗时1小时30分钟", False),  # the rest of a compound
        ("流量为十一万5", "流量为一万5", False),
        ("从库2台延迟升高", "延迟升高的是从库2", False),  # a label, then a count
        ("每周3次发布", "发布窗口为每周3", False),
        ("延迟升高的是从库2。", "延迟升高的是从库2", True),
        ("重试3～5次", "重试3次后放弃", False),  # a range's bound in the sentence
        ("重试1万5次", "重试1次后放弃", False),
        ("重试3次", "重试3、5次", False),  # a list's, a fraction's, an open amount's mark
        ("重试3次", "重试3/5次", False),
        ("重试5次", "重试5+次", False),
        ("ΣΑ5次", "σα5次", True),  # compared case folded
        # A second review's cases: a digit of the number before it in the words before it
        ("凌晨4点30，连接池耗尽", "14点30，连接池耗尽，共4个实例", False),
        ("第11批5台", "第1批5台，共11个", False),
        ("共2万零5次", "共2万次，另1万零5次", False),
        ("服务持续5个小时不可用", "服务持续5个月不可用", False),  # a counted span, another unit
        ("触发限流5次/秒", "触发限流5次", False),  # a count, then a rate
        ("重试5 百次", "重试5 次", False),  # spaces are no clause's end
        ("从库2 台延迟", "延迟升高的是从库2", False),
        ("第5次重试失败", "第5次重试失败", True),  # at the start of both
        ("原因：第5次重试失败", "第5次重试失败", True),  # the words before it end at a clause's edge
        ("重试 5 次", "节点宕机，重试5次", True),  # a draft's spaces around a number in Chinese
    ],
)
def test_a_number_after_a_chinese_word_is_grounded_by_the_same_words_before_it(sentence, evidence, grounded):
    """A number written straight after a word that introduces no amount ("重试5次") is not read from the
    evidence, but a sentence that copies it with the words before it states what the evidence states."""
    assert all(found(sentence, evidence)) is grounded
