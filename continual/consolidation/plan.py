"""Consolidation as a pure function: a repository's lessons in, a merge plan out."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from continual.consolidation.similarity import ParaphraseCandidate, same_advice
from continual.packing import same_text


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


def _twins(lessons: Sequence[ParaphraseCandidate]) -> dict[str, tuple[ParaphraseCandidate, ...]]:
    """Exact duplicates: lessons of one repository with the same text (``same_text``), in any
    lens; each group's first lesson (in the order given) against the others."""
    groups: dict[tuple[int, str], list[ParaphraseCandidate]] = {}
    for lesson in lessons:
        if lesson.text.strip():
            groups.setdefault((lesson.repository_id, same_text(lesson.text)), []).append(lesson)
    return {group[0].id: tuple(group[1:]) for group in groups.values() if len(group) > 1}


def _paraphrases(lessons: Iterable[ParaphraseCandidate]) -> list[list[ParaphraseCandidate]]:
    groups: list[list[ParaphraseCandidate]] = []
    by_anchor: dict[tuple[int, str, str], list[int]] = {}
    for lesson in lessons:
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
    return groups


def plan_merges(lessons: Iterable[ParaphraseCandidate]) -> MergePlan:
    """Group exact duplicates and paraphrases, and plan their merge.

    Lessons are taken in `preference` order. Lessons of one repository with the same text are
    one lesson whatever their lens (the first stays). Then each remaining lesson joins the first
    group whose canonical lesson it paraphrases (`same_advice`), among the groups sharing one of
    its anchors, or starts a group. Comparing with the canonical lesson only keeps a chain of near
    paraphrases from merging two lessons that are not alike; a paraphrase never joins a group of
    another repository or lens.
    """
    ordered = sorted(lessons, key=preference)
    twins = _twins(ordered)
    gone = {twin.id for group in twins.values() for twin in group}
    merges: list[ParaphraseGroup] = []
    for group in _paraphrases(lesson for lesson in ordered if lesson.id not in gone):
        replaced = [*twins.get(group[0].id, ())]
        for lesson in group[1:]:
            replaced += [lesson, *twins.get(lesson.id, ())]
        if replaced:
            merges.append(ParaphraseGroup(group[0], tuple(replaced)))
    return MergePlan(tuple(merges))
