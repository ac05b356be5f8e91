"""When the incident started: a clock time in the question, placed inside the environment's window.

Engineers say "since 10:05" or "从 02:31 开始", never a full timestamp, and the window tells which day
that is. The onset matters because a log template that already existed before it is background noise,
a metric is anomalous only when its level after the onset differs from its level before, and a change made
after it cannot have caused it. A question may name other times too ("deployed at 01:58, failing since
02:14"): the onset is the time the question says things began at, not the time of a change it suspects.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from diagnosis.providers.offline.vocabulary import announces_change, fault_score
from tools.timestamps import format_timestamp, parse_timestamp

_CLOCK = re.compile(r"(?<![\d:])(?:(\d{4}-\d{2}-\d{2})[T ])?([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?![\d:])")


@dataclass(frozen=True)
class Window:
    start: datetime
    end: datetime

    @classmethod
    def of(cls, environment: Mapping[str, Any]) -> Window | None:
        """The environment's incident window, or None when it is missing or unreadable."""
        window = environment.get("window") or {}
        try:
            start, end = parse_timestamp(window.get("start")), parse_timestamp(window.get("end"))
        except ValueError:
            return None
        return cls(start, end) if start < end else None

    @property
    def seconds(self) -> int:
        return int((self.end - self.start).total_seconds())

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment <= self.end

    def iso(self) -> tuple[str, str]:
        return format_timestamp(self.start), format_timestamp(self.end)


# Where a clause ends: the words that say what a time is stop there.
_CLAUSE_END = re.compile(r"[,;!?()，。；！？、（）\n]|\.(?:\s|$)|\s[-–—]+\s|—")
# Words that say a time is when something began: "since 10:05", "starting at", "从 02:31", "02:31 开始".
_BEGAN_BEFORE = re.compile(
    r"(?:\b(?:since|from|as\s+of|start(?:s|ed|ing)?(?:\s+(?:at|from))?|beg[au]n(?:\s+at)?|beginning(?:\s+at)?)"
    r"|从|自从|自)\s*$",
    re.IGNORECASE,
)
_BEGAN_AFTER = re.compile(r"^\s*(?:开始|起|以来)")
# Words that say things were still fine at a time: "it was fine at 23:50", "23:50 时还正常".
_STILL_FINE = re.compile(r"\b(?:fine|normal|ok|okay|healthy|good)\b|正常|没问题", re.IGNORECASE)
# How far around a time its own words are looked for.
_NEAR_CHARS = 30


def onset_from_question(question: str, window: Window | None) -> datetime | None:
    """The clock time of ``question`` that falls in ``window`` (the day taken from the window) and reads as
    the onset, the first of the best kind: said to be when things began ("since", "从 … 开始") and beside no
    change's words; said to be when things began; beside no change's words ("errors at 00:14"); the rest (a
    change's time, "deployed at 01:58", or one when things were still fine, "normal at 23:50")."""
    if window is None:
        return None
    matches = list(_CLOCK.finditer(question))
    ranked: list[tuple[int, int, datetime]] = []
    for position, match in enumerate(matches):
        moment = _in_window(match, window)
        if moment is None:
            continue
        before = _last_clause(question[matches[position - 1].end() if position else 0 : match.start()])
        following = matches[position + 1].start() if position + 1 < len(matches) else len(question)
        after = _first_clause(question[match.end() : following])
        began = bool(_BEGAN_BEFORE.search(before) or _BEGAN_AFTER.match(after))
        # Words after a time are its own only when those before it say nothing ("errors at 00:14, right
        # after the deploy" is an error's time).
        changed = _says_change(before) or (not began and not fault_score(before) and _says_change(after))
        fine = bool(_STILL_FINE.search(before) or _STILL_FINE.search(after))
        rank = 0 if began and not changed else 1 if began else 2 if not (changed or fine) else 3
        ranked.append((rank, position, moment))
    return min(ranked)[2] if ranked else None


def _in_window(match: re.Match[str], window: Window) -> datetime | None:
    date_text, hour, minute, second = match.groups()
    for day in _candidate_days(window, date_text):
        moment = datetime(day.year, day.month, day.day, int(hour), int(minute), int(second or 0), tzinfo=UTC)
        if window.contains(moment):
            return moment
    return None


def _last_clause(text: str) -> str:
    ends = list(_CLAUSE_END.finditer(text))
    return text[ends[-1].end() if ends else 0 :][-_NEAR_CHARS:]


def _first_clause(text: str) -> str:
    end = _CLAUSE_END.search(text)
    return text[: end.start() if end else len(text)][:_NEAR_CHARS]


def _says_change(words: str) -> bool:
    """Whether the words beside a time name a change and no fault ("deployed at", "发布过"; not "config-service
    errors since")."""
    return announces_change(words) and fault_score(words) == 0


def _candidate_days(window: Window, date_text: str | None) -> list[datetime]:
    if date_text:
        try:
            return [parse_timestamp(f"{date_text}T00:00:00Z")]
        except ValueError:
            return []
    days = []
    day = window.start.replace(hour=0, minute=0, second=0, microsecond=0)
    while day <= window.end:
        days.append(day)
        day += timedelta(days=1)
    return days


def sql_date_bound(moment: datetime) -> str:
    """``YYYY-MM-DD``: a text bound above every stamp of ``moment`` or earlier, whatever its ISO form.

    Tables store times as text in any ISO form (``2026-04-22T14:02:37Z``, ``2026-04-22T16:02:37+02:00``,
    ``2026-04-22 14:02:37``), and as text they do not compare as times: ``T`` sorts after a space and an
    offset moves the clock. Every form starts with its local date, though, which is at most one day after
    the UTC date (offsets reach +14:00), so ``column < bound`` keeps every row stamped up to ``moment``
    (and some after it: the exact comparison is made on the parsed stamps, see ``parse_ts``).
    """
    return (moment.astimezone(UTC) + timedelta(days=2)).strftime("%Y-%m-%d")


def parse_ts(value: object) -> datetime | None:
    """A payload timestamp, or None when the value is not one (tool data is never trusted to be tidy)."""
    try:
        return parse_timestamp(value)
    except ValueError:
        return None


def clock(moment: datetime) -> str:
    """``10:05:03`` - how the answer names a moment inside the incident window."""
    return moment.astimezone(UTC).strftime("%H:%M:%S")
