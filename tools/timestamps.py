"""ISO 8601 timestamps in UTC, as scenario packs write them and canonical payloads show them."""

from __future__ import annotations

from datetime import UTC, datetime


def parse_timestamp(text: object) -> datetime:
    """An aware UTC datetime; a timestamp without an offset is read as UTC (packs are UTC by contract)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"expected an ISO 8601 timestamp, got {text!r}")
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO 8601 timestamp (e.g. 2024-05-01T10:05:00Z)") from None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00+01:00 and 9999-12-31T23:59-01:00 have no UTC datetime
        raise ValueError(f"{text!r} is outside the range of UTC timestamps") from None


def format_timestamp(value: datetime) -> str:
    """``2024-05-01T10:05:00Z`` (with microseconds only when there are some)."""
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
