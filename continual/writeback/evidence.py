"""What the code shows about one suggestion, read once per write-back from plain values: did its
commented lines change since it was posted, did its replacement land, did the pull request merge
or close, who resolved its thread (docs/writeback.md, "Verdicts bound to evidence")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from continual.patches import added_runs, hunks
from continual.stored import StoredSuggestion
from continual.writeback.applied import replacement_lines
from continual.writeback.signals import touches

# A commit named in a reply: 7 to 40 hex digits standing alone ("fixed in 3f2a1c9").
_NAMED_COMMIT = re.compile(r"(?<![0-9a-z])[0-9a-f]{7,40}(?![0-9a-z])")


@dataclass(frozen=True)
class ChangesSince:
    """What landed on the pull request between an older head and its current one.

    `commits` are the comparison's commit shas, oldest first; `gone` the paths it deletes or
    renames away (their comments' lines no longer exist where they were); `base` the older head
    it starts from."""

    patches: Mapping[str, str]  # unified diff by path
    commit_authors: tuple[str, ...]  # logins of the commits' authors, oldest first
    commits: tuple[str, ...] = ()
    gone: frozenset[str] = field(default_factory=frozenset)
    base: str | None = None


class Lines(StrEnum):
    """What became of a suggestion's commented lines since the head it was posted on."""

    UNCHANGED = "unchanged"
    CHANGED = "changed"
    GONE = "gone"  # the file was deleted or renamed: neither a fix nor the lines kept
    UNKNOWN = "unknown"  # nothing read can tell (no comparison, history rewritten, older base)


class Bound(StrEnum):
    """The evidence that bound a decision, as its receipt records it."""

    CHANGED = "lines-changed"
    LANDED = "replacement-landed"
    KEPT = "lines-kept"  # merged or closed with the commented lines as they were


@dataclass(frozen=True)
class Evidence:
    """One thread's evidence. `commit` is the commit that shows the change: the newest of the
    comparison (a reply may name an earlier one, `commit_named`); `resolved_by` a maintainer who
    resolved the thread, None otherwise (a contributor's or a bot's resolution is no evidence)."""

    lines: Lines
    landed: bool = False
    closed: bool = False
    commit: str | None = None
    commits: tuple[str, ...] = ()
    resolved_by: str | None = None

    @property
    def shows_change(self) -> bool:
        """The code agrees with an acceptance: the lines changed, or the replacement landed."""
        return self.landed or self.lines is Lines.CHANGED

    def commit_named(self, text: str) -> str | None:
        """The comparison's commit a reply names (a prefix of 7 or more hex digits), if the
        change is shown; a commit the comparison does not hold is no evidence."""
        if not self.shows_change:
            return None
        for match in _NAMED_COMMIT.finditer(text.lower()):
            found = [sha for sha in self.commits if sha.lower().startswith(match.group())]
            if len(found) == 1:
                return found[0]
        return None


NO_EVIDENCE = Evidence(Lines.UNKNOWN)


def _removed(patch: str) -> bool:
    """A patch that leaves nothing of the file (`@@ -1,N +0,0 @@`)."""
    found = hunks(patch)
    return bool(found) and all(h.new_start == 0 and h.new_count == 0 for h in found)


def _landed(suggestion: StoredSuggestion, patch: str | None) -> bool:
    block = replacement_lines(suggestion.replacement or "")
    if not block or not patch:
        return False
    width = len(block)
    return any(
        run[i : i + width] == block
        for run in added_runs(patch)
        for i in range(len(run) - width + 1)
    )


def lines_since(
    suggestion: StoredSuggestion,
    *,
    head_sha: str | None,
    base: str | None,
    changes: ChangesSince | None,
) -> Lines:
    """What became of the suggestion's lines between its head and `head_sha`, from the one
    comparison `base`...`head_sha` (`changes`, None when not read or GitHub answered Gone).

    Precision first: a comparison from an older head than the suggestion's that touches the
    lines cannot tell before from after the suggestion, so it tells nothing (UNKNOWN).
    """
    if head_sha is None:
        return Lines.UNKNOWN
    if suggestion.head_sha == head_sha:
        return Lines.UNCHANGED
    if changes is None or base is None:
        return Lines.UNKNOWN
    if suggestion.path in changes.gone:
        return Lines.GONE if base == suggestion.head_sha else Lines.UNKNOWN
    patch = changes.patches.get(suggestion.path)
    if patch and _removed(patch):
        return Lines.GONE if base == suggestion.head_sha else Lines.UNKNOWN
    if not touches(patch, suggestion.line):
        return Lines.UNCHANGED
    return Lines.CHANGED if base == suggestion.head_sha else Lines.UNKNOWN


def evidence_of(
    suggestion: StoredSuggestion,
    *,
    head_sha: str | None,
    base: str | None,
    changes: ChangesSince | None,
    closed: bool,
    resolved_by: str | None = None,
) -> Evidence:
    """The suggestion's evidence at this write-back; `resolved_by` only when a maintainer
    resolved its thread."""
    lines = lines_since(suggestion, head_sha=head_sha, base=base, changes=changes)
    landed = changes is not None and _landed(suggestion, changes.patches.get(suggestion.path))
    commits = changes.commits if changes is not None else ()
    return Evidence(
        lines=lines,
        landed=landed and suggestion.head_sha != head_sha,
        closed=closed,
        commit=commits[-1] if commits and (landed or lines is Lines.CHANGED) else None,
        commits=commits,
        resolved_by=resolved_by,
    )
