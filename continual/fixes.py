"""Fix PRs, the pure part: the `/fix` command, the one change a fix PR makes, and its words.

A fix PR carries exactly the change the maintainer saw: the suggestion's replacement block in
place of the line it was posted on, and nothing else (docs/fixes.md). Everything here works on
plain values; the door (`ghapp/fixes/`) reads the files and writes the commit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from continual.markers import neutralise, render_fix_marker
from continual.writeback.applied import replacement_lines

BRANCH_PREFIX = "hindsight/fix-"
TITLE_CHARS = 96
CONTEXT_LINES = 3  # lines either side that tell two equal lines apart when the head moved
# `/fix`, `@<slug> fix` or `@<slug> /fix` alone on the first line, trailing punctuation allowed.
_COMMAND = re.compile(
    r"(?:/\s*fix|@(?P<mention>[\w.-]+)(?:\[bot\])?[\s,:]+/?\s*fix)[\s.!]*", re.IGNORECASE
)
_PROTECTED_DIRECTORY = ".github"


def _first_line(text: str) -> str | None:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(">"):
            return stripped
    return None


def is_fix_command(text: str | None, *, app_slug: str | None = None) -> bool:
    """True when the first non-blank line is `/fix`, or `fix` addressed to the app (`@<slug>`).

    Without `app_slug` any mention is accepted: the router's cheap filter, before the slug is
    known; the handler checks the mention again with it.
    """
    line = _first_line(text or "")
    if line is None:
        return False
    match = _COMMAND.fullmatch(line)
    if match is None:
        return False
    mention = match.group("mention")
    return mention is None or app_slug is None or mention.lower() == app_slug.lower()


def fix_branch(suggestion_id: str) -> str:
    """The branch a suggestion's fix PR is written on."""
    return f"{BRANCH_PREFIX}{suggestion_id}"


def path_problem(path: str) -> str | None:
    """Why the app will not write `path` in a fix PR, or None when it may."""
    parts = path.split("/")
    if not path or path.startswith("/") or any(part in ("", ".", "..") for part in parts):
        return f"`{_inline(path)}` is not a plain path inside the repository"
    if parts[0].lower() == _PROTECTED_DIRECTORY:
        return (
            "it would change a file under `.github/` (workflows and repository settings), "
            "which a fix PR never touches"
        )
    return None


@dataclass(frozen=True, slots=True)
class FixChange:
    """The one file a fix PR changes: its text before and after, and the line replaced."""

    path: str
    before: str
    after: str
    line: int  # 1-based, in the target's file: the (first) line changed
    moved: bool  # the target is not the commit the suggestion was posted on
    patched: bool = False  # the proven fix's patch, not the replacement block


@dataclass(frozen=True, slots=True)
class NotApplicable:
    """Why no fix PR is opened, in words for the suggestion's thread."""

    reason: str


def _split(text: str) -> tuple[list[str], str]:
    newline = "\r\n" if "\r\n" in text else "\n"
    return text.split(newline), newline


def _real_lines(lines: list[str]) -> int:
    """How many lines a split text has: the empty piece after a final newline is none."""
    return len(lines) - 1 if len(lines) > 1 and lines[-1] == "" else len(lines)


def _context_score(original: list[str], at: int, target: list[str], candidate: int) -> int:
    score = 0
    ends = _real_lines(original), _real_lines(target)
    for offset in range(-CONTEXT_LINES, CONTEXT_LINES + 1):
        if offset == 0:
            continue
        i, j = at + offset, candidate + offset
        if 0 <= i < ends[0] and 0 <= j < ends[1] and original[i] == target[j]:
            score += 1
    return score


def _locate(original: str, line: int, target: str) -> int | NotApplicable:
    """Where the suggestion's line stands in the moved target (0-based), or why it does not."""
    before, _ = _split(original)
    lines, _ = _split(target)
    if not 1 <= line <= _real_lines(before):
        return NotApplicable(f"line {line} is not in the file the suggestion was posted on")
    wanted = before[line - 1]
    candidates = [index for index in range(_real_lines(lines)) if lines[index] == wanted]
    if not candidates:
        return NotApplicable(
            f"line {line} has changed since the suggestion was posted, so the suggested change "
            "no longer applies"
        )
    scores = {c: _context_score(before, line - 1, lines, c) for c in candidates}
    best = max(scores.values())
    chosen = [c for c, score in scores.items() if score == best]
    if len(chosen) > 1:
        return NotApplicable(
            f"the commented line now occurs {len(chosen)} times alike, so where the change "
            "belongs is no longer certain"
        )
    return chosen[0]


def fix_problem(
    *, path: str, line: int | None, replacement: str | None, patch: str | None = None
) -> NotApplicable | None:
    """Why a suggestion can have no fix PR whatever the code says now, or None; `patch`: the
    proven fix's patch shown with it (applied when there is no replacement block)."""
    if patch is not None and not replacement_lines(replacement or ""):
        problem = path_problem(path)
        return NotApplicable(problem) if problem is not None else None
    if not replacement_lines(replacement or "") or line is None:
        return NotApplicable(
            "the suggestion carries no replacement code, so there is nothing to apply"
        )
    problem = path_problem(path)
    return NotApplicable(problem) if problem is not None else None


def plan_fix(
    *,
    path: str,
    line: int | None,
    replacement: str | None,
    target: str | None,
    original: str | None,
    moved: bool,
) -> FixChange | NotApplicable:
    """The change a fix PR makes to `target` (the file at the commit it builds on), or why none.

    `original` is the file where the suggestion was posted; it is needed only when `moved` (the
    head moved since, or the PR merged): the commented line is then found again by its text and
    the lines around it, and the change is made there or not at all.
    """
    problem = fix_problem(path=path, line=line, replacement=replacement)
    if problem is not None or line is None:
        return problem or NotApplicable("the suggestion names no line")
    block = replacement_lines(replacement or "")
    if target is None:
        return NotApplicable(f"`{_inline(path)}` cannot be read as text at the fix's base")
    lines, newline = _split(target)
    if moved:
        if original is None:
            return NotApplicable(
                f"`{_inline(path)}` as the suggestion saw it can no longer be read"
            )
        found = _locate(original, line, target)
        if isinstance(found, NotApplicable):
            return found
        index = found
    else:
        if line > _real_lines(lines):
            return NotApplicable(f"line {line} is past the end of `{_inline(path)}`")
        index = line - 1
    if tuple(lines[index : index + len(block)]) == block:
        return NotApplicable("the suggested code is already there: nothing is left to change")
    after = [*lines[:index], *block, *lines[index + 1 :]]
    return FixChange(path, target, newline.join(after), index + 1, moved)


def _inline(text: str) -> str:
    """Text for a code span: no backtick, no line break, at most 200 characters."""
    flat = " ".join(text.replace("`", "'").split())
    return flat if len(flat) <= 200 else flat[:199] + "…"


def _quoted(text: str, most: int) -> str:
    """Someone's words in the app's own text: no mention, no markup that opens a comment."""
    flat = _inline(neutralise(text)).replace("@", "@\u200b")
    return flat if len(flat) <= most else flat[: most - 1] + "…"


def fix_title(title: str) -> str:
    return f"Hindsight fix: {_quoted(title, TITLE_CHARS)}"


def fix_body(
    *,
    suggestion_id: str,
    title: str,
    pull: int,
    asked_by: str,
    change: FixChange,
    from_ledger: bool = False,
) -> str:
    """The fix PR's body: which suggestion, which PR, who asked (and where); the fix marker last."""
    how = "from the Hindsight ledger" if from_ledger else "with `/fix`"
    where = f"`{_inline(change.path)}` line {change.line}"
    what, scope = "the suggestion", "that line"
    if change.patched:
        what, scope = "the proven fix's patch shown with the suggestion", "the lines it changes"
    moved = (
        "\n\nThe code moved since the suggestion was posted; the change was placed where the "
        "commented code now stands."
        if change.moved
        else ""
    )
    return (
        f"Applies {what} **{_quoted(title, TITLE_CHARS)}** from #{pull} at {where}, "
        f"as @{_login(asked_by)} asked {how}. It changes {scope} and nothing else."
        f"{moved}\n\n"
        "Merging it records the suggestion as accepted. Closing it after a typed refusal "
        "(`dismiss <reason>`) records it as dismissed; closing it without one records nothing."
        f"\n\n{render_fix_marker(suggestion_id)}"
    )


def _login(login: str) -> str:
    """A GitHub login as the app writes it: only the characters a login (or a bot's) may hold."""
    return re.sub(r"[^A-Za-z0-9_\-\[\]]", "", login)[:64] or "someone"


def commit_message(title: str, pull: int) -> str:
    return f"{fix_title(title)}\n\nThe suggestion Hindsight left on #{pull}, applied as posted."


def by_hand(
    *, path: str, line: int | None, replacement: str | None, why: str, patched: bool = False
) -> str:
    """The answer to a `/fix` that opens nothing: why, and the change to make by hand."""
    block = "\n".join(replacement_lines(replacement or ""))
    if patched and not block:
        return f"No fix PR was opened: {why}. The proven fix's patch is shown with the suggestion."
    if not block or line is None:
        return f"No fix PR was opened: {why}."
    fence = "`" * max(3, _longest_run(block, "`") + 1)
    return (
        f"No fix PR was opened: {why}. To make the change by hand, replace "
        f"`{_inline(path)}` line {line} with:\n\n{fence}\n{block}\n{fence}"
    )


def _longest_run(text: str, char: str) -> int:
    runs = re.findall(f"{re.escape(char)}+", text)
    return max((len(run) for run in runs), default=0)
