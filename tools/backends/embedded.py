"""Backends over the ``log_record`` and ``metric_point`` tables that ``load_scenario`` fills from a pack,
answered from the process's snapshot of them (``snapshot.py``)."""

from __future__ import annotations

import statistics
from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from tools.backends.protocols import BACKWARD, FORWARD, point_value
from tools.backends.snapshot import evidence_snapshot
from tools.timestamps import format_timestamp


class EmbeddedLogBackend:
    def query(
        self,
        *,
        service: str,
        level: str | None,
        contains: str | None,
        start: datetime,
        end: datetime,
        limit: int,
        direction: str = FORWARD,
    ) -> dict[str, Any]:
        matches = evidence_snapshot().lines_between(service, start, end)
        if level:
            # The loader stores levels upper-cased.
            wanted = level.upper()
            matches = [line for line in matches if line.level == wanted]
        if contains:
            needle = contains.casefold()
            matches = [line for line in matches if needle in line.folded]
        chosen = matches[-limit:] if direction == BACKWARD else matches[:limit]
        # A copy per record: the caller owns its payload, the snapshot is shared.
        records = [dict(line.payload) for line in chosen] if limit > 0 else []
        return {"records": records, "total": len(matches), "truncated": len(matches) > len(records)}


class EmbeddedMetricBackend:
    """Aggregates samples into step-wide buckets ``[start + k*step, start + (k+1)*step)``.

    A point is the mean of the samples in its bucket, stamped with the bucket's start; buckets without
    samples are left out rather than invented. The Prometheus backend asks Prometheus for the same means
    (``prometheus.py``), so either backend verifies the same citations.
    """

    def query(self, *, service: str, metric: str, start: datetime, end: datetime, step: int) -> dict[str, Any]:
        buckets: defaultdict[int, list[float]] = defaultdict(list)
        for ts, value in evidence_snapshot().samples_between(service, metric, start, end):
            buckets[int((ts - start).total_seconds() // step)].append(value)
        points = [
            {
                "ts": format_timestamp(start + timedelta(seconds=index * step)),
                "value": point_value(statistics.fmean(values)),
            }
            for index, values in sorted(buckets.items())
        ]
        if not points:
            return {"series": []}
        return {"series": [{"service": service, "metric": metric, "points": points}]}
