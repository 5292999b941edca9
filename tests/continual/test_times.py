"""Time's one home: GitHub's ISO 8601 times read one way, milliseconds and datetimes converted one way."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from continual.times import from_ms, parse_iso, parse_iso_or_none, to_ms

NOON = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
NOON_MS = 1_714_564_800_000


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("2024-05-01T12:00:00Z", NOON),
        ("2024-05-01T12:00:00+00:00", NOON),
        ("2024-05-01T12:00:00.250Z", NOON + timedelta(milliseconds=250)),
        ("2024-05-01T14:00:00+02:00", NOON),
        ("2024-05-01T07:30:00-04:30", NOON),
    ],
)
def test_an_iso_time_with_z_or_an_offset_is_that_instant(text: str, moment: datetime) -> None:
    parsed = parse_iso(text)
    assert parsed == moment
    assert parsed.utcoffset() is not None


def test_an_offset_is_kept_as_given_not_moved_to_utc() -> None:
    parsed = parse_iso("2024-05-01T14:00:00+02:00")
    assert parsed.utcoffset() == timedelta(hours=2)
    assert parsed.hour == 14
    assert parse_iso("2024-05-01T12:00:00Z").tzinfo == UTC


def test_a_time_without_z_or_offset_stays_naive() -> None:
    parsed = parse_iso("2024-05-01T12:00:00")
    assert parsed.tzinfo is None
    assert parsed == datetime(2024, 5, 1, 12, 0)


@pytest.mark.parametrize("text", ["", "yesterday", "2024-13-01T00:00:00Z", "12:00 May 1st", "None"])
def test_garbage_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        parse_iso(text)


@pytest.mark.parametrize("value", [None, "", 1714564800, 1714564800.0, ["2024-05-01T12:00:00Z"]])
def test_an_absent_null_empty_or_non_string_field_is_none(value: object) -> None:
    assert parse_iso_or_none(value) is None


def test_an_optional_field_holding_a_time_or_garbage() -> None:
    assert parse_iso_or_none("2024-05-01T12:00:00Z") == NOON
    with pytest.raises(ValueError):
        parse_iso_or_none("not a time")


def test_milliseconds_and_datetimes_round_trip_in_utc() -> None:
    assert to_ms(NOON) == NOON_MS
    assert to_ms(NOON.astimezone(timezone(timedelta(hours=-7)))) == NOON_MS
    assert from_ms(NOON_MS) == NOON
    assert from_ms(NOON_MS).tzinfo is UTC
    assert from_ms(NOON_MS + 999) == NOON + timedelta(milliseconds=999)
    assert to_ms(from_ms(NOON_MS + 1)) == NOON_MS + 1


def test_to_ms_truncates_below_a_millisecond() -> None:
    assert to_ms(NOON + timedelta(microseconds=999)) == NOON_MS
    assert to_ms(NOON + timedelta(microseconds=1999)) == NOON_MS + 1
