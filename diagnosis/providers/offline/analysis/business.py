"""Business-data analysis: the row that corroborates the cause, usually a change made just before the onset.

A row counts when its text cells share terms with the evidence (the root service's name, its error
templates, the runbook passage). Among those, change records stamped closest before the onset win: a deploy
or a configuration change right before an incident is the classic trigger, one from months ago is history,
and a row stamped after the onset cannot have caused it.
A text cell of any length can be cited: the gatekeeper takes an excerpt shorter than three characters when
it is the whole text of its cell (a setting's new value ``"20"``, often the decisive one); a number needs
three characters.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property

from diagnosis.providers.offline.conversation import ToolExchange, result_items
from diagnosis.providers.offline.memo import NO_MEMO, Memo
from diagnosis.providers.offline.text import MIN_EXCERPT_CHARS, clip, looks_like_instruction, normalise, terms
from diagnosis.providers.offline.timing import parse_ts
from diagnosis.providers.offline.vocabulary import (
    CHANGE_WORDS,
    NEW_STATE_WORDS,
    OLD_STATE_WORDS,
    SUBJECT_WORDS,
    name_words,
    reads_like_change_record,
)
from tools.names import ToolName

# Closeness before the onset halves at one hour; it weighs as much as two shared words at most.
RECENCY_SCALE = timedelta(hours=1)
RECENCY_WEIGHT = 2.0
FULL_RELATEDNESS = 2
CHANGE_RECORD_BONUS = 1.0
# Two bindings a cell (its value and its column's name): the contract allows ten a claim.
MAX_CELLS = 5
MAX_CELL_CHARS = 480


@dataclass(frozen=True)
class Row:
    invocation_id: str
    raw_path: str
    columns: list[str]
    values: list[object]

    # What every ranking asks of a row, read once: a run remembers its rows (``rows_of``) and ranks them again
    # against each turn's evidence.
    @cached_property
    def texts(self) -> list[str]:
        """The text cells."""
        return [value for value in self.values if isinstance(value, str)]

    @cached_property
    def words(self) -> set[str]:
        """The terms of the text cells."""
        return terms(" ".join(self.texts))

    @cached_property
    def steers(self) -> bool:
        """Whether a text cell addresses the agent (prompt injection): such a row is never cited."""
        return any(looks_like_instruction(text) for text in self.texts)

    @cached_property
    def stamps(self) -> list[datetime]:
        """The text cells that read as timestamps."""
        return [stamp for stamp in map(parse_ts, self.texts) if stamp is not None]


@dataclass(frozen=True)
class Cell:
    index: int
    column: str
    excerpt: str


def rows_of(exchanges: Iterable[ToolExchange], memo: Memo = NO_MEMO) -> list[Row]:
    """Every row of every READY ``query_mysql`` result (each result read once per run, ``memo``)."""
    return [row for exchange in exchanges for row in memo.get(exchange.memo_key("rows"), _rows_in, exchange)]


def _rows_in(exchange: ToolExchange) -> list[Row]:
    return [
        Row(
            exchange.invocation_id,
            item["raw_path"],
            [str(name) for name in exchange.result.get("columns") or []],
            item["values"],
        )
        for _, item in result_items([exchange], ToolName.QUERY_MYSQL, "rows")
        if isinstance(item.get("raw_path"), str) and isinstance(item.get("values"), list)
    ]


def corroborating_rows(rows: list[Row], evidence_terms: set[str], onset: datetime | None) -> list[Row]:
    """Related rows, the one stamped closest before the onset first, change records first; more shared words
    break ties. At most one row per query: a change recorded in two tables (the deploy, and the setting it
    changed) is read from both, since each names a different part of it.

    A cause precedes its effect, so rows stamped after the onset are never chosen. Relatedness is capped
    at ``FULL_RELATEDNESS`` shared words so that a row describing the failing component at length (an old
    configuration line full of its vocabulary) cannot outrank a related change made minutes before.
    """
    best: dict[str, tuple[tuple[float, int, int], Row]] = {}
    for position, row in enumerate(rows):
        if row.steers:
            continue
        overlap = len(row.words & evidence_terms)
        distance = _distance_before(row, onset)
        only_after_onset = onset is not None and distance is None and bool(row.stamps)
        if overlap == 0 or only_after_onset:
            continue
        closeness = 0.0 if distance is None else 1 / (1 + distance / RECENCY_SCALE.total_seconds())
        change = CHANGE_RECORD_BONUS if reads_like_change_record(row.columns) else 0.0
        key = (min(overlap, FULL_RELATEDNESS) + RECENCY_WEIGHT * closeness + change, overlap, -position)
        if row.invocation_id not in best or key > best[row.invocation_id][0]:
            best[row.invocation_id] = (key, row)
    return [row for _, row in sorted(best.values(), key=lambda item: item[0], reverse=True)]


def cited_cells(row: Row, evidence_terms: set[str], onset: datetime | None = None) -> list[Cell]:
    """The row's citable cells: the time closest before the onset (when the change took effect: a
    certificate's ``not_after``, not its ``not_before``; without it the answer cannot place the change), what
    it applies to (its first column named ``service``, ``target``, ``app``...: a log level set to DEBUG is read
    by the service its record names), what it set (``new_value``, or ``count_value`` beside a
    ``previous_count``), however short; then the cells sharing evidence terms, what it replaced (``old_value``),
    its other subjects (``host``, ``cluster``), the rest of it (``version``, ``job_id``), its other timestamps,
    then the rest. A row's own number (its ``id`` column) is not cited: it says nothing about what happened."""
    cells = []
    for index, value in enumerate(row.values):
        excerpt = clip(normalise(value) if isinstance(value, str) else json.dumps(value), MAX_CELL_CHARS)
        citable = len(excerpt) >= MIN_EXCERPT_CHARS or (excerpt and isinstance(value, str))
        if citable and index < len(row.columns) and value is not None and row.columns[index].lower() != "id":
            cells.append(Cell(index, row.columns[index], excerpt))

    stamps = {cell.index: stamp for cell in cells if (stamp := parse_ts(cell.excerpt)) is not None}
    before = [index for index, stamp in stamps.items() if onset is None or stamp <= onset]
    latest = max(before, key=lambda index: stamps[index], default=None)

    # What a column holding the old state replaced: ``count_value`` is the new state beside ``previous_count``.
    replaced = [words - OLD_STATE_WORDS for words in map(name_words, row.columns) if words & OLD_STATE_WORDS]

    def subject(cell: Cell) -> bool:
        words = name_words(cell.column)
        return bool(words & SUBJECT_WORDS) and words <= SUBJECT_WORDS | {"name", "id"}

    # What the change applies to, named once (its first such column): a log level set to DEBUG is read by the
    # service its record names, however many other cells share the failure's words.
    applies_to = next((cell.index for cell in cells if subject(cell)), None)

    def priority(cell: Cell) -> tuple[int, int]:
        if cell.index == latest:
            return 0, cell.index
        if cell.index == applies_to:
            return 1, cell.index
        if cell.index in stamps:
            return 7, cell.index
        words = name_words(cell.column)
        if words & NEW_STATE_WORDS or (not words & OLD_STATE_WORDS and any(old and old <= words for old in replaced)):
            return 2, cell.index
        if terms(cell.excerpt) & evidence_terms:
            return 3, cell.index
        if words & OLD_STATE_WORDS and words & CHANGE_WORDS:
            return 4, cell.index
        if subject(cell):
            return 5, cell.index
        if words & CHANGE_WORDS:
            return 6, cell.index
        return 8, cell.index

    chosen = sorted(cells, key=priority)[:MAX_CELLS]
    return sorted(chosen, key=lambda cell: cell.index)


def _distance_before(row: Row, onset: datetime | None) -> float | None:
    """Seconds from the row's latest timestamp up to the onset; None if it has none that early."""
    if onset is None:
        return None
    before = [onset - stamp for stamp in row.stamps if stamp <= onset]
    return min(delta.total_seconds() for delta in before) if before else None
