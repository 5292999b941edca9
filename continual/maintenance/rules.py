"""The pure rules of maintenance: what a push proved about a lesson's anchors, and the ruling."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from continual.admission import admit
from continual.maintenance.anchors import Anchors, contains_name, rewrite
from continual.patches import removed_texts


class Action(StrEnum):
    """What maintenance does with one lesson (docs/lessons.md, "Maintenance on push")."""

    KEEP = "keep"
    ADAPT = "adapt"
    RETIRE = "retire"
    DEFER = "defer"


class ChangeStatus(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    MODIFIED = "modified"
    RENAMED = "renamed"


@dataclass(frozen=True, slots=True)
class AnchoredEntry:
    """A live entry as maintenance reads it, with the revision its ruling is bound to."""

    entry_id: str
    revision: int
    key: str
    lens: str
    title: str
    text: str
    anchors: Anchors | None
    basis: str | None  # the newest commit its anchors are known to hold at
    legacy_files: tuple[str, ...] = ()  # without recorded anchors: the files recall links it to


@dataclass(frozen=True, slots=True)
class PathChange:
    """One file a push changed; ``patch`` None when GitHub gave none (too large, or from trees)."""

    status: ChangeStatus
    path: str  # at the head
    previous: str | None = None  # at the basis, for a rename
    patch: str | None = None
    changes: int = -1  # lines changed; -1 unknown

    @property
    def same_content(self) -> bool:
        return self.status is ChangeStatus.RENAMED and self.changes == 0


@dataclass(frozen=True, slots=True)
class Evidence:
    """What GitHub proved between a basis and the head: the changes by their path at the basis,
    and the files read at the head (None: it could not be read). Unproven: ``reason`` says why."""

    head: str
    proven: bool
    reason: str = ""
    changes: Mapping[str, PathChange] | None = None
    contents: Mapping[str, str | None] | None = None

    def change(self, path: str) -> PathChange | None:
        return (self.changes or {}).get(path)


@dataclass(frozen=True, slots=True)
class Ruling:
    """Maintenance's ruling on one lesson at one revision (keep, adapt, retire or defer).
    ``settled`` False: the rule's answer where a maintenance seat, when configured, is asked
    instead."""

    entry_id: str
    revision: int
    action: Action
    reason: str
    commit: str | None
    title: str | None = None
    text: str | None = None
    anchors: Anchors | None = None
    settled: bool = True
    actor: str = "maintenance"


def touched(lesson: AnchoredEntry, evidence: Evidence) -> bool:
    """True when the push changed one of the lesson's anchored files (or it has none recorded)."""
    if lesson.anchors is None:
        return any(evidence.change(p) is not None for p in lesson.legacy_files)
    return any(evidence.change(p) is not None for p in lesson.anchors.paths)


def _name_may_be_gone(name: str, change: PathChange) -> bool:
    """Whether a name the file held at the basis may be gone at the head: only if the diff
    removed a line naming it, or there is no diff to tell."""
    if change.same_content:
        return False
    if change.patch is None:
        return True
    return any(contains_name(line, name) for line in removed_texts(change.patch))


def contents_needed(lesson: AnchoredEntry, evidence: Evidence) -> set[str]:
    """The files at the head that must be read to decide the lesson (its names' files whose
    diff does not show the names untouched)."""
    needed: set[str] = set()
    if lesson.anchors is None:
        return needed
    for name, home in lesson.anchors.identifiers:
        change = evidence.change(home)
        if change is None or change.status is ChangeStatus.REMOVED:
            continue
        if _name_may_be_gone(name, change):
            needed.add(change.path)
    return needed


def _defer(lesson: AnchoredEntry, reason: str, commit: str | None) -> Ruling:
    return Ruling(lesson.entry_id, lesson.revision, Action.DEFER, reason, commit)


def decide(lesson: AnchoredEntry, evidence: Evidence) -> Ruling:
    """Keep, adapt, retire or defer one lesson the push touched (docs/lessons.md).

    Nothing destructive happens without proof: an unproven ancestry, an anchor-less lesson or a
    file that could not be read defers.
    """
    head = evidence.head
    if not evidence.proven:
        return _defer(lesson, evidence.reason, head)
    anchors = lesson.anchors
    if anchors is None:
        return _defer(lesson, "its anchors were never recorded (legacy provenance)", head)
    renames: dict[str, str] = {}
    for path in anchors.paths:
        change = evidence.change(path)
        if change is None:
            continue
        if change.status is ChangeStatus.REMOVED:
            return Ruling(
                lesson.entry_id, lesson.revision, Action.RETIRE, f"{path} was deleted", head
            )
        if change.status is ChangeStatus.RENAMED:
            renames[path] = change.path
    contents = evidence.contents or {}
    gone: list[str] = []
    shaken = False
    for name, home in anchors.identifiers:
        change = evidence.change(home)
        if change is None or not _name_may_be_gone(name, change):
            continue
        text = contents.get(change.path)
        if text is None:
            return _defer(lesson, f"{change.path} could not be read at the head", head)
        if contains_name(text, name):
            shaken = True  # still there, but a line naming it changed: the advice may not fit
        else:
            gone.append(f"`{name}` is no longer in {change.path}")
    if gone:
        reason = "; ".join(gone)
        return Ruling(lesson.entry_id, lesson.revision, Action.RETIRE, reason, head, settled=False)
    if renames:
        moved = ", ".join(f"{old} was renamed to {new}" for old, new in renames.items())
        verdict = Ruling(
            lesson.entry_id,
            lesson.revision,
            Action.ADAPT,
            moved,
            head,
            title=rewrite(lesson.title, renames),
            text=rewrite(lesson.text, renames),
            anchors=anchors.renamed(renames),
            settled=not shaken,
        )
        return admitted(verdict)
    return Ruling(
        lesson.entry_id,
        lesson.revision,
        Action.KEEP,
        "its anchors still hold",
        head,
        settled=not shaken,
    )


def admitted(verdict: Ruling) -> Ruling:
    """An adaptation whose text passes admission as new text would; otherwise a deferral."""
    if verdict.action is not Action.ADAPT:
        return verdict
    anchors = verdict.anchors
    assert verdict.title is not None and verdict.text is not None and anchors is not None
    found = admit(
        title=verdict.title,
        text=verdict.text,
        context_paths=anchors.paths,
        context_identifiers=anchors.names(),
    )
    if found.admitted:
        return verdict
    return replace(
        verdict,
        action=Action.DEFER,
        reason=f"the adapted text fails admission ({found.stage})",
        title=None,
        text=None,
        anchors=None,
        settled=True,
    )
