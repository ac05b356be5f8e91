"""Turning findings into ``executor_evidence_v2`` claims whose bindings the gatekeeper can verify.

Every binding names the invocation id and a path the projection showed (or a field of the item at that
path: a record's ``service``, a point's ``value``, a row's cell, as the projection's ``cite`` hint says),
and an excerpt copied from the visible value: whitespace-normalised, at most 480 characters, numbers as
their JSON text. Nothing is paraphrased inside an excerpt; the paraphrase goes in ``statement``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from diagnosis.providers.offline.analysis.business import Row, cited_cells
from diagnosis.providers.offline.analysis.knowledge import Passage
from diagnosis.providers.offline.analysis.logs import LogRecord, Template
from diagnosis.providers.offline.analysis.metrics import Anomaly, Point
from diagnosis.providers.offline.text import MIN_EXCERPT_CHARS, clip, normalise
from diagnosis.providers.offline.timing import clock
from tools.jsonpath import PathError, format_path, parse
from tools.names import ToolName

MAX_EXCERPT_CHARS = 480

Claim = dict[str, Any]
Binding = dict[str, str]


def binding(invocation_id: str, tool: str, raw_path: str, excerpt: str, *, whole: bool = False) -> Binding | None:
    """One binding, or None when the excerpt is too short for the gatekeeper to accept: under
    ``MIN_EXCERPT_CHARS`` unless it is the ``whole`` text at the path (a row's text cell ``20``, a level)."""
    text = clip(normalise(excerpt), MAX_EXCERPT_CHARS)
    if len(text) < (1 if whole else MIN_EXCERPT_CHARS):
        return None
    return {"source_invocation_id": invocation_id, "tool_name": tool, "raw_path": raw_path, "evidence_excerpt": text}


def sibling(raw_path: str, key: str) -> str | None:
    """``$.records[3].message`` -> ``$.records[3].service``: another field of the same item."""
    try:
        segments = parse(raw_path)
    except PathError:
        return None
    if not segments or not isinstance(segments[-1], str):
        return None
    return format_path("$", *segments[:-1], key)


def child(raw_path: str, *segments: str | int) -> str:
    """``$.series[0].points[5]`` -> ``$.series[0].points[5].value``."""
    return format_path(raw_path, *segments)


def _claim(claim_id: str, statement: str, bindings: list[Binding | None]) -> Claim | None:
    kept = [item for item in bindings if item is not None]
    if not kept:
        return None
    return {"claim_id": claim_id, "statement": clip(statement, 1900), "bindings": kept[:10]}


def log_claim(claim_id: str, template: Template, *, root: bool, host: str | None = None) -> Claim | None:
    """A template's first record; its host is cited only when given (the failure is confined to that host)."""
    record = template.first
    role = (
        "root-cause candidate: its new errors came before any other service's" if root else "a symptom after the onset"
    )
    statement = (
        f'{template.service} logged {template.count} new {template.level} record(s) like "{clip(record.message, 300)}" '
        f"from {clock(record.ts)} ({role})"
    )
    return _claim(claim_id, statement, _record_bindings(record, host=host))


def change_claim(claim_id: str, record: LogRecord) -> Claim | None:
    statement = f'{record.service} announced a change at {clock(record.ts)}, before the first errors: "{clip(record.message, 300)}"'
    return _claim(claim_id, statement, _record_bindings(record, host=record.host))


def _record_bindings(record: LogRecord, *, host: str | None) -> list[Binding | None]:
    """The record's message, service, time and level, and ``host`` when given and the record's own: the
    answer calls a record an error only when its cited level says so."""
    tool = ToolName.QUERY_LOGS
    fields = [
        ("service", record.service),
        ("ts", record.ts_text),
        ("level", record.level_text),
        ("host", host if host == record.host else None),
    ]
    bindings = [binding(record.invocation_id, tool, record.raw_path, record.message)]
    for key, value in fields:
        path = sibling(record.raw_path, key)
        if path and value:
            bindings.append(binding(record.invocation_id, tool, path, value, whole=True))
    return bindings


def metric_claim(claim_id: str, anomaly: Anomaly) -> Claim | None:
    series = anomaly.series
    verb = "rose" if anomaly.rising else "fell"
    # Where the new level began, when that is not the extreme itself: when the failure began, to a reader
    # and to the composer's timeline, which a peak an hour later is not.
    began = [anomaly.shifted] if anomaly.shifted is not anomaly.extreme else []
    levels = " and ".join(f"{point.value_text} at {clock(point.ts)}" for point in [*began, anomaly.extreme])
    statement = (
        f"{series.metric} of {series.service} {verb} from {anomaly.baseline.value_text} at {clock(anomaly.baseline.ts)} "
        f"to {levels}"
    )
    invocation = series.invocation_id
    return _claim(
        claim_id,
        statement,
        [
            binding(invocation, ToolName.QUERY_METRICS, child(series.raw_path, "service"), series.service),
            binding(invocation, ToolName.QUERY_METRICS, child(series.raw_path, "metric"), series.metric),
            *(
                binding
                for point in [anomaly.baseline, *began, anomaly.extreme]
                for binding in _point_bindings(invocation, point)
            ),
        ],
    )


def _point_bindings(invocation_id: str, point: Point) -> list[Binding | None]:
    return [
        binding(invocation_id, ToolName.QUERY_METRICS, child(point.raw_path, "ts"), point.ts_text),
        binding(invocation_id, ToolName.QUERY_METRICS, child(point.raw_path, "value"), point.value_text),
    ]


def knowledge_claim(claim_id: str, passage: Passage, statement: str) -> Claim | None:
    chunk = passage.chunk
    title_path = sibling(chunk.raw_path, "title")
    return _claim(
        claim_id,
        f'{statement}: "{clip(chunk.title, 300)}"',
        [
            binding(chunk.invocation_id, ToolName.LOOKUP_KNOWLEDGE, title_path, chunk.title) if title_path else None,
            *(
                binding(chunk.invocation_id, ToolName.LOOKUP_KNOWLEDGE, chunk.raw_path, sentence)
                for sentence in passage.sentences
            ),
        ],
    )


def row_claim(claim_id: str, row: Row, evidence_terms: set[str], onset: datetime | None) -> Claim | None:
    cells = cited_cells(row, evidence_terms, onset)
    described = ", ".join(f"{cell.column}={clip(cell.excerpt, 120)}" for cell in cells)
    bindings: list[Binding | None] = []
    tool = ToolName.QUERY_MYSQL
    for cell in cells:
        text = isinstance(row.values[cell.index], str)
        bindings.append(binding(row.invocation_id, tool, child(row.raw_path, cell.index), cell.excerpt, whole=text))
        bindings.append(
            binding(row.invocation_id, tool, format_path("$", "columns", cell.index), cell.column, whole=True)
        )
    return _claim(claim_id, f"The business data holds a related record close to the onset: {described}", bindings)
