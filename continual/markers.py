"""Every hidden marker the app writes and reads: the suggestion marker that ties a review comment to
its suggestion, the fix marker that ties a fix PR to the suggestion it fixes, the review marker that
ties a posted review to its draft, and the status marker that opens the status block of the app's
own comment.

One rule reads them all: the last exact occurrence in a body counts. The app writes its own marker
after anything it quotes (and what it quotes is neutralised), so a quoted or forged copy earlier in
a body never wins; anything but the exact form is no marker at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SUGGESTION_MARKER = "<!-- hindsight:suggestion id={sid} entry={entry} -->"
FIX_MARKER = "<!-- hindsight:fix suggestion={sid} -->"
REVIEW_MARKER = "<!-- hindsight:review id={review} -->"
STATUS_MARKER = "<!-- hindsight:status -->"

SUGGESTION_ID_PATTERN = r"[A-Za-z0-9_-]{1,128}"
ENTRY_KEY_PATTERN = r"lesson/(?:[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?)?-[0-9a-f]{10}"
REVIEW_ID_PATTERN = r"[A-Za-z0-9_-]{1,64}"

_SUGGESTION_ID = re.compile(SUGGESTION_ID_PATTERN)
_ENTRY_KEY = re.compile(ENTRY_KEY_PATTERN)
_REVIEW_ID = re.compile(REVIEW_ID_PATTERN)
# Where an HTML comment (and so a marker) would open or close: after `<!-` before a `-`, and
# after a `-` before `->` or `-!>`. Text from outside gets a break there.
_COMMENT_DELIMITER = re.compile(r"<!-(?=-)|-(?=-!?>)")
# Written between the characters of a delimiter: it reads the same, and no longer is one.
_BREAK = "\u200b"
_SUGGESTION_EXACT = re.compile(
    rf"<!-- hindsight:suggestion id=({SUGGESTION_ID_PATTERN}) entry=({ENTRY_KEY_PATTERN}) -->"
)
_FIX_EXACT = re.compile(rf"<!-- hindsight:fix suggestion=({SUGGESTION_ID_PATTERN}) -->")
_REVIEW_EXACT = re.compile(rf"<!-- hindsight:review id=({REVIEW_ID_PATTERN}) -->")


@dataclass(frozen=True)
class SuggestionMarker:
    """What the marker at the end of a suggestion comment names."""

    suggestion_id: str
    entry_key: str


def _check_id(kind: str, value: str, pattern: re.Pattern[str], most: int) -> None:
    if not pattern.fullmatch(value):
        message = (
            f"{kind} id {value!r} is not 1-{most} characters of [A-Za-z0-9_-]; "
            "use an opaque id made of those characters"
        )
        raise ValueError(message)


def _check_suggestion_id(suggestion_id: str) -> None:
    _check_id("suggestion", suggestion_id, _SUGGESTION_ID, 128)


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


def neutralise(text: str) -> str:
    """`text` from a seat, a pull request or a person, unable to open or close an HTML comment.

    Every marker the app reads is an HTML comment it wrote itself; text it quotes must not be able
    to forge one, nor, left unclosed, swallow the real one that follows it.
    """
    return _COMMENT_DELIMITER.sub(lambda match: match.group(0) + _BREAK, text)


def _last_match(pattern: re.Pattern[str], body: str | None) -> re.Match[str] | None:
    """The last exact occurrence of a marker `pattern` in `body`: the app's own marker is written
    after anything it quotes, so the last one is the one that counts."""
    last: re.Match[str] | None = None
    for match in pattern.finditer(body or ""):
        last = match
    return last


def parse_suggestion_marker(body: str | None) -> SuggestionMarker | None:
    """The last exactly formed suggestion marker in a body, if any."""
    match = _last_match(_SUGGESTION_EXACT, body)
    if match is None:
        return None
    return SuggestionMarker(suggestion_id=match.group(1), entry_key=match.group(2))


def without_suggestion_marker(body: str) -> str:
    """The body with its suggestion markers taken out (to quote it elsewhere)."""
    return _SUGGESTION_EXACT.sub("", body)


def parse_fix_marker(body: str | None) -> str | None:
    """The suggestion id named by the last exactly formed fix marker in a PR body, if any."""
    match = _last_match(_FIX_EXACT, body)
    return match.group(1) if match else None


def render_review_marker(review_id: str) -> str:
    """The marker that ends a posted review's body, naming the draft it was posted from."""
    _check_id("review", review_id, _REVIEW_ID, 64)
    return REVIEW_MARKER.format(review=review_id)


def parse_review_marker(body: str | None) -> str | None:
    """The review id named by the last exactly formed review marker in a review body, if any."""
    match = _last_match(_REVIEW_EXACT, body)
    return match.group(1) if match else None


def split_status(body: str) -> tuple[str, str | None]:
    """The app's comment cut at its last status marker: the text before it, and the status block
    after it (None when the body has no status marker).

    The last marker, as for every marker: the app writes its status block at the very end, so a
    copy quoted or planted earlier stays part of the text and is never the place the cut is made
    (cutting there would drop what follows it, the suggestion marker included).
    """
    head, marker, block = body.rpartition(STATUS_MARKER)
    return (head, block) if marker else (body, None)
