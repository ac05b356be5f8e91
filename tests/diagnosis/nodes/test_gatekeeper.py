"""Gatekeeper: every rule of DESIGN.md, fail closed, a reason per failed binding (adversarial cases)."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache

from diagnosis.graph.status import GatekeeperStatus
from diagnosis.models import ChatSession, DiagnosisRun
from diagnosis.nodes.gatekeeper import check_output
from tools.models import InvocationStatus
from tools.store import load_verified_payload, payload_key

pytestmark = pytest.mark.django_db

ERROR_PATH = "$.records[1].message"
EXCERPT = "Connection is not available, request timed out"


def report(*claims):
    return {
        "schema": "executor_evidence_v2",
        "claims": list(claims),
        "no_evidence_reason": None,
        "completed_queries": [],
    }


def claim(claim_id, *bindings):
    return {"claim_id": claim_id, "statement": f"statement {claim_id}", "bindings": list(bindings)}


def binding(invocation_id, *, tool="query_logs", path=ERROR_PATH, excerpt=EXCERPT):
    return {
        "source_invocation_id": str(invocation_id),
        "tool_name": tool,
        "raw_path": path,
        "evidence_excerpt": excerpt,
    }


def check(run, output):
    return check_output(output, lambda invocation_id: load_verified_payload(run.pk, invocation_id))


def reasons(result):
    return [b.reason for b in result.checked]


def test_it_passes_a_real_excerpt(run, record_invocation):
    invocation = record_invocation(run)

    result = check(run, report(claim("c1", binding(invocation.pk))))

    assert result.status == GatekeeperStatus.PASS
    assert result.verified_claim_ids == ["c1"]
    assert result.checked[0].matched_text == EXCERPT
    assert result.verified_binding_count == 1


@pytest.mark.parametrize(
    ("value", "excerpt", "reason"),
    [("20", "20", "ok"), ("ok", "ok", "ok"), ("2000", "20", "excerpt_length"), (20, "20", "excerpt_length")],
)
def test_a_short_excerpt_passes_only_as_the_whole_text_at_its_path(run, record_invocation, value, excerpt, reason):
    """A setting's new value ``"20"`` is the decisive fact of a change record; ``20`` of ``2000`` is no citation,
    nor a small number (a row's id, a count over a WHERE the model wrote)."""
    payload = {"columns": ["key", "new_value"], "rows": [["timeout-ms", value]]}
    invocation = record_invocation(run, "query_mysql", payload)

    result = check(
        run, report(claim("c1", binding(invocation.pk, tool="query_mysql", path="$.rows[0][1]", excerpt=excerpt)))
    )

    assert reasons(result) == [reason]


def test_it_normalises_whitespace_of_the_excerpt(run, record_invocation):
    invocation = record_invocation(run)

    result = check(run, report(claim("c1", binding(invocation.pk, excerpt="Connection   is not\navailable"))))

    assert result.status == GatekeeperStatus.PASS


def test_it_matches_numbers_by_their_json_text(run, record_invocation):
    payload = {"series": [{"service": "s", "metric": "m", "points": [{"ts": "t", "value": 412.5}]}]}
    invocation = record_invocation(run, "query_metrics", payload)

    result = check(
        run,
        report(
            claim(
                "c1", binding(invocation.pk, tool="query_metrics", path="$.series[0].points[0].value", excerpt="412.5")
            )
        ),
    )

    assert result.status == GatekeeperStatus.PASS


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda inv: binding(uuid.uuid4()), "not_found"),
        (lambda inv: binding("not-a-uuid"), "not_found"),
        (lambda inv: binding(str(inv.pk).upper()), "not_found"),
        (lambda inv: binding(f"urn:uuid:{inv.pk}"), "not_found"),
        (lambda inv: binding(inv.pk.hex), "not_found"),
        (lambda inv: binding(inv.pk, tool="query_metrics"), "tool_mismatch"),
        (lambda inv: binding(inv.pk, path="$.records[0].message"), "excerpt_not_found"),
        (lambda inv: binding(inv.pk, path="$.records[9].message"), "path_unresolved"),
        (lambda inv: binding(inv.pk, path="$.records[-1].message"), "path_unresolved"),
        (lambda inv: binding(inv.pk, path="$.records[*].message"), "path_unresolved"),
        (lambda inv: binding(inv.pk, path="$..message"), "path_unresolved"),
        (lambda inv: binding(inv.pk, path="$.records[1].nope"), "path_unresolved"),
        (lambda inv: binding(inv.pk, path="$"), "path_too_broad"),
        (lambda inv: binding(inv.pk, path="$.records[1]"), "path_too_broad"),
        (lambda inv: binding(inv.pk, path="$.records"), "path_too_broad"),
        (lambda inv: binding(inv.pk, excerpt="request timed out after 300"), "excerpt_not_found"),
        (lambda inv: binding(inv.pk, excerpt="0000ms"), "excerpt_not_found"),
        (lambda inv: binding(inv.pk, excerpt=EXCERPT.replace("timed", "timad")), "excerpt_not_found"),
        (lambda inv: binding(inv.pk, excerpt="Co"), "excerpt_length"),
        (lambda inv: binding(inv.pk, excerpt="x" * 501), "excerpt_length"),
    ],
    ids=[
        "forged-id",
        "malformed-id",
        "upper-case-id",
        "urn-id",
        "hex-id",
        "wrong-tool",
        "wrong-path",
        "out-of-range",
        "negative-index",
        "wildcard",
        "recursive",
        "missing-key",
        "whole-payload",
        "a-record",
        "a-list",
        "number-cut-after",
        "number-cut-before",
        "altered-excerpt",
        "too-short",
        "too-long",
    ],
)
def test_it_rejects_a_lying_binding(run, record_invocation, mutate, reason):
    invocation = record_invocation(run)

    result = check(run, report(claim("c1", mutate(invocation))))

    assert result.status == GatekeeperStatus.REJECT
    assert reasons(result) == [reason]
    assert result.verified_claim_ids == []


@pytest.mark.parametrize(
    ("value", "excerpt", "passed"),
    [
        ("p99 latency 1500ms, pool not exhausted", "latency 15", False),
        ("p99 latency 1500.5ms", "latency 1500", False),
        ("p99 latency 1,500ms", "latency 1", False),
        ("waiting=36, idle=0", "waiting=3", False),
        ("p99 latency 1500ms, pool not exhausted", "latency 1500", True),
        ("error 1205. Retrying", "error 1205", True),
        ("took 15 s, then 1500 ms", "took 15", True),  # the first occurrence that is whole counts
        ("-36.0", "36.0", False),  # a negative number's sign is part of it
        ("pool delta=-36 conns", "36 conns", False),
        ("drift \u221236 ms", "36 ms", False),
        ("pool delta=-36 conns", "-36 conns", True),
        ("HikariPool-1 - Connection is not available", "1 - Connection", True),  # a hyphen, no sign
        ("range 2-3 s", "3 s", True),
    ],
)
def test_an_excerpt_never_cuts_a_number(run, record_invocation, value, excerpt, passed):
    invocation = record_invocation(run, "query_logs", {"records": [{"message": value}]})

    result = check(run, report(claim("c1", binding(invocation.pk, path="$.records[0].message", excerpt=excerpt))))

    assert result.checked[0].passed is passed


@pytest.mark.parametrize(
    ("value", "excerpt", "passed"),
    [
        ("payment-service unavailable after 3 attempts", "available after 3 attempts", False),
        ("connection timeouts rising", "connection timeout", False),
        ("pod NOT_READY since 10:05", "READY since 10:05", False),
        ("The pool isn\u2019t exhausted", "exhausted", False),  # a typographic apostrophe
        ("请勿调大 connectionTimeout", "调大 connectionTimeout", False),
        ("- Do not restart ledger-db\n- Roll back the pool size change", "Roll back the pool size change", True),
        ("payment-service unavailable after 3 attempts", "unavailable after 3 attempts", True),
        ("Do not raise connectionTimeout; it hides the leak", "raise connectionTimeout", False),
        ("No errors on order-db since 10:05", "errors on order-db since 10:05", False),
        ("The pool isn't exhausted", "exhausted", False),
        ("连接池没有耗尽", "池没有耗尽", True),
        ("连接池没有耗尽", "有耗尽", False),
        ("Do not raise connectionTimeout; raise maximumPoolSize", "raise maximumPoolSize", True),  # another clause
        ("HikariPool-1 - Connection is not available, request timed out", "request timed out", True),
        ("数据库连接池耗尽", "连接池耗尽", True),  # no spaces between Chinese words: a part of one is no cut word
        ("Never, ever raise connectionTimeout", "ever raise connectionTimeout", False),  # the comma ends no scope
        ("Errors: none. Then raise maximumPoolSize", "raise maximumPoolSize", True),
        ("Roll back first, then raise maximumPoolSize", "raise maximumPoolSize", True),
        ("tmp cleanup skipped: tmp_cleanup.enabled=false", "tmp_cleanup.enabled", False),  # its value left out
        ("disk_full: no, inodes_full: yes", "disk_full", False),
        ("disk_full: no, inodes_full: yes", "inodes_full", True),
        ("healthy=0.5 of replicas", "healthy", True),  # a ratio, not a negative value
        ("tmp cleanup skipped: tmp_cleanup.enabled=false", "tmp_cleanup.enabled=false", True),
        # A review's: a negation alone over several commas, a forbidding sentence over its list, other words
        # that forbid, a quoted key.
        (
            "Do not, ever, raise connectionTimeout on payment-service",
            "raise connectionTimeout on payment-service",
            False,
        ),
        ("You must never, ever, raise connectionTimeout", "raise connectionTimeout", False),
        ("NEVER!! raise connectionTimeout", "raise connectionTimeout", False),
        (
            "Do not restart payment-db, drop the archive table or purge the payment queue.",
            "purge the payment queue",
            False,
        ),
        ("请勿扩容、重启或回滚 payment-service", "重启或回滚 payment-service", False),
        ("Avoid raising maximumPoolSize above the database limit", "raising maximumPoolSize above the database", False),
        ('{"tmp_cleanup.enabled": false, "retries": 3}', "tmp_cleanup.enabled", False),
        ("cleanup is off since 03:10", "cleanup", False),
        ("Ｄｏ ｎｏｔ raise connectionTimeout", "raise connectionTimeout", False),  # full-width letters
        ("DONT raise connectionTimeout", "raise connectionTimeout", False),
        ("Do not restart ledger-db, but roll back the pool size change", "roll back the pool size change", True),
        ("No errors on order-db since 10:05. Restart the pool", "Restart the pool", True),
        # A negation over an aside, and one after its subject: the aside ends no scope.
        ("Never, under any load, raise connectionTimeout", "raise connectionTimeout", False),
        ("Do not - even under load - raise connectionTimeout", "raise connectionTimeout", False),
        ("Operators should never, whatever the load, raise connectionTimeout", "raise connectionTimeout", False),
        ("On-call engineers must not restart the pool or raise connectionTimeout", "raise connectionTimeout", False),
        ("If not, raise connectionTimeout", "raise connectionTimeout", True),  # a condition, not a negation
        ("Not all replicas lag, raise connectionTimeout", "raise connectionTimeout", True),
        ("Never restart it - Roll back, raise connectionTimeout", "raise connectionTimeout", True),  # next item
        # A negation governs its own clause, not the goal a sentence states before what to do (a review's).
        ("Writes must not be lost, so fail over to the replica.", "fail over to the replica", True),
        ("The pool should never run dry, so raise maximumPoolSize to 50.", "raise maximumPoolSize to 50", True),
        (
            "The job should not, by design, run at peak; it ran at 10:02 and locked the orders table.",
            "it ran at 10:02 and locked the orders table",
            True,
        ),
        ("If it does not, restart payment-db.", "restart payment-db", True),
        (
            "The cache should not be flushed during peak hours, and the pool was raised to 80 at 10:05.",
            "the pool was raised to 80 at 10:05",
            True,
        ),
        # ... while whoever an instruction is given to, it forbids its list, and a full stop inside an aside
        # ("e.g.", a host name) ends nothing.
        ("DBAs must never restart payment-db, drop the archive or purge the queue.", "purge the queue", False),
        ("The on-call engineer must never, under any load, restart payment-db.", "restart payment-db", False),
        ("Never, e.g. at peak, raise connectionTimeout.", "raise connectionTimeout", False),
        ("Never, even on payment-db.prod, raise connectionTimeout.", "raise connectionTimeout", False),
        ("You may not, at peak, restart payment-db.", "restart payment-db", False),
        ("You cannot, at peak, restart payment-db.", "restart payment-db", False),
        ("Under no circumstances, even at peak, restart payment-db.", "restart payment-db", False),
        ("It is forbidden, even at peak, to restart payment-db.", "to restart payment-db", False),
        ("If it cannot, restart payment-db.", "restart payment-db", True),
        # As the page shows it: emphasis marks, invisible characters and an ellipsis hide no negation.
        ("Do _not_ raise connectionTimeout to 60s; it hides the leak.", "raise connectionTimeout to 60s", False),
        ("__Do not__ raise connectionTimeout", "raise connectionTimeout", False),
        ("_Never_ raise connectionTimeout", "raise connectionTimeout", False),
        ("Do n\u200bot raise connectionTimeout", "raise connectionTimeout", False),
        ("Do not... raise connectionTimeout", "raise connectionTimeout", False),
        ("state NOT_READY; raise connectionTimeout", "raise connectionTimeout", True),  # a name, not emphasis
    ],
)
def test_an_excerpt_never_cuts_a_word_nor_leaves_out_its_clauses_negation(
    run, record_invocation, value, excerpt, passed
):
    invocation = record_invocation(run, "query_logs", {"records": [{"message": value}]})

    result = check(run, report(claim("c1", binding(invocation.pk, path="$.records[0].message", excerpt=excerpt))))

    assert result.checked[0].passed is passed


def test_a_query_mysql_column_named_by_the_statements_text_is_no_evidence(run, record_invocation):
    # Without an alias the database names an expression's column by its text: literals the model wrote.
    subquery = "(SELECT MAX(version) FROM deployments WHERE description = 'the root cause is a DNS outage')"
    payload = {"columns": [subquery, "version"], "rows": [["v42", "v41"]], "row_count": 1, "truncated": False}
    invocation = record_invocation(run, "query_mysql", payload)

    result = check(
        run,
        report(
            claim(
                "c1",
                binding(
                    invocation.pk, tool="query_mysql", path="$.columns[0]", excerpt="the root cause is a DNS outage"
                ),
            ),
            claim("c2", binding(invocation.pk, tool="query_mysql", path="$.rows[0][0]", excerpt="v42")),
            claim("c3", binding(invocation.pk, tool="query_mysql", path="$.columns[1]", excerpt="version")),
        ),
    )

    assert reasons(result) == ["path_not_evidence", "ok", "ok"]  # a table's column name names its cells


def test_a_knowledge_title_is_cited_whole_and_its_status_and_ids_not_at_all(run, record_invocation):
    """A heading path is a label: "Restart the primary database" under "Anti-patterns" says not to."""
    title = "payment-db runbook > Anti-patterns > Restart the primary database"
    text = "Restarting the primary loses the writes in flight. Fail over to a replica instead."
    chunk = {"title": title, "document_id": "doc-1", "chunk_id": "doc-1#3", "score": 7.5, "text": text}
    invocation = record_invocation(run, "lookup_knowledge", {"evidence_status": "ok", "chunks": [chunk]})

    citations = [
        ("$.chunks[0].title", "Restart the primary database"),
        ("$.chunks[0].title", title),
        ("$.chunks[0].text", "Restarting the primary loses the writes in flight"),
        ("$.evidence_status", "ok"),
        ("$.chunks[0].chunk_id", "doc-1#3"),
    ]
    claims = [
        claim(f"c{number}", binding(invocation.pk, tool="lookup_knowledge", path=path, excerpt=excerpt))
        for number, (path, excerpt) in enumerate(citations, 1)
    ]

    result = check(run, report(*claims))

    assert reasons(result) == ["excerpt_not_whole", "ok", "ok", "path_not_evidence", "path_not_evidence"]


def test_it_rejects_another_runs_invocation(run, record_invocation, other_user):
    foreign_run = DiagnosisRun.objects.create(session=ChatSession.objects.create(owner=other_user), query="q")
    foreign = record_invocation(foreign_run)

    result = check(run, report(claim("c1", binding(foreign.pk))))

    assert reasons(result) == ["foreign_run"]


def test_it_rejects_an_altered_payload(run, record_invocation):
    invocation = record_invocation(run)
    cache.set(payload_key(invocation.pk), cache.get(payload_key(invocation.pk)).replace(b"30000ms", b"30001ms"))

    result = check(run, report(claim("c1", binding(invocation.pk))))

    assert reasons(result) == ["digest_mismatch"]


def test_it_rejects_an_expired_payload(run, record_invocation):
    invocation = record_invocation(run)
    cache.delete(payload_key(invocation.pk))

    result = check(run, report(claim("c1", binding(invocation.pk))))

    assert reasons(result) == ["expired"]


def test_it_rejects_a_blocked_invocation(run, record_invocation):
    invocation = record_invocation(run, status=InvocationStatus.BLOCKED)

    result = check(run, report(claim("c1", binding(invocation.pk))))

    assert reasons(result) == ["not_ready"]


def test_it_taints_a_claim_with_one_forged_binding(run, record_invocation):
    invocation = record_invocation(run)

    result = check(
        run, report(claim("c1", binding(invocation.pk), binding(uuid.uuid4())), claim("c2", binding(invocation.pk)))
    )

    assert result.status == GatekeeperStatus.LOW_CONFID
    assert result.verified_claim_ids == ["c2"]
    assert result.verified_binding_count == 1


@pytest.mark.parametrize(
    "output",
    [
        None,
        {},
        {"schema": "executor_evidence_v1", "claims": [], "no_evidence_reason": None, "completed_queries": []},
        report({"claim_id": "c1", "statement": "s", "bindings": [{"source_invocation_id": "x"}]}),
        report({"claim_id": "c1", "statement": "s", "bindings": "all of them"}),
        "not even a mapping",
    ],
    ids=["none", "empty", "wrong-schema", "binding-missing-keys", "bindings-not-list", "string"],
)
def test_it_fails_closed_on_malformed_output(run, output):
    result = check(run, output)

    assert result.status == GatekeeperStatus.REJECT
    assert result.reason == "malformed_output"


def test_it_rejects_duplicate_claim_ids(run, record_invocation):
    invocation = record_invocation(run)

    result = check(run, report(claim("c1", binding(invocation.pk)), claim("c1", binding(invocation.pk))))

    assert (result.status, result.reason) == (GatekeeperStatus.REJECT, "duplicate_claim_id")


def test_it_rejects_a_claim_without_bindings_and_a_report_without_claims(run):
    assert check(run, report(claim("c1"))).status == GatekeeperStatus.REJECT
    assert check(run, report()).reason == "no_claims"
