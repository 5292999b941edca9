"""One maintenance run's plan: which lessons a push touched, by their basis, and every verdict."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from sqlalchemy import Connection

from continual.maintenance.records import live_lessons
from continual.maintenance.rules import (
    Action,
    AnchoredEntry,
    Evidence,
    Ruling,
    contents_needed,
    decide,
    touched,
)

UNKNOWN_BASIS = "its provenance names no commit (recorded before provenance was)"


@dataclass(frozen=True, slots=True)
class Plan:
    """``verdicts``: one per lesson looked at (touched, or of an unproven basis); ``proven``: the
    lessons whose anchors are proven to hold at a newer head, by entry id."""

    verdicts: tuple[Ruling, ...]
    proven: Mapping[str, str]

    def unsettled(self) -> list[Ruling]:
        return [v for v in self.verdicts if not v.settled]


def needed_files(lessons: Iterable[AnchoredEntry], evidence: Mapping[str, Evidence]) -> set[str]:
    """The files at the head that the touched lessons' verdicts depend on."""
    needed: set[str] = set()
    for lesson in lessons:
        found = evidence.get(lesson.basis) if lesson.basis is not None else None
        if found is not None and found.proven and touched(lesson, found):
            needed |= contents_needed(lesson, found)
    return needed


def make_plan(
    lessons: Iterable[AnchoredEntry], evidence: Mapping[str, Evidence], *, legacy: Evidence | None
) -> Plan:
    """Decide every lesson the evidence covers. ``legacy`` is the push's own comparison, for the
    lessons without a basis: touched, they defer; nothing proves their anchors."""
    verdicts: list[Ruling] = []
    proven: dict[str, str] = {}
    for lesson in lessons:
        if lesson.basis is None:
            if legacy is not None and touched(lesson, legacy):
                verdicts.append(
                    Ruling(lesson.entry_id, lesson.revision, Action.DEFER, UNKNOWN_BASIS, None)
                )
            continue
        found = evidence.get(lesson.basis)
        if found is None:
            continue
        if not found.proven:
            verdicts.append(decide(lesson, found))
            continue
        verdict = decide(lesson, found) if touched(lesson, found) else None
        if verdict is not None:
            verdicts.append(verdict)
        if (verdict is None or verdict.action is Action.KEEP) and lesson.basis != found.head:
            proven[lesson.entry_id] = found.head
    return Plan(tuple(verdicts), proven)


@dataclass
class Decider:
    """Re-reads a repository's lessons and plans them again from the same evidence: what a
    publication runs in its transaction, so a retry after a conflict decides on fresh revisions.

    ``answers`` are a seat's verdicts, bound to the revision it was shown: one whose lesson moved
    on since is deferred, never applied to a revision the seat did not see.
    """

    repository_id: int
    evidence: Mapping[str, Evidence]
    legacy: Evidence | None = None
    answers: Sequence[Ruling] = ()
    seat_failure: str | None = None
    last: Plan | None = field(default=None, init=False)

    def draft(self, lessons: Iterable[AnchoredEntry]) -> Plan:
        """The rules' plan before any seat answered (its unsettled verdicts are the seat's)."""
        return make_plan(lessons, self.evidence, legacy=self.legacy)

    def plan(self, conn: Connection) -> Plan:
        lessons = live_lessons(conn, self.repository_id)
        self.last = self.settle(make_plan(lessons, self.evidence, legacy=self.legacy))
        return self.last

    def settle(self, plan: Plan) -> Plan:
        """Unsettled verdicts take the seat's answer; without one they stand as the rules say,
        and with a failed seat run they defer."""
        answers = {v.entry_id: v for v in self.answers}
        settled: list[Ruling] = []
        for verdict in plan.verdicts:
            answer = answers.get(verdict.entry_id)
            if verdict.settled:
                settled.append(verdict)
            elif answer is not None and answer.revision == verdict.revision:
                settled.append(answer)
            elif answer is not None or self.seat_failure is not None:
                reason = self.seat_failure or "it changed after the maintenance seat saw it"
                settled.append(replace(verdict, action=Action.DEFER, reason=reason, settled=True))
            else:
                settled.append(replace(verdict, settled=True))
        proven = dict(plan.proven)
        for verdict in settled:
            if verdict.action is not Action.KEEP:
                proven.pop(verdict.entry_id, None)
            elif verdict.commit is not None:  # kept on proof (by the rules or the seat)
                proven[verdict.entry_id] = verdict.commit
        return Plan(tuple(settled), proven)

    def __call__(self, conn: Connection) -> tuple[list[Ruling], dict[str, str]]:
        plan = self.plan(conn)
        return list(plan.verdicts), dict(plan.proven)
