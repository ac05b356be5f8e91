"""Change correlation: the related change announced closest before the failure, or none."""

from __future__ import annotations

from datetime import UTC, datetime

from diagnosis.providers.offline.analysis.changes import Failure, announced_change
from diagnosis.providers.offline.analysis.logs import LogRecord
from diagnosis.providers.offline.text import terms
from diagnosis.providers.offline.vocabulary import announces_change

FIRST_ERROR = datetime(2025, 6, 1, 8, 30, tzinfo=UTC)


def _record(minute: int, service: str, message: str, *, host: str | None = None, level: str = "INFO") -> LogRecord:
    ts = datetime(2025, 6, 1, minute // 60, minute % 60, tzinfo=UTC)
    return LogRecord("inv", f"$.records[{minute}].message", service, level, message, ts, ts.isoformat(), host)


def _failure(*own: LogRecord, hosts: frozenset[str] = frozenset()) -> Failure:
    return Failure(
        onset=FIRST_ERROR,
        service="ledger-api",
        hosts=hosts,
        terms=frozenset(terms("ledger-api could not obtain connection pool timeout")),
        records=frozenset(own),
    )


def test_the_related_change_closest_before_the_first_error_wins():
    old = _record(8 * 60 + 1, "ledger-api", "starting version v5.0.9")
    recent = _record(8 * 60 + 26, "ledger-api", "config reloaded: db pool max 20 -> 80")
    unrelated = _record(8 * 60 + 28, "mailer", "starting version v2.1.0")
    assert announced_change([old, recent, unrelated], _failure()) is recent


def test_a_change_after_the_first_error_or_long_before_it_is_not_the_trigger():
    after = _record(8 * 60 + 31, "ledger-api", "restarting pods after the incident")
    ancient = _record(5 * 60, "ledger-api", "deployment of ledger-api v5.0.0 finished")
    assert announced_change([after, ancient], _failure()) is None


def test_routine_lines_and_the_failure_own_records_announce_nothing():
    polls = [_record(8 * 60 + minute, "ledger-api", f"config poll: pool {minute} unchanged") for minute in (0, 12, 25)]
    error = _record(8 * 60 + 29, "ledger-api", "pool timeout; restarting connection", level="ERROR")
    assert announced_change([*polls, error], _failure(error)) is None


def test_a_change_on_the_failing_host_is_related_even_without_shared_words():
    on_host = _record(8 * 60 + 20, "chronyd", "chronyd restarted, selecting sources", host="cart-2")
    elsewhere = _record(8 * 60 + 25, "chronyd", "chronyd restarted, selecting sources", host="cart-1")
    assert announced_change([on_host, elsewhere], _failure(hosts=frozenset({"cart-2"}))) is on_host


def test_change_announcements_in_english_and_chinese():
    for message in (
        "Deployment CHG-20431 started: payment-service v2.13.2 -> v2.14.0",
        "feature flag search.rerank-v2 enabled for 100% (was 10%)",
        "deployment search-service scaled to 0 replicas (was 6)",
        "job nightly-export started (run JR-1)",
        "Executing SQL: ALTER TABLE invoices ADD COLUMN region VARCHAR(8)",
        "配置已重新加载：tmp_cleanup.enabled=false",
        "开始灰度发布 v3.2.0",
        "batch import orders-2025-03 scheduled",
        "openssl 已升级到 3.0.15",
        "内核升级完成，准备重启",
        "升级处理器固件",
        "升级运维平台到 v3",
        "HPA checkout-api max_replicas 10 -> 2",
        "desired_replicas 6 -> 0",
        "replicas: 3 -> 6",
    ):
        assert announces_change(message), message
    for message in (
        "GET /api/v1/orders 200 31ms",
        "Renewal due subscription_id=SUB-1",
        "任务完成 job_id=IMG-1",
        "processed batch records=157 in 15.5s, committed offsets",  # routine work, no change
        "坐席处理工单 TK1068：用户端仍提示订单不存在，已安抚用户并升级二线",  # a ticket escalated, no upgrade
        "投诉已升级至值班经理",
        "Normal SuccessfulCreate replicaset/checkout-api-6b8d9f7c5: Created pod: checkout-api-6b8d9f7c5-w8j3d",
        "工单升级为P1",
        "已将问题升级给SRE团队",
        "告警升级：磁盘使用率 95%",
        "告警已升级",
        "事件已升级为重大故障",
        "问题已升级到技术支持",
        "已升级至 SEV1",
        "故障等级升级为S1",
        "已升级给DBA",
        "客户投诉已经升级",
    ):
        assert not announces_change(message), message
