"""Hidden markers that tie a review comment to its suggestion and a fix PR to the suggestion it fixes."""

from __future__ import annotations

import re
from dataclasses import dataclass

SUGGESTION_MARKER = "<!-- hindsight:suggestion id={sid} entry={entry} -->"
FIX_MARKER = "<!-- hindsight:fix suggestion={sid} -->"

SUGGESTION_ID_PATTERN = r"[A-Za-z0-9_-]{1,128}"
ENTRY_KEY_PATTERN = r"lesson/(?:[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?)?-[0-9a-f]{10}"

_SUGGESTION_ID = re.compile(SUGGESTION_ID_PATTERN)
_ENTRY_KEY = re.compile(ENTRY_KEY_PATTERN)
# Anything that looks like one of our markers; the last one in a body is the one that counts.
_ANY_SUGGESTION_MARKER = re.compile(r"<!--\s*hindsight:suggestion\b.*?-->", re.DOTALL)
_ANY_FIX_MARKER = re.compile(r"<!--\s*hindsight:fix\b.*?-->", re.DOTALL)
_SUGGESTION_EXACT = re.compile(
    rf"<!-- hindsight:suggestion id=({SUGGESTION_ID_PATTERN}) entry=({ENTRY_KEY_PATTERN}) -->"
)
_FIX_EXACT = re.compile(rf"<!-- hindsight:fix suggestion=({SUGGESTION_ID_PATTERN}) -->")


@dataclass(frozen=True)
class SuggestionMarker:
    """What the marker at the end of a suggestion comment names."""

    suggestion_id: str
    entry_key: str


def _check_suggestion_id(suggestion_id: str) -> None:
    if not _SUGGESTION_ID.fullmatch(suggestion_id):
        message = (
            f"suggestion id {suggestion_id!r} is not 1-128 characters of [A-Za-z0-9_-]; "
            "use an opaque id made of those characters"
        )
        raise ValueError(message)


def render_suggestion_marker(suggestion_id: str, entry_key: str) -> str:
    """The marker that ends a suggestion comment body."""
    _check_suggestion_id(suggestion_id)
    if not _ENTRY_KEY.fullmatch(entry_key):
        message = f"entry key {entry_key!r} is not of the form lesson/<slug>-<10 hex>"
        raise ValueError(message)
    return SUGGESTION_MARKER.format(sid=suggestion_id, entry=entry_key)


def render_fix_marker(suggestion_id: str) -> str:
    """The marker a fix PR body carries for the suggestion it fixes."""
    _check_suggestion_id(suggestion_id)
    return FIX_MARKER.format(sid=suggestion_id)


def with_suggestion_marker(body: str, suggestion_id: str, entry_key: str) -> str:
    """A comment body with the suggestion marker appended on its own line."""
    marker = render_suggestion_marker(suggestion_id, entry_key)
    return f"{body.rstrip()}\n\n{marker}" if body.strip() else marker


def _last(pattern: re.Pattern[str], body: str) -> str | None:
    last: str | None = None
    for match in pattern.finditer(body):
        last = match.group(0)
    return last


def parse_suggestion_marker(body: str | None) -> SuggestionMarker | None:
    """The last suggestion marker in a body, if it has exactly the rendered form; else None."""
    if not body or "hindsight:suggestion" not in body:
        return None
    last = _last(_ANY_SUGGESTION_MARKER, body)
    if last is None:
        return None
    match = _SUGGESTION_EXACT.fullmatch(last)
    if match is None:
        return None
    return SuggestionMarker(suggestion_id=match.group(1), entry_key=match.group(2))


def parse_fix_marker(body: str | None) -> str | None:
    """The suggestion id named by the last fix marker in a PR body, if exactly formed; else None."""
    if not body or "hindsight:fix" not in body:
        return None
    last = _last(_ANY_FIX_MARKER, body)
    if last is None:
        return None
    match = _FIX_EXACT.fullmatch(last)
    return match.group(1) if match else None
