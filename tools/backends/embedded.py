"""Backends over the ``log_record`` and ``metric_point`` tables that ``load_scenario`` fills from a pack."""

from __future__ import annotations

import statistics
from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from tools.backends.protocols import BACKWARD, FORWARD
from tools.models import LogRecord, MetricPoint
from tools.timestamps import format_timestamp

# Means are rounded so that a cited value reads the same in the payload and in the model's excerpt.
VALUE_DECIMALS = 6


# The columns a payload is made of, read as tuples: a query returns up to ``limit`` rows, and building a model
# instance for each cost more than the query.
_PAYLOAD_COLUMNS = ("ts", "service", "level", "message", "extra")


def log_record_payload(ts: datetime, service: str, level: str, message: str, extra: dict[str, Any]) -> dict[str, Any]:
    """A record in canonical shape; the pack's extra fields follow and never shadow the four core ones."""
    core = {"ts": format_timestamp(ts), "service": service, "level": level, "message": message}
    return core | {key: value for key, value in extra.items() if key not in core}


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
        matches = LogRecord.objects.filter(service=service, ts__gte=start, ts__lt=end)
        if level:
            # The loader stores levels upper-cased, so this stays an indexed equality.
            matches = matches.filter(level=level.upper())
        if contains:
            matches = matches.filter(message__icontains=contains)
        if direction == BACKWARD:
            chosen = list(matches.order_by("-ts", "-id").values_list(*_PAYLOAD_COLUMNS)[:limit])[::-1]
        else:
            chosen = list(matches.order_by("ts", "id").values_list(*_PAYLOAD_COLUMNS)[:limit])
        # Fewer rows than the limit are all the matches: only a full page needs counting.
        total = matches.count() if len(chosen) >= limit else len(chosen)
        records = [log_record_payload(*row) for row in chosen]
        return {"records": records, "total": total, "truncated": total > len(records)}


class EmbeddedMetricBackend:
    """Aggregates samples into step-wide buckets ``[start + k*step, start + (k+1)*step)``.

    A point is the mean of the samples in its bucket, stamped with the bucket's start; buckets without
    samples are left out rather than invented. The Prometheus backend asks Prometheus for the same means
    (``prometheus.py``), so either backend verifies the same citations.
    """

    def query(self, *, service: str, metric: str, start: datetime, end: datetime, step: int) -> dict[str, Any]:
        samples = (
            MetricPoint.objects.filter(service=service, metric=metric, ts__gte=start, ts__lt=end)
            .order_by("ts", "id")
            .values_list("ts", "value")
        )
        buckets: defaultdict[int, list[float]] = defaultdict(list)
        for ts, value in samples:
            buckets[int((ts - start).total_seconds() // step)].append(value)
        points = [
            {
                "ts": format_timestamp(start + timedelta(seconds=index * step)),
                "value": round(statistics.fmean(values), VALUE_DECIMALS),
            }
            for index, values in sorted(buckets.items())
        ]
        if not points:
            return {"series": []}
        return {"series": [{"service": service, "metric": metric, "points": points}]}
