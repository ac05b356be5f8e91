"""The append path of a run's event log (``diagnosis_trace_event``): its timeline and its SSE stream.

Details are whitelisted and bounded on the way in, because the timeline is shown to every reader of a
run's trace: no prompt, payload or reasoning text may ever be copied into it.

Numbers (``seq`` for timeline events, ``stream_id`` for stream events) are taken in memory, not by ``MAX`` queries: after
the claim a run has exactly one owner, its worker, which registers the run's ``RunLog`` (``owned_log``) and
numbers every row it writes. The few other writers - the submission before the claim, a
canceller, the reaper - read where the log stands once. When two writers pick the same number the unique
constraint refuses the second insert; that writer reads the log's end again and retries, so rows are
never lost nor numbered twice, and a run's stream ids stay 1, 2, 3... in the order they were stored.

The owner's progress reports are held back a little (``append(..., hold=True)``) and written together, in
one INSERT, numbered then: when a report comes after the oldest held one has waited ``linger`` seconds,
when the run's own thread writes something it does not hold back outside a transaction (its terminal
events), or when ``flush`` is called, which the run does before it waits on anything outside its process
(``config.run_scope``) and when its graph has ended. ``on_flushed`` then receives the written rows, in
order, to announce them: an event is still announced only once it is stored. There is no timer: during a
computation that reports nothing, what was held waits with it. A worker killed outright loses what it
held, events nobody was ever told about (the reaper ends the run after the last one it wrote).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max

from tracing.models import DiagnosisTraceEvent, TraceEventKind

DETAIL_KEYS = frozenset(
    {
        "intent",
        "node",
        "phase",
        "detail",
        "attempt",
        "outcome",
        "reason_code",
        "tool",
        "invocation_id",
        "status",
        "error_code",
        "row_count",
        "verdict",
        "passed",
        "failed",
        "claims",
        "released_claim_ids",
        "degraded",
        "code",
        "worker",
        "duration_ms",
        "decision",
        "rule",
        "rules",
        "unsupported",
        "policy_version",
        "guard_version",
        "by",
    }
)
MAX_VALUE_CHARS = 200
MAX_LIST_ITEMS = 20


def _bounded(value: Any) -> Any:
    if isinstance(value, bool | int | float) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_bounded(item) for item in list(value)[:MAX_LIST_ITEMS]]
    return str(value)[:MAX_VALUE_CHARS]


def bounded_details(details: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _bounded(value) for key, value in details.items() if key in DETAIL_KEYS}


@dataclass(frozen=True)
class StreamEvent:
    """The SSE side of a log row: the event's name and its data, already JSON-encoded."""

    event: str
    data: str


#: Tries of one append when other writers keep taking the numbers it picked.
APPEND_TRIES = 5


def _insert(rows: list[DiagnosisTraceEvent]) -> None:
    """One INSERT of all ``rows``; inside a transaction in a savepoint, so that a refused number leaves it usable."""
    if _in_transaction():
        with transaction.atomic():
            _save(rows)
    else:
        _save(rows)


def _save(rows: list[DiagnosisTraceEvent]) -> None:
    if len(rows) == 1:
        rows[0].save(force_insert=True)
    else:
        DiagnosisTraceEvent.log.bulk_create(rows)


OnFlushed = Callable[[list[DiagnosisTraceEvent]], None]
HeldWrite = Callable[[], Callable[[], None] | None]
"""A write held for the log's next write (``RunLog.hold_write``); returns what puts back what it took."""


class RunLog:
    """The append path of one run's log, numbering its rows in memory (thread-safe)."""

    def __init__(
        self,
        run_id: uuid.UUID | str,
        *,
        on_foreign_write: Callable[[], None] | None = None,
        on_flushed: OnFlushed | None = None,
        linger: float = 0.0,
        empty: bool = False,
    ) -> None:
        """``empty``: the run was created in this transaction, so its log starts at 0 without being read."""
        self.run_id = uuid.UUID(str(run_id))
        # Called when another writer has appended to this log meanwhile, before this one writes after it.
        self.on_foreign_write = on_foreign_write
        # Called with the rows held back once they are written (``hold``), in the order they were appended.
        self.on_flushed = on_flushed
        self.linger = linger
        self._last: tuple[int, int] | None = (0, 0) if empty else None
        self._held: list[DiagnosisTraceEvent] = []
        # Writes of the run's other rows (its steps, ``tracing.steps``), made with the held rows' write.
        self._held_writes: list[HeldWrite] = []
        self._held_since = 0.0
        self._lock = threading.Lock()

    def _read_end(self) -> tuple[int, int]:
        ends = DiagnosisTraceEvent.log.filter(run_id=self.run_id).aggregate(seq=Max("seq"), stream=Max("stream_id"))
        return ends["seq"] or 0, ends["stream"] or 0

    def append(
        self,
        kind: TraceEventKind | str,
        name: str,
        details: Mapping[str, Any] | None = None,
        *,
        stream: StreamEvent | None = None,
        hold: bool = False,
    ) -> DiagnosisTraceEvent:
        """Append one row with the run's next numbers: a timeline event, a stream event, or both.

        With ``hold`` the row is numbered and written with the next flush (returned unsaved). Without, it
        is written now: after the rows held before it outside a transaction; inside one alone, and those
        rows are numbered after it when they are written (so a row of a transaction that may still roll
        back never carries them along, nor their announcement)."""
        row = self._row(kind, name, details, stream)
        with self._lock:
            if hold:
                self._hold(lambda: self._held.append(row))
            else:
                self._write_now([row])
        return row

    def append_streams(self, streams: list[StreamEvent]) -> list[DiagnosisTraceEvent]:
        """Append stream events alone (no timeline side), written now and together, in one INSERT, as
        ``append`` without ``hold`` writes one."""
        rows = [self._row("", "", None, stream) for stream in streams]
        with self._lock:
            self._write_now(rows)
        return rows

    def _row(
        self, kind: TraceEventKind | str, name: str, details: Mapping[str, Any] | None, stream: StreamEvent | None
    ) -> DiagnosisTraceEvent:
        return DiagnosisTraceEvent(
            run_id=self.run_id,
            kind=kind,
            name=name[:60],
            details=bounded_details(details or {}),
            stream_event=stream.event if stream else "",
            stream_data=stream.data if stream else "",
        )

    def _write_now(self, rows: list[DiagnosisTraceEvent]) -> None:
        """Write ``rows`` (under the lock): after the held rows outside a transaction, alone inside one."""
        if self._holding() and not _in_transaction():
            self._write_held(*rows)
        else:
            self._write(rows)

    def hold_write(self, write: HeldWrite) -> None:
        """Hold ``write``, a write of other rows of the run (a step), until the next write of the held rows,
        and make it in that write's transaction: one transaction for both, not one each. ``write`` returns
        what puts back what it took, called should that transaction roll back, or None."""
        with self._lock:
            self._hold(lambda: self._held_writes.append(write))

    def flush(self) -> None:
        """Write the rows held back, if any, and hand them to ``on_flushed``."""
        with self._lock:
            if self._holding():
                self._write_held()

    def _holding(self) -> bool:
        return bool(self._held or self._held_writes)

    def _hold(self, add: Callable[[], None]) -> None:
        """``add`` something to hold (under the lock), then write everything held once the oldest has lingered."""
        if not self._holding():
            self._held_since = time.monotonic()
        add()
        if time.monotonic() - self._held_since >= self.linger:
            self._write_held()

    def _write_held(self, *after: DiagnosisTraceEvent) -> None:
        """Make the held writes, then write the held rows and ``after`` (the caller's to announce) in one
        INSERT, in the same transaction, and hand the held rows to ``on_flushed``. Everything held is taken
        first: whatever interrupts the write, a row is never written twice.

        The writes go first for the order of the locks: a step's row locks the run's row (shared, for its
        foreign key) and the log's rows their numbers. A cancellation locks the run's row, then appends to
        the log; taken the other way round here, each waited for the other on MariaDB, and the database
        failed this write (a deadlock) and so the run."""
        held, self._held = self._held, []
        writes, self._held_writes = self._held_writes, []
        rows = [*held, *after]
        if writes:
            undo: list[Callable[[], None]] = []
            try:
                with transaction.atomic():
                    for write in writes:
                        if taken := write():
                            undo.append(taken)
                    if rows:
                        self._write(rows)
            except BaseException:
                # The rows may have been numbered, then rolled back: read the log's end again rather than
                # leave a gap in the stream's ids. The held writes' rows are theirs to write again.
                self._last = None
                for put_back in undo:
                    put_back()
                raise
        else:
            self._write(rows)
        if self.on_flushed:
            self.on_flushed(held)

    def _write(self, rows: list[DiagnosisTraceEvent]) -> None:
        """Number ``rows`` after the log's end and insert them at once (under the lock); rows that cannot be
        written are dropped."""
        for tries_left in reversed(range(APPEND_TRIES)):
            if self._last is None:
                self._last = self._read_end()
            seq, stream_id = self._last
            for row in rows:
                if row.kind:
                    seq += 1
                if row.stream_event:
                    stream_id += 1
                row.seq = seq if row.kind else None
                row.stream_id = stream_id if row.stream_event else None
            try:
                _insert(rows)
            except IntegrityError:
                # Another writer took a number (or the run is gone): read the log's end again; the owner
                # stops there if that writer ended the run (``on_foreign_write`` raises).
                self._last = None
                if not tries_left:
                    raise
                if self.on_foreign_write:
                    self.on_foreign_write()
                continue
            self._last = (seq, stream_id)
            return


def _in_transaction() -> bool:
    return transaction.get_connection().in_atomic_block


# Each run's log, by run, with the thread of its owner (the run's worker).
_owned: dict[str, tuple[RunLog, int]] = {}
_owned_lock = threading.Lock()


@contextmanager
def owned_log(log: RunLog) -> Iterator[RunLog]:
    """Make ``log`` the one this thread writes its run's rows with (its terminal events too), while it
    works on the run."""
    key = str(log.run_id)
    with _owned_lock:
        _owned[key] = (log, threading.get_ident())
    try:
        yield log
    finally:
        with _owned_lock:
            if _owned.get(key, (None, 0))[0] is log:
                del _owned[key]


def log_for(run_id: uuid.UUID | str) -> RunLog:
    """The run's log as its owner numbers it, on the owner's thread; anywhere else a log that reads the end
    first, as another process's writer would.

    Another thread of the owner's process (a canceller, the reaper) never shares the owner's log: it appends
    inside its transaction, holding the database's write lock (SQLite) or the run row's lock, and the owner,
    writing under its log's lock, may be waiting for that very lock. Were the other thread to wait for the
    log's lock in turn, the owner would wait out its lock timeout and lose its rows. The owner learns of the
    other row when its next number is refused (``RunLog.on_foreign_write``) and numbers after it.
    """
    key = str(uuid.UUID(str(run_id)))
    with _owned_lock:
        owned = _owned.get(key)
    if owned is not None and owned[1] == threading.get_ident():
        return owned[0]
    return RunLog(key)


def append_event(
    run_id: uuid.UUID | str,
    kind: TraceEventKind,
    name: str,
    details: Mapping[str, Any] | None = None,
    *,
    hold: bool = False,
) -> DiagnosisTraceEvent:
    """Append one timeline event (no stream event) with the next sequence number of its run; ``hold``: with
    the owner's next write when this process owns the run (a log of no owner holds nothing back)."""
    return log_for(run_id).append(kind, name, details, hold=hold)
