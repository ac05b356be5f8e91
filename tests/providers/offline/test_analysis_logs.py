"""Log templates, newness at the onset, and the earliest bursting service."""

from __future__ import annotations

from datetime import UTC, datetime

from diagnosis.providers.offline.analysis.logs import LogRecord, analyse, burst_onset, mask, templates_of


def _record(minute: int, second: int, service: str, message: str, level: str = "ERROR") -> LogRecord:
    ts = datetime(2025, 6, 1, 8, minute, second, tzinfo=UTC)
    return LogRecord("inv", f"$.records[{minute * 60 + second}].message", service, level, message, ts, ts.isoformat())


def test_masking_merges_messages_that_differ_only_in_ids_and_numbers():
    assert mask("GET /api/v1/orders/ORD-5519609 failed after 1000ms (trace ed2636ce56593c1e)") == (
        "GET /api/vN/orders/ORD-N failed after N (trace N)"
    )
    records = [_record(30, 1, "db", "slot 7 taken"), _record(30, 2, "db", "slot 12 taken")]
    [template] = templates_of(records)
    assert template.count == 2 and template.first is records[0]


def test_masking_merges_messages_that_differ_only_in_an_address_masked_or_not():
    """A mailer's routine soft bounce to e***@gmx.de, first seen after the onset, was a "new" warning and
    named the root cause: its template differed from the same bounce to k***@gmx.de an hour earlier only in
    the address."""
    assert mask("deferred (soft bounce) to=e***@gmx.de attempt=1") == mask(
        "deferred (soft bounce) to=k***@gmx.de attempt=3"
    )
    assert mask("login failed for ops.team+oncall@example.co.uk") == "login failed for N@example.co.uk"
    assert mask("token of fraud-svc@fraud.internal expired") != mask("token of ledger-svc@ledger.internal expired")
    assert mask("failed record shipment-events-3@88412907") == "failed record shipment-events-N@N", "no address"
    assert mask("loaded lodash@4.17.21") == "loaded lodash@N.N", "a package's version is no address"


def test_the_burst_onset_ignores_a_lone_early_error():
    records = [_record(5, 0, "mailer", "smtp timeout"), *(_record(30, second, "db", "refused") for second in (1, 2, 3))]
    assert burst_onset(records) == datetime(2025, 6, 1, 8, 30, 1, tzinfo=UTC)


def test_the_root_is_the_service_whose_new_errors_start_first():
    onset = datetime(2025, 6, 1, 8, 30, tzinfo=UTC)
    records = [
        _record(10, 0, "api", "cache warm-up slow"),  # before the onset: background
        _record(10, 5, "api", "cache warm-up slow"),
        _record(30, 5, "db", "too many clients"),
        _record(30, 9, "db", "too many clients"),
        _record(30, 20, "api", "could not obtain connection: timeout"),
        _record(30, 40, "api", "could not obtain connection: timeout"),
        _record(29, 0, "mailer", "lone failure"),
    ]
    findings = analyse(records, onset, focus_services=["api"])
    assert findings.root_service == "db"
    assert [template.pattern for template in findings.root_templates] == ["too many clients"]
    assert [template.pattern for template in findings.symptom_templates] == ["could not obtain connection: timeout"]


def test_root_templates_are_the_earliest_then_the_weightiest_where_fault_words_weigh():
    records = [
        _record(30, 1, "broker", "alarm set"),
        *(_record(31, second, "broker", f"publish blocked for {second}s") for second in range(5)),
        *(_record(32, second, "broker", "queue stats ok") for second in range(9)),
    ]
    findings = analyse(records, datetime(2025, 6, 1, 8, 30, tzinfo=UTC), focus_services=[])
    assert [template.pattern for template in findings.root_templates] == [
        "alarm set",
        "publish blocked for N",
        "queue stats ok",
    ]


def test_without_errors_warnings_decide():
    records = [_record(30, 1, "cache", "evicting keys", "WARN"), _record(30, 2, "cache", "evicting keys", "WARN")]
    assert analyse(records, None, []).root_service == "cache"


def test_a_caller_that_names_its_failing_dependency_points_at_it():
    """cart logs its timeout before pricing logs its own crash; cart's errors blame pricing, so pricing is the root."""
    onset = datetime(2025, 6, 1, 8, 30, tzinfo=UTC)
    records = [
        _record(30, 5, "cart", "pricing-svc POST /price failed: timeout after 2000ms"),
        _record(30, 9, "cart", "pricing-svc POST /price failed: timeout after 2000ms"),
        _record(30, 30, "pricing-svc", "java.lang.OutOfMemoryError: Java heap space"),
        _record(30, 31, "pricing-svc", "java.lang.OutOfMemoryError: Java heap space"),
    ]
    findings = analyse(records, onset, focus_services=["cart"])
    assert findings.root_service == "pricing-svc"
    assert [template.pattern for template in findings.root_templates] == ["java.lang.OutOfMemoryError: Java heap space"]


def test_a_named_service_that_does_not_fail_is_not_blamed():
    onset = datetime(2025, 6, 1, 8, 30, tzinfo=UTC)
    records = [
        _record(30, 5, "cart", "db pool exhausted while calling pricing-svc"),
        _record(30, 9, "cart", "db pool exhausted while calling pricing-svc"),
        _record(31, 0, "pricing-svc", "request served", level="INFO"),
    ]
    assert analyse(records, onset, focus_services=["cart"]).root_service == "cart"


def test_a_quiet_component_whose_fault_warnings_come_first_is_the_root():
    """A kernel that drops packets only warns; its victims' timeouts are the errors, and they come later."""
    onset = datetime(2025, 6, 1, 8, 30, tzinfo=UTC)
    records = [
        *(
            _record(30, second, "kernel", "nf_conntrack: table full, dropping packet", level="WARN")
            for second in (1, 9, 20)
        ),
        _record(30, 40, "checkout", "dial tcp 10.42.7.41:8080: i/o timeout"),
        _record(30, 50, "checkout", "dial tcp 10.42.7.41:8080: i/o timeout"),
    ]
    findings = analyse(records, onset, focus_services=["checkout"])
    assert findings.root_service == "kernel"
    assert [template.pattern for template in findings.root_templates] == ["nf_conntrack: table full, dropping packet"]


def test_early_warnings_do_not_outrank_errors_when_they_name_no_fault_or_their_service_has_errors():
    onset = datetime(2025, 6, 1, 8, 30, tzinfo=UTC)
    errors = [_record(30, 40, "db", "too many clients"), _record(30, 50, "db", "too many clients")]
    neutral = [_record(30, second, "batch", "export started", level="WARN") for second in (1, 2)]
    own = [_record(30, second, "sms", "receipt undelivered: handset unreachable", level="WARN") for second in (1, 2)]
    own_errors = [_record(31, second, "sms", "provider rate limit exceeded") for second in (1, 2)]

    assert analyse([*neutral, *errors], onset, focus_services=[]).root_service == "db"
    findings = analyse([*own, *own_errors, *errors], onset, focus_services=[])
    assert findings.root_service == "db"  # sms is judged by its errors, which came after db's


def test_a_single_early_fault_warning_is_no_burst():
    onset = datetime(2025, 6, 1, 8, 30, tzinfo=UTC)
    records = [
        _record(30, 1, "kernel", "table full, dropping packet", level="WARN"),
        _record(30, 40, "db", "too many clients"),
        _record(30, 50, "db", "too many clients"),
    ]
    assert analyse(records, onset, focus_services=[]).root_service == "db"


def test_a_routine_warning_now_and_then_is_no_burst_even_before_the_errors():
    """A token that expired every few minutes, under a version string that makes each client's line a template
    of its own, is routine: a failing component warns again and again."""
    onset = datetime(2025, 6, 1, 8, 30, tzinfo=UTC)
    routine = [
        _record(minute, 0, "bff", "token expired, returning 401 client=android/8.11.2", level="WARN")
        for minute in (29, 36, 44)
    ]
    errors = [_record(45, second, "db", "too many clients") for second in (1, 2)]
    assert analyse([*routine, *errors], onset, focus_services=[]).root_service == "db"


def test_chinese_warnings_that_name_a_fault_count_as_fault_warnings():
    onset = datetime(2025, 6, 1, 8, 30, tzinfo=UTC)
    blocked = [_record(30, second, "edge", "WAF 拦截：规则 N 命中，动作 deny", level="WARN") for second in (1, 5, 9)]
    errors = [_record(31, second, "order", "下单失败") for second in (1, 2)]
    assert analyse([*blocked, *errors], onset, focus_services=["order"]).root_service == "edge"
