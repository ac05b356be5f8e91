"""From tool results to an ``executor_evidence_v2`` report: one analysis, then ordered claims.

``analyse_results`` runs every analysis once over the visible tool results and keeps what it concluded;
the executor uses it both to decide its next look (which runbook still lacks its remediation steps) and
to write the report. Claims are ordered by how directly they bear on the cause: the root service's new
errors, the runbook passage that explains them, the root service's metric shift, the corroborating
change record, then the symptoms of the services the question named, then the runbook's remediation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from diagnosis.contracts import EXECUTOR_SCHEMA_NAME
from diagnosis.providers.offline import claims, queries
from diagnosis.providers.offline.analysis.business import Row, corroborating_rows, rows_of
from diagnosis.providers.offline.analysis.changes import Failure, announced_change
from diagnosis.providers.offline.analysis.knowledge import Passage, chunks_of, explanation, remediation
from diagnosis.providers.offline.analysis.logs import LogFindings, LogRecord, Template, analyse, records_of
from diagnosis.providers.offline.analysis.metrics import Anomaly, anomaly, series_of, strongest
from diagnosis.providers.offline.claims import Claim
from diagnosis.providers.offline.conversation import ToolExchange
from diagnosis.providers.offline.memo import NO_MEMO, Memo
from diagnosis.providers.offline.text import terms
from diagnosis.providers.offline.vocabulary import GENERIC_NAME_WORDS

ClaimBuilder = Callable[[str], Claim | None]
"""Makes one claim given its id; None when the finding cannot be cited."""

MAX_CLAIMS = 20
MAX_ROWS = 2
CLOCK_PRECISION = timedelta(minutes=1)
MAX_COMPLETED_QUERIES = 50
_CLAIM_NUMBER = re.compile(r"^c(\d+)$")


@dataclass(frozen=True)
class Findings:
    """What the visible tool results say, analysed once."""

    logs: LogFindings
    evidence_terms: set[str]
    """Words of the observed failure: the root service and its error templates (else the question)."""
    passage: Passage | None
    fix: Passage | None
    anomalies: list[Anomaly]
    rows: list[Row]
    """The related business rows closest before the first error, best first, one per query."""
    row_terms: set[str]
    change_cutoff: datetime | None
    """The moment a trigger must precede: the first new error of the failing service, else the question's
    clock time plus ``CLOCK_PRECISION`` (people say "at 01:15" of a failure whose first error is 01:17 and
    whose trigger ran at 01:15:02)."""
    change: LogRecord | None
    """The related change a log line announced closest before that onset."""
    confined_host: str | None
    """The one host all of the root service's new errors came from, while it logs from others too."""


def analyse_results(
    exchanges: list[ToolExchange], *, question: str, onset: datetime | None, focus: list[str], memo: Memo = NO_MEMO
) -> Findings:
    """The findings of ``exchanges``; ``memo`` remembers what each result held, so that a result is read once
    per run however many turns analyse it."""
    logs = analyse(records_of(exchanges, memo=memo), onset, focus)
    every_level = records_of(exchanges, levels=None, memo=memo)
    evidence_terms = _evidence_terms(logs, question)
    chunks = chunks_of(exchanges, memo)
    passage = explanation(chunks, evidence_terms)
    fix = remediation(chunks, passage.chunk.document_id) if passage else None
    row_terms = evidence_terms | (terms(" ".join(passage.sentences)) if passage else set())
    anomalies = [found for series in series_of(exchanges, memo) if (found := anomaly(series, logs.onset)) is not None]
    # A cause precedes the first error it produced (or, with no error at all, the first metric shift).
    first_error = min((template.first.ts for template in logs.root_templates), default=None)
    first_shift = min((found.shifted.ts for found in anomalies), default=None)
    cause_before = first_error or (logs.onset + CLOCK_PRECISION if logs.onset else first_shift)
    change_terms = row_terms - GENERIC_NAME_WORDS
    return Findings(
        logs=logs,
        evidence_terms=evidence_terms,
        passage=passage,
        fix=fix,
        anomalies=anomalies,
        rows=corroborating_rows(rows_of(exchanges, memo), change_terms, cause_before)[:MAX_ROWS],
        row_terms=row_terms,
        change_cutoff=cause_before,
        change=_announced_change(every_level, logs, change_terms, cause_before),
        confined_host=_confined_host(every_level, logs),
    )


def _confined_host(records: list[LogRecord], logs: LogFindings) -> str | None:
    """A fault confined to one host (a skewed clock, a full disk) shows as errors from that host only.

    A host named after the service (a pod, ``payment-service-84d5b7c9f-v7k4s``) is one of its replicas: worth
    naming only when others log too. Any other host is the machine the failing component runs on (a clock
    daemon's, a kernel's), worth naming even when the component logs from nowhere else.
    """
    failing = {record.host for template in logs.root_templates for record in template.records}
    if len(failing) != 1 or None in failing:
        return None
    host = next(iter(failing))
    assert host is not None
    logging = {record.host for record in records if record.service == logs.root_service}
    replica = bool(logs.root_service) and host.startswith(str(logs.root_service))
    return host if len(logging - {None}) > 1 or not replica else None


def _announced_change(
    records: list[LogRecord], logs: LogFindings, failure_terms: set[str], onset: datetime | None
) -> LogRecord | None:
    if onset is None:
        return None
    own = [record for template in [*logs.root_templates, *logs.symptom_templates] for record in template.records]
    root_hosts = {record.host for template in logs.root_templates for record in template.records if record.host}
    failure = Failure(
        onset=onset,
        service=logs.root_service,
        hosts=frozenset(root_hosts),
        terms=frozenset(failure_terms),
        records=frozenset(own),
    )
    return announced_change(records, failure)


def _evidence_terms(logs: LogFindings, question: str) -> set[str]:
    if logs.root_service:
        return terms(" ".join([logs.root_service, *(template.pattern for template in logs.root_templates)]))
    return terms(" ".join([question, *(template.pattern for template in logs.symptom_templates)]))


def report(
    exchanges: list[ToolExchange],
    findings: Findings,
    *,
    focus: list[str],
    prior_claims: list[dict[str, Any]],
    prior_queries: list[str],
) -> dict[str, Any]:
    """The executor's final content: prior verified claims unchanged, then the new ones (numbered after)."""
    new = _claims(findings, focus, _next_number(prior_claims))
    known = {_fingerprint(claim) for claim in prior_claims}
    combined = (prior_claims + [claim for claim in new if _fingerprint(claim) not in known])[:MAX_CLAIMS]
    completed = prior_queries + [queries.describe(item.name, item.arguments) for item in exchanges if item.ready]
    return {
        "schema": EXECUTOR_SCHEMA_NAME,
        "claims": combined,
        "no_evidence_reason": None if combined else _no_evidence_reason(exchanges),
        "completed_queries": list(dict.fromkeys(completed))[:MAX_COMPLETED_QUERIES],
    }


def _claims(findings: Findings, focus: list[str], first: int) -> list[Claim]:
    logs, root = findings.logs, findings.logs.root_service
    passage, fix = findings.passage, findings.fix
    # One builder per claim, in order of how directly each bears on the cause; ids are given in that order.
    host = findings.confined_host
    builders: list[ClaimBuilder] = [_log_builder(template, root=True, host=host) for template in logs.root_templates]
    if passage:
        builders.append(
            lambda claim_id: claims.knowledge_claim(claim_id, passage, "The knowledge base explains these errors")
        )
    primary = _primary_anomalies(findings.anomalies, root)
    builders.extend(_metric_builder(found) for found in primary)
    change = findings.change
    if change:
        builders.append(lambda claim_id: claims.change_claim(claim_id, change))
    builders.extend(_row_builder(row, findings.row_terms, findings.change_cutoff) for row in findings.rows)
    builders.extend(_log_builder(template, root=False) for template in logs.symptom_templates)
    # Without a root service the strongest shift of all may be a named service's own: cited once.
    builders.extend(
        _metric_builder(found)
        for found in _symptom_anomalies(findings.anomalies, root, focus)
        if not any(found is cited for cited in primary)
    )
    if fix:
        builders.append(
            lambda claim_id: claims.knowledge_claim(claim_id, fix, "The knowledge base gives remediation steps")
        )
    made: list[Claim] = []
    for build in builders:
        claim = build(f"c{first + len(made)}")
        if claim is not None:
            made.append(claim)
    return made


def _log_builder(template: Template, *, root: bool, host: str | None = None) -> ClaimBuilder:
    def build(claim_id: str) -> Claim | None:
        return claims.log_claim(claim_id, template, root=root, host=host)

    return build


def _row_builder(row: Row, row_terms: set[str], onset: datetime | None) -> ClaimBuilder:
    def build(claim_id: str) -> Claim | None:
        return claims.row_claim(claim_id, row, row_terms, onset)

    return build


def _metric_builder(found: Anomaly) -> ClaimBuilder:
    def build(claim_id: str) -> Claim | None:
        return claims.metric_claim(claim_id, found)

    return build


def _primary_anomalies(anomalies: list[Anomaly], root: str | None) -> list[Anomaly]:
    """The root service's strongest shift; without a root, the strongest shift of all."""
    found = strongest(anomalies, root) if root else max(anomalies, key=lambda item: item.score, default=None)
    return [found] if found else []


def _symptom_anomalies(anomalies: list[Anomaly], root: str | None, focus: list[str]) -> list[Anomaly]:
    """The strongest shift of each service the question named, other than the root."""
    return [found for service in focus if service != root and (found := strongest(anomalies, service))]


def _next_number(prior: list[dict[str, Any]]) -> int:
    numbers = [int(match.group(1)) for claim in prior if (match := _CLAIM_NUMBER.match(str(claim.get("claim_id"))))]
    return max(numbers, default=0) + 1


def _fingerprint(claim: dict[str, Any]) -> tuple[tuple[str, str, str], ...]:
    return tuple(
        (str(item.get("source_invocation_id")), str(item.get("raw_path")), str(item.get("evidence_excerpt")))
        for item in claim.get("bindings") or []
        if isinstance(item, dict)
    )


def _no_evidence_reason(exchanges: list[ToolExchange]) -> str:
    failed = sorted({exchange.name for exchange in exchanges if not exchange.ready})
    reason = "No new error template, metric shift, runbook passage or business record related to the question was found"
    if failed:
        reason += f"; these tools returned no data: {', '.join(failed)}"
    return reason + "."
