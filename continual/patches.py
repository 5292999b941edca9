"""Reading GitHub's per-file unified-diff ``patch``: its hunks, their lines and line numbers.

The one reader of a diff in the project (the simulator's patch writer aside). Its rules, the
ones GitHub numbers comments by:

- a hunk opens at a header ``@@ -a[,b] +c[,d] @@ section`` (numbers of at most MAX_DIGITS
  digits); anything else that starts with ``@@`` is not a header;
- text before the first header belongs to no hunk and is not read;
- in a hunk a line is added (``+``), removed (``-``) or context (`` ``) by its first character;
  ``\\ No newline at end of file`` is neither file's line and is passed over; any other line
  (an empty one, a malformed header) counts as context, its whole text kept;
- lines are split on ``\\n`` only, so a ``\\r`` stays in the text of its line;
- a hunk runs to the next header: the counts in its header are kept, not enforced.

One pass over the text, no regular expression: linear in the size of the patch.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Literal

Kind = Literal["+", "-", " "]

HEADER_START = "@@ -"
NO_NEWLINE = "\\"
# A line number longer than this is no line number (and Python refuses to read one of 4,300).
MAX_DIGITS = 18


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a hunk: added, removed or context, its text without the kind character, and
    its number in the old and the new file (None on the side that lacks it)."""

    kind: Kind
    text: str
    old: int | None
    new: int | None


@dataclass(frozen=True, slots=True)
class Hunk:
    """One hunk: the ranges its header names, the text after the header's second ``@@``, and
    its lines."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    section: str
    lines: tuple[Line, ...]


def _number(text: str) -> bool:
    return text.isdecimal() and len(text) <= MAX_DIGITS


def _range(text: str) -> tuple[int, int] | None:
    """``start[,count]`` of a header (count 1 when left out), or None if it is not one."""
    start, comma, count = text.partition(",")
    if not _number(start) or (comma and not _number(count)):
        return None
    return int(start), int(count) if comma else 1


def _header(text: str) -> Hunk | None:
    """The header ``@@ -a[,b] +c[,d] @@…`` that ``text`` is, as a hunk with no lines yet, or None."""
    if not text.startswith(HEADER_START):
        return None
    old, _, rest = text[len(HEADER_START) :].partition(" ")
    if not rest.startswith("+"):
        return None
    new, _, rest = rest[1:].partition(" ")
    if not rest.startswith("@@"):
        return None
    old_range, new_range = _range(old), _range(new)
    if old_range is None or new_range is None:
        return None
    return Hunk(*old_range, *new_range, section=rest[2:], lines=())


def is_header(text: str) -> bool:
    """True when the line ``text`` opens a hunk."""
    return _header(text) is not None


def hunks(patch: str | None) -> tuple[Hunk, ...]:
    """The hunks of ``patch``, each line numbered on both sides as GitHub numbers them."""
    found: list[Hunk] = []
    header: Hunk | None = None
    lines: list[Line] = []
    old = new = 0
    for text in (patch or "").split("\n"):
        opened = _header(text)
        if opened is not None:
            if header is not None:
                found.append(replace(header, lines=tuple(lines)))
            header, lines = opened, []
            old, new = opened.old_start, opened.new_start
        elif header is None or text.startswith(NO_NEWLINE):
            continue
        elif text.startswith("+"):
            lines.append(Line("+", text[1:], None, new))
            new += 1
        elif text.startswith("-"):
            lines.append(Line("-", text[1:], old, None))
            old += 1
        else:
            body = text[1:] if text.startswith(" ") else text
            lines.append(Line(" ", body, old, new))
            old += 1
            new += 1
    if header is not None:
        found.append(replace(header, lines=tuple(lines)))
    return tuple(found)


def changed_new_lines(patch: str | None) -> frozenset[int]:
    """The new-file line numbers a patch adds, or next to which (before which) it removes lines."""
    changed: set[int] = set()
    for hunk in hunks(patch):
        following = hunk.new_start
        for line in hunk.lines:
            if line.kind == "-":
                changed.add(following)
                continue
            if line.new is not None:
                following = line.new + 1
                if line.kind == "+":
                    changed.add(line.new)
    return frozenset(changed)


def commentable_new_lines(patch: str | None) -> frozenset[int]:
    """The new-file line numbers a review comment may sit on: added and context lines."""
    return frozenset(
        line.new for hunk in hunks(patch) for line in hunk.lines if line.new is not None
    )


def added_runs(patch: str | None) -> tuple[tuple[str, ...], ...]:
    """Each run of consecutive added lines, as their texts; a run ends with its hunk."""
    runs: list[tuple[str, ...]] = []
    for hunk in hunks(patch):
        current: list[str] = []
        for line in hunk.lines:
            if line.kind == "+":
                current.append(line.text)
            elif current:
                runs.append(tuple(current))
                current = []
        if current:
            runs.append(tuple(current))
    return tuple(runs)


def added_texts(patch: str | None) -> tuple[str, ...]:
    """The texts of the lines the patch adds, in order."""
    return tuple(line.text for hunk in hunks(patch) for line in hunk.lines if line.kind == "+")


def head_texts(patch: str | None) -> tuple[str, ...]:
    """The texts of the lines that exist at the head: context and additions, in order."""
    return tuple(line.text for hunk in hunks(patch) for line in hunk.lines if line.kind != "-")


@functools.lru_cache(maxsize=64)
def removed_texts(patch: str | None) -> tuple[str, ...]:
    """The texts of the lines the patch removes, in order.

    Maintenance asks it once for each name a lesson holds in the file, for every lesson of the
    file, and twice a run: the answer of the last 64 patches is kept."""
    return tuple(line.text for hunk in hunks(patch) for line in hunk.lines if line.kind == "-")


def hunk_texts(patch: str) -> tuple[str, ...]:
    """``patch`` cut before each hunk header (text before the first header is a piece of its
    own), every character kept: the pieces joined are the patch."""
    pieces: list[str] = []
    start = position = 0
    for text in patch.split("\n"):
        if position > start and is_header(text):
            pieces.append(patch[start:position])
            start = position
        position += len(text) + 1
    if start < len(patch):
        pieces.append(patch[start:])
    return tuple(pieces)
