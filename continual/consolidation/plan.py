"""Consolidation as a pure function: a repository's lessons in, a merge plan out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from continual.consolidation.similarity import ParaphraseCandidate, same_advice


@dataclass(frozen=True, slots=True)
class ParaphraseGroup:
    """Paraphrases of one piece of advice: the canonical lesson and those it replaces."""

    canonical: ParaphraseCandidate
    replaced: tuple[ParaphraseCandidate, ...]


@dataclass(frozen=True, slots=True)
class MergePlan:
    """Every merge of one run, in canonical order; empty when nothing overlaps."""

    merges: tuple[ParaphraseGroup, ...] = ()

    @property
    def replaced(self) -> int:
        return sum(len(merge.replaced) for merge in self.merges)

    def __bool__(self) -> bool:
        return bool(self.merges)


def preference(lesson: ParaphraseCandidate) -> tuple[bool, int, int, str]:
    """Which lesson of a group stays: an admitted one, then the best backed, then the oldest."""
    return (not lesson.admitted, -lesson.accepted, lesson.created_ms, lesson.id)


def plan_merges(lessons: Iterable[ParaphraseCandidate]) -> MergePlan:
    """Group paraphrases (`same_advice` with the group's canonical lesson) and plan their merge.

    Lessons are taken in `preference` order; each joins the first group whose canonical lesson
    it paraphrases, among the groups sharing one of its anchors, or starts a group. Comparing
    with the canonical lesson only keeps a chain of near paraphrases from merging two lessons that
    are not alike; a lesson never joins a group of another repository or lens.
    """
    groups: list[list[ParaphraseCandidate]] = []
    by_anchor: dict[tuple[int, str, str], list[int]] = {}
    for lesson in sorted(lessons, key=preference):
        candidates = sorted(
            {
                index
                for anchor in lesson.anchors
                for index in by_anchor.get((lesson.repository_id, lesson.lens, anchor), ())
            }
        )
        home = next((i for i in candidates if same_advice(groups[i][0], lesson)), None)
        if home is not None:
            groups[home].append(lesson)
            continue
        groups.append([lesson])
        for anchor in lesson.anchors:
            by_anchor.setdefault((lesson.repository_id, lesson.lens, anchor), []).append(
                len(groups) - 1
            )
    return MergePlan(
        tuple(ParaphraseGroup(group[0], tuple(group[1:])) for group in groups if len(group) > 1)
    )
