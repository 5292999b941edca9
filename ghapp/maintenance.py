"""Maintenance at the door: what GitHub proves between each lesson's basis and a head, then the core.

GitHub reads are compare, git trees and contents only: one comparison per distinct basis (most
lessons share the previous head), two trees when a comparison lists too many files to be complete,
and one contents read per file whose diff does not settle a lesson's names.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy import Engine, select

from continual.maintenance import (
    Action,
    AnchoredEntry,
    ChangeStatus,
    Evidence,
    PathChange,
    Published,
    Ruling,
    live_lessons,
    publish,
)
from continual.maintenance.plan import Decider, Plan, needed_files
from continual.tables import Repository
from ghapp.db import reading
from ghapp.github.errors import Gone, Rejected
from ghapp.github.installation import InstallationClient
from ghapp.github.values import DiffEntry, GitTree
from review.maintaining import Case, ask_seat
from review.seats import TextSeat

# GitHub's compare lists at most this many files; a listing this long may be incomplete.
COMPARE_FILE_LIMIT = 300
# Files read in one run at most; the lessons of files beyond it defer to the next run.
MAX_CONTENT_READS = 400
CONCURRENT_READS = 8
# Distinct bases compared in one run at most (most lessons share one: the previous head).
MAX_BASES = 50
FORCED = "a force-push: the history the lessons were proven on may be gone"

log = logging.getLogger(__name__)

_STATUSES = {
    "added": ChangeStatus.ADDED,
    "copied": ChangeStatus.ADDED,
    "removed": ChangeStatus.REMOVED,
    "renamed": ChangeStatus.RENAMED,
}


@dataclass
class Reads:
    """The GitHub requests of one run, by kind."""

    compare: int = 0
    trees: int = 0
    contents: int = 0

    @property
    def total(self) -> int:
        return self.compare + self.trees + self.contents


@dataclass(frozen=True)
class MaintenanceRun:
    """One run over a repository at ``head``: every verdict, what it published (None: a dry run
    or nothing to publish) and the GitHub reads it took."""

    head: str
    verdicts: tuple[Ruling, ...]
    lessons: Mapping[str, AnchoredEntry]
    published: Published | None
    reads: Reads = field(default_factory=Reads)

    def count(self, action: Action) -> int:
        return sum(v.action is action for v in self.verdicts)


def _diff_change(entry: DiffEntry) -> tuple[str, PathChange]:
    status = _STATUSES.get(entry.status, ChangeStatus.MODIFIED)
    change = PathChange(
        status=status,
        path=entry.filename,
        previous=entry.previous_filename,
        patch=entry.patch,
        changes=entry.changes if entry.patch is not None or status is ChangeStatus.RENAMED else -1,
    )
    at_basis = entry.previous_filename if status is ChangeStatus.RENAMED else entry.filename
    return at_basis or entry.filename, change


def tree_changes(before: GitTree, after: GitTree) -> dict[str, PathChange]:
    """The changes between two complete trees, by path at ``before``; a removed blob found again
    at an added path is a rename."""
    added = {path: sha for path, sha in after.blobs.items() if path not in before.blobs}
    by_sha: dict[str, list[str]] = {}
    for path, sha in added.items():
        by_sha.setdefault(sha, []).append(path)
    changes: dict[str, PathChange] = {}
    for path, sha in before.blobs.items():
        now = after.blobs.get(path)
        if now == sha:
            continue
        if now is not None:
            changes[path] = PathChange(ChangeStatus.MODIFIED, path)
        elif by_sha.get(sha):
            new = by_sha[sha].pop(0)
            added.pop(new)
            changes[path] = PathChange(ChangeStatus.RENAMED, new, previous=path, changes=0)
        else:
            changes[path] = PathChange(ChangeStatus.REMOVED, path)
    for path in added:
        changes[path] = PathChange(ChangeStatus.ADDED, path)
    return changes


async def read_evidence(
    client: InstallationClient, repo: str, basis: str, head: str, reads: Reads
) -> Evidence:
    """What GitHub proves between ``basis`` and ``head``: proven only when the basis is an
    ancestor of the head and every changed file is known."""
    if basis == head:
        return Evidence(head, True, changes={})
    reads.compare += 1
    try:
        comparison = await client.compare(repo, basis, head)
    except (Gone, Rejected):
        return Evidence(head, False, f"commit {basis[:12]} is unknown to GitHub")
    if comparison.status == "identical":
        return Evidence(head, True, changes={})
    if comparison.status != "ahead":
        reason = f"{basis[:12]} is not an ancestor of {head[:12]} ({comparison.status})"
        return Evidence(head, False, reason)
    if len(comparison.files) < COMPARE_FILE_LIMIT:
        return Evidence(head, True, changes=dict(_diff_change(f) for f in comparison.files))
    reads.trees += 2
    try:
        before, after = await asyncio.gather(
            client.get_tree(repo, basis), client.get_tree(repo, head)
        )
    except (Gone, Rejected):
        return Evidence(head, False, f"the trees of {basis[:12]} and {head[:12]} cannot be read")
    if before.truncated or after.truncated:
        return Evidence(head, False, "too many files changed to prove which (trees truncated)")
    return Evidence(head, True, changes=tree_changes(before, after))


async def _read_files(
    client: InstallationClient, repo: str, head: str, paths: Iterable[str], reads: Reads
) -> dict[str, str | None]:
    ordered = sorted(paths)[:MAX_CONTENT_READS]
    reads.contents += len(ordered)
    gate = asyncio.Semaphore(CONCURRENT_READS)

    async def read(path: str) -> str | None:
        async with gate:
            return await client.get_text(repo, path, head)

    texts = await asyncio.gather(*(read(path) for path in ordered))
    return dict(zip(ordered, texts, strict=True))


def _with_contents(
    evidence: Mapping[str, Evidence], contents: Mapping[str, str | None]
) -> dict[str, Evidence]:
    return {
        basis: Evidence(found.head, found.proven, found.reason, found.changes, contents)
        for basis, found in evidence.items()
    }


def _cases(
    plan: Plan, lessons: Mapping[str, AnchoredEntry], contents: Mapping[str, str | None]
) -> tuple[list[Case], list[Ruling]]:
    """The unsettled verdicts as cases for the seat, and those it must abstain on (no excerpt)."""
    cases: list[Case] = []
    abstain: list[Ruling] = []
    for verdict in plan.unsettled():
        lesson = lessons[verdict.entry_id]
        anchors = verdict.anchors or lesson.anchors
        paths = anchors.paths if anchors is not None else ()
        excerpts = tuple((p, text) for p in paths if (text := contents.get(p)) is not None)
        if excerpts:
            cases.append(Case(lesson, verdict, excerpts))
        else:
            abstain.append(
                Ruling(
                    verdict.entry_id,
                    verdict.revision,
                    Action.DEFER,
                    "no current excerpt of its files: the maintenance seat abstains",
                    verdict.commit,
                )
            )
    return cases, abstain


def _read_lessons(engine: Engine, repo: str) -> tuple[int | None, list[AnchoredEntry]]:
    """The repository's live lessons; none for a repository the store does not know or that was
    removed from the installation (its lessons stay as they are)."""
    with reading(engine) as conn:
        repository_id = conn.execute(
            select(Repository.id).where(
                Repository.full_name == repo, Repository.removed_ms.is_(None)
            )
        ).scalar_one_or_none()
        if repository_id is None:
            return None, []
        return int(repository_id), live_lessons(conn, int(repository_id))


def _bases(lessons: Sequence[AnchoredEntry], before: str | None) -> list[str]:
    """The bases to prove this run, those of the most lessons first, at most MAX_BASES (the
    lessons of the rest are not looked at: a later run proves them); ``before`` when lessons
    without a basis need the push's own comparison."""
    counts = Counter(lesson.basis for lesson in lessons if lesson.basis is not None)
    wanted = [basis for basis, _ in counts.most_common(MAX_BASES)]
    if before is not None and before not in wanted and any(x.basis is None for x in lessons):
        wanted.append(before)
    return wanted


def forced_run(lessons: Sequence[AnchoredEntry], head: str) -> MaintenanceRun:
    """A force-push proves nothing: every lesson defers and nothing is read or written."""
    verdicts = tuple(Ruling(x.entry_id, x.revision, Action.DEFER, FORCED, head) for x in lessons)
    return MaintenanceRun(head, verdicts, {x.entry_id: x for x in lessons}, None)


async def maintain(
    client: InstallationClient,
    engine: Engine,
    *,
    repo: str,
    head: str,
    now: int,
    before: str | None = None,
    forced: bool = False,
    seat: TextSeat | None = None,
    dry_run: bool = False,
) -> MaintenanceRun:
    """Keep, adapt, retire or defer each lesson of ``repo`` that the code up to ``head`` touched.

    ``before`` (a push's previous head) tells which lessons recorded before provenance a push
    touched; they defer. With ``dry_run`` nothing is written.
    """
    repository_id, lessons = await asyncio.to_thread(_read_lessons, engine, repo)
    if repository_id is None or not lessons:
        return MaintenanceRun(head, (), {}, None)
    if forced:
        return forced_run(lessons, head)
    reads = Reads()
    wanted = _bases(lessons, before)
    gate = asyncio.Semaphore(CONCURRENT_READS)

    async def proof(basis: str) -> Evidence:
        async with gate:
            return await read_evidence(client, repo, basis, head, reads)

    evidence = dict(zip(wanted, await asyncio.gather(*map(proof, wanted)), strict=True))
    contents = await _read_files(client, repo, head, needed_files(lessons, evidence), reads)
    evidence = _with_contents(evidence, contents)
    legacy = evidence.get(before) if before is not None else None
    decider = Decider(repository_id, evidence, legacy)
    by_id = {lesson.entry_id: lesson for lesson in lessons}
    if seat is not None:
        first = decider.draft(lessons)
        cases, abstain = _cases(first, by_id, contents)
        answers: list[Ruling] = list(abstain)
        if cases:
            asked = await ask_seat(seat, cases, commit=head)
            decider.seat_failure = asked.failure
            answers.extend(asked.verdicts)
        decider.answers = answers
    if dry_run:

        def look() -> Plan:
            with reading(engine) as conn:
                return decider.plan(conn)

        plan = await asyncio.to_thread(look)
        return MaintenanceRun(head, plan.verdicts, by_id, None, reads)
    published = await asyncio.to_thread(publish, engine, decider, now=now)
    assert decider.last is not None
    verdicts = decider.last.verdicts
    if published.deferred:
        deferred = {v.entry_id: v for v in published.deferred}
        verdicts = tuple(deferred.get(v.entry_id, v) for v in verdicts)
    return MaintenanceRun(head, verdicts, by_id, published, reads)
