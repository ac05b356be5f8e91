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
    return value.astimezone(UTC)


def format_timestamp(value: datetime) -> str:
    """``2024-05-01T10:05:00Z`` (with microseconds only when there are some)."""
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
