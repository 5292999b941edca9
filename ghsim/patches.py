"""Unified-diff patches: which lines a review comment may sit on, counts, and a builder for tests."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class DiffLine:
    """One line of a hunk, with its number on each side (None where the side lacks it)."""

    hunk: int
    index: int
    old: int | None
    new: int | None
    kind: str


def parse_patch(patch: str | None) -> list[DiffLine]:
    """Every line of every hunk of ``patch``, numbered as GitHub numbers them."""
    lines: list[DiffLine] = []
    if not patch:
        return lines
    hunk = -1
    old = new = 0
    for index, text in enumerate(patch.split("\n")):
        header = HUNK_HEADER.match(text)
        if header:
            hunk += 1
            old, new = int(header.group(1)), int(header.group(3))
            lines.append(DiffLine(hunk, index, None, None, "@"))
            continue
        if hunk < 0 or text.startswith("\\"):
            continue
        if text.startswith("+"):
            lines.append(DiffLine(hunk, index, None, new, "+"))
            new += 1
        elif text.startswith("-"):
            lines.append(DiffLine(hunk, index, old, None, "-"))
            old += 1
        else:
            lines.append(DiffLine(hunk, index, old, new, " "))
            old += 1
            new += 1
    return lines


def find_line(patch: str | None, line: int, side: str) -> DiffLine | None:
    """The diff line a comment on ``line`` of ``side`` (LEFT/RIGHT) would sit on, if any."""
    for entry in parse_patch(patch):
        number = entry.old if side == "LEFT" else entry.new
        if number == line:
            return entry
    return None


def diff_hunk(patch: str | None, target: DiffLine) -> str:
    """The hunk text from its header down to ``target``, as GitHub shows it on a comment."""
    if not patch:
        return ""
    texts = patch.split("\n")
    header_index = next(
        entry.index
        for entry in parse_patch(patch)
        if entry.hunk == target.hunk and entry.kind == "@"
    )
    return "\n".join(texts[header_index : target.index + 1])


def position_of(patch: str | None, target: DiffLine) -> int:
    """GitHub's legacy ``position``: lines below the first hunk header, counting later headers."""
    first = next((entry.index for entry in parse_patch(patch) if entry.kind == "@"), 0)
    return target.index - first


def count_changes(patch: str | None) -> tuple[int, int]:
    """(additions, deletions) of ``patch``."""
    entries = parse_patch(patch)
    return (
        sum(1 for entry in entries if entry.kind == "+"),
        sum(1 for entry in entries if entry.kind == "-"),
    )


def addition_patch(lines: Sequence[str], *, start: int = 1, context_before: int = 0) -> str:
    """A patch adding ``lines`` at ``start`` (after ``context_before`` unchanged context lines)."""
    first = max(start - context_before, 1)
    context = [f" context line {number}" for number in range(first, start)]
    old_count = len(context)
    new_count = len(context) + len(lines)
    old_start = first if old_count else max(first - 1, 0)
    header = f"@@ -{old_start},{old_count} +{first},{new_count} @@"
    return "\n".join([header, *context, *(f"+{text}" for text in lines)])
