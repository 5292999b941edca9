"""A proven fix's patch, as a fix PR carries it: read strictly, for the suggestion's one file only,
and applied to the file at the fix's base exactly or not at all (docs/fixes.md).

The patch is the seat's words, so it is untrusted: one file, the suggestion's, never under
`.github/`; no rename, mode change, new or deleted file, binary or secret; at most
MAX_PATCH_CHARS; every hunk's counts as its header says. The same check decides whether the
patch is shown with the finding and stored beside its proof, so what a fix PR applies is what
the maintainer saw.
"""

from __future__ import annotations

from dataclasses import dataclass

from continual.fixes import FixChange, NotApplicable, path_problem
from continual.patches import Hunk, hunks, is_header
from continual.secrets import find_secret

MAX_PATCH_CHARS = 8_000
MAX_HUNKS = 20
_EXTENDED = (
    "new file mode",
    "deleted file mode",
    "old mode",
    "new mode",
    "rename from",
    "rename to",
    "copy from",
    "copy to",
    "similarity index",
    "dissimilarity index",
)
_ALLOWED_HEADERS = ("diff --git ", "index ")


@dataclass(frozen=True, slots=True)
class FilePatch:
    """A patch read strictly: its one file and its hunks, in order."""

    path: str
    hunks: tuple[Hunk, ...]


def _side(line: str, marker: str) -> str | None:
    """The path a `--- ` or `+++ ` header names, without its `a/` or `b/` and any timestamp."""
    name = line[len(marker) :].split("\t", 1)[0].strip()
    if name == "/dev/null":
        return None
    return name[2:] if name[:2] in ("a/", "b/") else name


def _counted(hunk: Hunk) -> bool:
    old = sum(1 for line in hunk.lines if line.kind != "+")
    new = sum(1 for line in hunk.lines if line.kind != "-")
    return (old, new) == (hunk.old_count, hunk.new_count)


def _body_problem(lines: list[str]) -> NotApplicable | None:
    """Why the lines from the first hunk on are not one file's hunks: a `--- `, `+++ ` or
    `diff --git ` line past a hunk's counted lines starts another file, while inside them it is
    a removed or added line (a removed `-- comment` reads `--- comment`)."""
    old = new = 0
    for line in lines:
        if is_header(line):
            [opened] = hunks(line)
            old, new = opened.old_count, opened.new_count
            continue
        if old <= 0 and new <= 0 and line.startswith(("--- ", "+++ ", "diff --git ")):
            return NotApplicable("the proven fix's patch changes more than one file")
        if line and line[0] not in " +-\\":
            return NotApplicable("the proven fix's patch has a line no hunk may hold")
        kind = line[:1]
        old -= kind in (" ", "", "-")
        new -= kind in (" ", "", "+")
    return None


def read_patch(patch: str | None, path: str) -> FilePatch | NotApplicable:
    """The patch as one file's hunks when it changes only `path` and reads strictly, else why
    the app will not apply it."""
    if not patch or not patch.strip():
        return NotApplicable("the proven fix has no patch, so there is nothing to apply")
    if len(patch) > MAX_PATCH_CHARS:
        return NotApplicable(f"the proven fix's patch is over {MAX_PATCH_CHARS:,} characters")
    if "\x00" in patch or "GIT binary patch" in patch or "\nBinary files " in f"\n{patch}":
        return NotApplicable("the proven fix's patch changes a binary file")
    if find_secret(patch) is not None:
        return NotApplicable("the proven fix's patch holds what looks like a secret")
    lines = patch.removesuffix("\n").split("\n")
    start = next((i for i, line in enumerate(lines) if is_header(line)), None)
    if start is None:
        return NotApplicable("the proven fix's patch has no hunk")
    names: set[str | None] = set()
    for line in lines[:start]:
        if line.startswith("--- "):
            names.add(_side(line, "--- "))
        elif line.startswith("+++ "):
            names.add(_side(line, "+++ "))
        elif line.startswith(_EXTENDED):
            return NotApplicable("the proven fix's patch renames, re-modes, adds or deletes a file")
        elif line.strip() and not line.startswith(_ALLOWED_HEADERS):
            return NotApplicable("the proven fix's patch has text before its hunks it cannot hold")
    if None in names:
        return NotApplicable("the proven fix's patch adds or deletes a file")
    for name in sorted(n for n in names if n is not None):
        problem = path_problem(name)
        if problem is not None:
            return NotApplicable(problem)
    if names != {path}:
        return NotApplicable(
            "the proven fix's patch changes a file other than the suggestion's, or names none"
        )
    unreadable = _body_problem(lines[start:])
    if unreadable is not None:
        return unreadable
    found = hunks("\n".join(lines[start:]))
    if len(found) > MAX_HUNKS:
        return NotApplicable(f"the proven fix's patch has over {MAX_HUNKS} hunks")
    previous = 0
    for number, hunk in enumerate(found, 1):
        if not _counted(hunk):
            return NotApplicable(f"hunk {number} of the proven fix's patch is malformed")
        if hunk.old_start < previous:
            return NotApplicable("the proven fix's patch has hunks out of order")
        previous = hunk.old_start + hunk.old_count
    return FilePatch(path, found)


def shown_patch(path: str, patch: str | None) -> str | None:
    """The patch when a fix PR may apply it (so it is shown with the finding and stored), else
    None."""
    return patch if isinstance(read_patch(patch, path), FilePatch) else None


def _split(text: str) -> tuple[list[str], str, bool]:
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(newline)
    ended = len(lines) > 1 and lines[-1] == ""
    return (lines[:-1] if ended else lines), newline, ended


def _where(lines: list[str], old: list[str], expected: int, after: int) -> int | None:
    """Where the hunk's old lines stand: where its header says, else the one place at or after
    `after` where they do (the code moved); None when nowhere or in several places."""
    if after <= expected <= len(lines) and lines[expected : expected + len(old)] == old:
        return expected
    if not old:
        return None
    places = [i for i in range(after, len(lines) - len(old) + 1) if lines[i : i + len(old)] == old]
    return places[0] if len(places) == 1 else None


def apply_patch(patch: str | None, path: str, target: str | None) -> FixChange | NotApplicable:
    """The change the proven fix's patch makes to `target` (the file at the fix's base), or why
    it does not apply: each hunk's removed and context lines must stand there as they are."""
    read = read_patch(patch, path)
    if isinstance(read, NotApplicable):
        return read
    if target is None:
        return NotApplicable(f"`{path}` cannot be read as text at the fix's base")
    lines, newline, ended = _split(target)
    out: list[str] = []
    done = 0
    moved = False
    first: int | None = None
    for number, hunk in enumerate(read.hunks, 1):
        old = [line.text for line in hunk.lines if line.kind != "+"]
        new = [line.text for line in hunk.lines if line.kind != "-"]
        expected = hunk.old_start if hunk.old_count == 0 else hunk.old_start - 1
        at = _where(lines, old, expected, done)
        if at is None:
            return NotApplicable(
                f"hunk {number} of the proven fix's patch (line {hunk.old_start}) no longer "
                "matches the code, so the patch does not apply"
            )
        moved = moved or at != expected
        if first is None:
            first = at + 1
        out += [*lines[done:at], *new]
        done = at + len(old)
    out += lines[done:]
    after = newline.join(out) + (newline if ended else "")
    if after == target:
        return NotApplicable("the proven fix is already there: nothing is left to change")
    return FixChange(path, target, after, first or 1, moved, patched=True)
