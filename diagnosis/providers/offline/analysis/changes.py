"""Change correlation: what changed just before the failure started.

It is an on-call engineer's first question, and the answer is usually the cause: a deploy, a configuration
or feature-flag change, a schema migration, a restart, a scaling action. Candidates come from log records
at any level that announce a change (``vocabulary.announces_change``: such lines are mostly INFO); change
records in business tables are ranked by ``analysis.business.corroborating_rows`` on the same terms.

A candidate counts only when it

- happened at or before the onset (a cause precedes its effect) and at most ``LOOKBACK`` before it,
- is related to the failure: it shares words with the failing service, its error templates or the runbook
  passage that explains them, or it was logged by the failing service or on a host where it fails,
- is not routine: a message whose occurrences spread over ``ROUTINE_SPAN`` or more (a periodic config
  poll, a cron heartbeat) announces nothing new; the same line from every pod of a rolling restart,
  minutes apart, still does.

Among those, closeness before the onset weighs as much as two shared words, so a related change made
minutes before outranks one made an hour before, and an unrelated deploy of another service never wins.
When nothing qualifies the answer is "no change explains it", which is an answer too.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from diagnosis.providers.offline.analysis.logs import LogRecord, mask
from diagnosis.providers.offline.text import terms
from diagnosis.providers.offline.vocabulary import announces_change

LOOKBACK = timedelta(hours=2)
"""How far before the onset a change can still be its trigger (a logged one here, any in the answer)."""
RECENCY_SCALE = timedelta(minutes=15)
RECENCY_WEIGHT = 2.0
FULL_RELATEDNESS = 3
SAME_SERVICE = 1
SAME_HOST = 1
ROUTINE_SPAN = timedelta(minutes=20)


@dataclass(frozen=True)
class Failure:
    """What failed, as far as the change correlation needs it."""

    onset: datetime
    service: str | None
    hosts: frozenset[str]
    terms: frozenset[str]
    """Words of the failure: the failing service, its error templates, the runbook passage."""
    records: frozenset[LogRecord]
    """The failure's own records: an error that mentions a restart is the failure, not a change."""


def announced_change(records: list[LogRecord], failure: Failure) -> LogRecord | None:
    """The related change announced closest before the onset, or None when no logged change explains it."""
    seen: dict[tuple[str, str], list[datetime]] = defaultdict(list)
    for record in records:
        seen[(record.service, mask(record.message))].append(record.ts)
    best: tuple[tuple[float, int], LogRecord] | None = None
    for record in records:
        if record in failure.records or not announces_change(record.message):
            continue
        times = seen[(record.service, mask(record.message))]
        if max(times) - min(times) >= ROUTINE_SPAN:
            continue
        before = failure.onset - record.ts
        if before < timedelta(0) or before > LOOKBACK:
            continue
        related = _relatedness(record, failure)
        if related == 0:
            continue
        closeness = 1 / (1 + before / RECENCY_SCALE)
        key = (min(related, FULL_RELATEDNESS) + RECENCY_WEIGHT * closeness, related)
        if best is None or key > best[0]:
            best = (key, record)
    return best[1] if best else None


def _relatedness(record: LogRecord, failure: Failure) -> int:
    shared = len(terms(f"{record.service} {record.message} {record.host or ''}") & failure.terms)
    same_service = SAME_SERVICE if record.service == failure.service else 0
    same_host = SAME_HOST if record.host and record.host in failure.hosts else 0
    return shared + same_service + same_host
