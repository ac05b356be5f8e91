"""ISO 8601 UTC timestamps in and out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from tools.timestamps import format_timestamp, parse_timestamp


@pytest.mark.parametrize(
    "text", ["2024-05-01T10:05:00Z", "2024-05-01T10:05:00+00:00", "2024-05-01T12:05:00+02:00", "2024-05-01 10:05:00"]
)
def test_it_reads_iso_8601_as_utc(text):
    assert parse_timestamp(text) == datetime(2024, 5, 1, 10, 5, tzinfo=UTC)


@pytest.mark.parametrize("value", ["yesterday", "2024-13-01T00:00:00Z", "", "   ", None, 1714557900])
def test_it_refuses_what_is_not_a_timestamp(value):
    with pytest.raises(ValueError, match="ISO 8601 timestamp"):
        parse_timestamp(value)


@pytest.mark.parametrize("text", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"])
def test_a_timestamp_with_no_utc_datetime_is_refused_as_a_value_error(text):
    with pytest.raises(ValueError, match="outside the range of UTC timestamps"):
        parse_timestamp(text)


def test_it_writes_utc_with_a_z():
    assert format_timestamp(datetime(2024, 5, 1, 12, 5, tzinfo=timezone(timedelta(hours=2)))) == "2024-05-01T10:05:00Z"
    assert format_timestamp(datetime(2024, 5, 1, 10, 5, 0, 717000, tzinfo=UTC)) == "2024-05-01T10:05:00.717000Z"
