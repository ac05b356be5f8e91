"""The loaded scenario's log records and metric samples, read once per load and held in memory per process.

An offline diagnosis asks the embedded backends about fifteen questions, and answering each from the tables
cost more than the rest of its tool call: the rows came back through the ORM's converters (a timestamp
parsed, a JSON field decoded, per row, per call) for data that changes only when ``load_scenario`` runs.
A process now reads both tables once per loaded scenario and answers from sorted lists with ``bisect``.

The loaded scenario row is the version: ``load_scenario`` replaces it in the same transaction as the rows,
so a new (id, ``loaded_at``) means new rows, and every run reads it once (``LoadedScenario.current``), so a
run in any process sees the load that was committed when it first asked. The tables are read after that
row, never before, so a snapshot kept under a version is never older than the version. With no scenario
loaded (tables filled by hand, as tests do) nothing is kept: every call reads the tables as they are.

The snapshot is immutable and shared by the threads of a process without locks; its size is the pack's
(``load_scenario`` is the only writer of these tables).
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from operator import attrgetter, itemgetter
from typing import Any, TypeVar

from tools.backends.protocols import log_record_payload
from tools.models import LoadedScenario, LogRecord, MetricPoint

T = TypeVar("T")


@dataclass(frozen=True)
class LogLine:
    ts: datetime
    level: str
    folded: str
    """The message case-folded, for ``contains``."""
    payload: dict[str, Any]
    """The record in canonical shape (``log_record_payload``); handed out as a copy."""


def _between(items: list[T], start: datetime, end: datetime, time_of: Callable[[T], datetime]) -> list[T]:
    """The items of a time-ordered list stamped in ``[start, end)``."""
    return items[bisect_left(items, start, key=time_of) : bisect_left(items, end, key=time_of)]


@dataclass(frozen=True)
class EvidenceSnapshot:
    logs: dict[str, list[LogLine]]
    """Each service's lines, oldest first (ties in the order they were loaded)."""
    series: dict[tuple[str, str], list[tuple[datetime, float]]]
    """Each (service, metric)'s (time, value) samples, oldest first."""

    def lines_between(self, service: str, start: datetime, end: datetime) -> list[LogLine]:
        """The service's lines in ``[start, end)``, oldest first."""
        return _between(self.logs.get(service, []), start, end, attrgetter("ts"))

    def samples_between(
        self, service: str, metric: str, start: datetime, end: datetime
    ) -> list[tuple[datetime, float]]:
        """The series' (time, value) samples in ``[start, end)``, oldest first."""
        return _between(self.series.get((service, metric), []), start, end, itemgetter(0))

    @property
    def metric_names(self) -> dict[str, list[str]]:
        """Each service's metrics, both sorted."""
        names: dict[str, list[str]] = {}
        for service, metric in sorted(self.series):
            names.setdefault(service, []).append(metric)
        return names


def _read() -> EvidenceSnapshot:
    logs: defaultdict[str, list[LogLine]] = defaultdict(list)
    for ts, service, level, message, extra in LogRecord.objects.order_by("ts", "id").values_list(
        "ts", "service", "level", "message", "extra"
    ):
        logs[service].append(
            LogLine(ts, level, message.casefold(), log_record_payload(ts, service, level, message, extra))
        )
    series: defaultdict[tuple[str, str], list[tuple[datetime, float]]] = defaultdict(list)
    for ts, service, metric, value in MetricPoint.objects.order_by("ts", "id").values_list(
        "ts", "service", "metric", "value"
    ):
        series[(service, metric)].append((ts, value))
    return EvidenceSnapshot(logs=dict(logs), series=dict(series))


_kept: tuple[tuple[Any, datetime], EvidenceSnapshot] | None = None
_lock = threading.Lock()


def evidence_snapshot() -> EvidenceSnapshot:
    """The evidence of the loaded scenario this run sees; read from the tables at most once per load."""
    global _kept
    scenario = LoadedScenario.current()
    if scenario is None:
        return _read()
    version = (scenario.pk, scenario.loaded_at)
    kept = _kept
    if kept is not None and kept[0] == version:
        return kept[1]
    with _lock:
        if _kept is None or _kept[0] != version:
            _kept = (version, _read())
        return _kept[1]
