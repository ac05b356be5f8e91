"""Log analysis: group records into templates and find the service whose new errors came first.

Why these rules:

- A template is a message with its variable parts masked (numbers, ids, hex), so 45 "evicted_keys +N"
  lines count as one recurring error instead of 45 unique ones.
- Only templates that first appear at or after the onset (minus a small tolerance) are *new*; a message
  that was already there an hour earlier is background noise, however alarming it reads.
- In a cascade the cause logs first and its victims follow seconds later, so the root-cause candidate is
  the service whose new errors start earliest. One stray line is not a burst: a service needs at least
  two new records at the level to qualify (unless no service has).
- Records whose text addresses the agent (prompt injection) are dropped before anything is counted, so
  they can neither be cited nor shift a ranking.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from diagnosis.providers.offline.conversation import ToolExchange, result_items
from diagnosis.providers.offline.memo import NO_MEMO, Memo
from diagnosis.providers.offline.text import looks_like_instruction, normalise
from diagnosis.providers.offline.timing import parse_ts
from diagnosis.providers.offline.vocabulary import fault_score
from tools.names import ToolName

LEVELS = ("ERROR", "WARN")
NEW_TOLERANCE = timedelta(minutes=5)
BURST_SPAN = timedelta(minutes=5)
BURST_SIZE = 3
MIN_BURST_RECORDS = 2
MAX_ROOT_TEMPLATES = 3

_VARIABLE = re.compile(
    # The mailbox of an e-mail address, masked ones too (j***@example.com): not its domain, which tells one
    # recipient's provider or one service's account from another (fraud-svc@fraud.internal), nor a package's
    # version (lodash@4.17.21).
    r"[\w.+*-]+(?=@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b)"
    r"|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"  # uuids
    r"|\b0x[0-9a-f]+\b|\b(?=[0-9a-f]*\d)[0-9a-f]{6,}\b"  # hex ids and hashes
    r"|\d+(?:\.\d+)?[a-z]*",  # numbers with their unit (1000ms, 4gb) or suffix
    re.IGNORECASE,
)


@dataclass(frozen=True)
class LogRecord:
    """One record as the projection showed it, with what is needed to cite it."""

    invocation_id: str
    raw_path: str
    service: str
    level: str
    message: str
    ts: datetime
    ts_text: str
    host: str | None = None
    """The host that logged it, when the record says: a fault confined to one host shows here."""
    level_text: str | None = None
    """The level as the record writes it (``level`` is upper-cased): what a citation of it must copy."""


@dataclass
class Template:
    service: str
    level: str
    pattern: str
    records: list[LogRecord] = field(default_factory=list)

    @property
    def first(self) -> LogRecord:
        return self.records[0]

    @property
    def count(self) -> int:
        return len(self.records)

    @property
    def weight(self) -> int:
        """Frequent templates that name a failure outrank one-off or neutral ones."""
        return self.count * (1 + fault_score(self.pattern))


@dataclass(frozen=True)
class LogFindings:
    onset: datetime | None
    root_service: str | None
    root_templates: list[Template]
    symptom_templates: list[Template]
    """For each asked-about service other than the root: its strongest new template."""


def records_of(
    exchanges: Iterable[ToolExchange], levels: Collection[str] | None = LEVELS, memo: Memo = NO_MEMO
) -> list[LogRecord]:
    """Every visible record at ``levels`` (None: any) of every READY ``query_logs`` result, oldest first,
    injections dropped.

    A record returned by two queries (the ERROR query and the change-window query) is kept once. Each
    result is read once per run (``memo``), at every level, and filtered here.
    """
    records: dict[tuple[str, str, str, str], LogRecord] = {}
    for exchange in exchanges:
        for record in memo.get(exchange.memo_key("log records"), _records_in, exchange):
            if levels is None or record.level in levels:
                records.setdefault((record.ts_text, record.service, record.level, record.message), record)
    return sorted(records.values(), key=lambda record: (record.ts, record.service, record.raw_path))


def _records_in(exchange: ToolExchange) -> list[LogRecord]:
    """The readable records of one result, at every level, injections dropped."""
    found = (
        _record(exchange.invocation_id, item) for _, item in result_items([exchange], ToolName.QUERY_LOGS, "records")
    )
    return [record for record in found if record is not None]


def _record(invocation_id: str, item: dict[str, Any]) -> LogRecord | None:
    message, ts = item.get("message"), parse_ts(item.get("ts"))
    level, service, raw_path = str(item.get("level", "")).upper(), item.get("service"), item.get("raw_path")
    if not (isinstance(message, str) and isinstance(service, str) and isinstance(raw_path, str) and ts):
        return None
    if looks_like_instruction(message):
        return None
    host = item.get("host") if isinstance(item.get("host"), str) else None
    level_text = item.get("level") if isinstance(item.get("level"), str) else None
    # The projection clips long messages with an ellipsis; only the part before it is the real value.
    message = normalise(message.removesuffix("…"))
    return LogRecord(invocation_id, raw_path, service, level, message, ts, item["ts"], host, level_text)


# Pure and asked again and again about the same texts (every turn re-reads the run's results so far).
@lru_cache(maxsize=4096)
def mask(message: str) -> str:
    """The message with its variable parts (ids, numbers with their units) replaced by ``N``."""
    return _VARIABLE.sub("N", message)


def templates_of(records: Iterable[LogRecord]) -> list[Template]:
    """Templates in order of first appearance."""
    grouped: dict[tuple[str, str, str], Template] = {}
    for record in records:
        key = (record.service, record.level, mask(record.message))
        grouped.setdefault(key, Template(*key)).records.append(record)
    return list(grouped.values())


def burst_onset(records: list[LogRecord]) -> datetime | None:
    """When errors started arriving in a burst: the first record followed by enough others soon after."""
    for level in LEVELS:
        times = [record.ts for record in records if record.level == level]
        for index, start in enumerate(times):
            if len([ts for ts in times[index:] if ts - start <= BURST_SPAN]) >= BURST_SIZE:
                return start
    return None


def analyse(records: list[LogRecord], onset: datetime | None, focus_services: list[str]) -> LogFindings:
    """The root-cause candidate's new templates and the asked-about services' symptoms."""
    onset = onset or burst_onset(records)
    new = [template for template in templates_of(records) if _is_new(template, onset)]
    root_service, level = _earliest_bursting_service(new)
    if root_service:
        root_service, level = _named_dependency(new, root_service, level)
    root_templates = _root_templates(new, root_service, level) if root_service else []
    symptoms = [
        template for service in focus_services if service != root_service for template in _strongest(new, service)
    ]
    return LogFindings(onset, root_service, root_templates, symptoms)


def _is_new(template: Template, onset: datetime | None) -> bool:
    return onset is None or template.first.ts >= onset - NEW_TOLERANCE


def _earliest_bursting_service(new: list[Template]) -> tuple[str | None, str]:
    """The service whose new errors began first, or a service without errors whose new warnings that name a
    fault began, in a burst, before any.

    A component that fails without raising an error of its own (a kernel dropping packets, a clock daemon
    that cannot synchronise) warns, and its victims' timeouts are the errors: the warning burst that came
    first is the cause, not the first victim to log an error. A service that logs errors too is judged by
    them: its warnings before them are often routine.
    """
    by_level = {level: _per_service(new, level) for level in LEVELS}
    errors = _bursting(by_level["ERROR"])
    warnings = {
        service: records
        for service, records in _per_service(new, "WARN", faults_only=True).items()
        if service not in by_level["ERROR"] and _dense_from_first(records)
    }
    first_warning = _earliest(warnings)
    if first_warning and (not errors or _first_ts(warnings[first_warning]) < _first_ts(errors[_earliest(errors)])):
        return first_warning, "WARN"
    for level in LEVELS:
        # One stray line is not a burst, unless no service has more.
        candidates = _bursting(by_level[level]) or by_level[level]
        if candidates:
            return _earliest(candidates), level
    return None, ""


def _per_service(new: list[Template], level: str, *, faults_only: bool = False) -> dict[str, list[LogRecord]]:
    per_service: dict[str, list[LogRecord]] = {}
    for template in new:
        if template.level == level and (not faults_only or fault_score(template.pattern)):
            per_service.setdefault(template.service, []).extend(template.records)
    return per_service


def _bursting(per_service: dict[str, list[LogRecord]]) -> dict[str, list[LogRecord]]:
    return {service: records for service, records in per_service.items() if len(records) >= MIN_BURST_RECORDS}


def _dense_from_first(records: list[LogRecord]) -> bool:
    """Whether the records start as a burst (``BURST_SIZE`` within ``BURST_SPAN`` of the first): a failing
    component warns again and again, a routine warning now and then ("token expired" every few minutes)."""
    first = _first_ts(records)
    return sum(record.ts - first <= BURST_SPAN for record in records) >= BURST_SIZE


def _first_ts(records: list[LogRecord]) -> datetime:
    return min(record.ts for record in records)


def _earliest(candidates: dict[str, list[LogRecord]]) -> str:
    """The service whose records began first (more records, then the name, break ties); "" for none."""
    if not candidates:
        return ""
    return min(candidates, key=lambda name: (_first_ts(candidates[name]), -len(candidates[name]), name))


def _named_dependency(new: list[Template], service: str, level: str) -> tuple[str, str]:
    """Where the failure comes from when the first service to fail names it: the dependency its new errors
    blame ("pricing-service POST /price failed: timeout"), followed while that one fails too.

    A caller's timeout is often logged before the dependency's own crash is, so the earliest errors alone
    would name the victim. The hop is taken only when exactly one other failing service is named, and
    never back to a service already visited.
    """
    visited = {service}
    while True:
        words = " ".join(template.pattern for template in new if template.service == service).lower()
        named = {
            template.service
            for template in new
            if template.level in LEVELS and template.service not in visited and template.service.lower() in words
        }
        if len(named) != 1:
            return service, level
        service = named.pop()
        visited.add(service)
        level = next((level for level in LEVELS if any(t.service == service and t.level == level for t in new)), level)


def _root_templates(new: list[Template], service: str, level: str) -> list[Template]:
    """The root service's earliest new template, then its weightiest ones (errors before warnings)."""
    own = [template for template in new if template.service == service]
    at_level = [template for template in own if template.level == level]
    earliest = min(at_level, key=lambda template: template.first.ts)
    rest = sorted(
        (
            template
            for template in own
            if template is not earliest and (template.level == level or fault_score(template.pattern))
        ),
        key=lambda template: (template.level != level, -template.weight, template.first.ts),
    )
    return [earliest, *rest][:MAX_ROOT_TEMPLATES]


def _strongest(new: list[Template], service: str) -> list[Template]:
    own = [template for template in new if template.service == service and template.count >= MIN_BURST_RECORDS]
    if not own:
        return []
    return [min(own, key=lambda template: (LEVELS.index(template.level), -template.weight, template.first.ts))]
