"""Time in one shape: datetimes in values, integer milliseconds in the store, ISO 8601 from GitHub.

The store keeps every moment as milliseconds since the epoch (``*_ms`` columns); values carry
``datetime``. ``to_ms`` and ``from_ms`` are the two conversions at the store's edge, and
``parse_iso`` / ``parse_iso_or_none`` read the ISO 8601 times GitHub sends (REST, GraphQL and
webhook payloads alike).
"""

from __future__ import annotations

from datetime import UTC, datetime


def to_ms(moment: datetime) -> int:
    """``moment`` as the store keeps it: whole milliseconds since the epoch, truncated toward
    zero (a naive moment is read as local time, as ``datetime.timestamp`` reads it)."""
    return int(moment.timestamp() * 1000)


def from_ms(ms: int) -> datetime:
    """A stored moment as an aware datetime in UTC."""
    return datetime.fromtimestamp(ms / 1000, UTC)


def parse_iso(text: str) -> datetime:
    """An ISO 8601 time as GitHub writes it (``2024-05-01T12:00:00Z``): ``Z`` is UTC, an offset
    is kept as given, a time with neither stays naive; ``ValueError`` when it is not a time."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def parse_iso_or_none(value: object) -> datetime | None:
    """An optional time of a JSON field: None when it is absent, null, empty or not a string;
    otherwise ``parse_iso``."""
    if not isinstance(value, str) or not value:
        return None
    return parse_iso(value)
