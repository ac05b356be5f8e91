"""A copy of a scenario pack with every timestamp moved by the same amount, so that its incident is now.

Prometheus evaluates alerting rules at the present, so an alert can only fire over a pack whose data
reaches the present; moving every stamp by one delta (logs, metrics, business rows, the window) keeps
every relation the diagnosis relies on (a change recorded before the onset, a level after it).
"""

from __future__ import annotations

import re
import shutil
from datetime import datetime, timedelta
from pathlib import Path

# ``2026-10-14T10:03:06.190Z`` (logs), ``2026-10-14T10:03:00Z`` (metrics, window), ``2026-10-14 08:15:44`` (SQL).
_STAMP = re.compile(r"(\d{4}-\d{2}-\d{2})([T ])(\d{2}:\d{2}:\d{2})(\.\d{3})?(Z?)")
SHIFTED_FILES = ("scenario.json", "logs.jsonl", "metrics.csv", "business.sql")


def _shift(match: re.Match[str], delta: timedelta) -> str:
    date, separator, clock, millis, zone = match.groups()
    moment = datetime.fromisoformat(f"{date}T{clock}{millis or ''}") + delta
    text = moment.strftime(f"%Y-%m-%d{separator}%H:%M:%S")
    if millis:
        text += f".{moment.microsecond // 1000:03d}"
    return text + zone


def shifted_pack(source: Path, target: Path, delta: timedelta) -> Path:
    """``target``: ``source`` with its stamps moved by ``delta`` (whole seconds keep the millisecond forms)."""
    shutil.copytree(source, target)
    for name in SHIFTED_FILES:
        path = target / name
        path.write_text(
            _STAMP.sub(lambda match: _shift(match, delta), path.read_text(encoding="utf-8")), encoding="utf-8"
        )
    return target
