"""The inverted lists of a recall index: which slots each file, folder, name and keyword group hold."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from itertools import chain, permutations
from typing import Any

import numpy as np
import numpy.typing as npt

from continual.associations import normalise_path, parent_folder
from continual.recall.cards import Card, Normal, group_key

Slots = npt.NDArray[np.int32]
Numbers = npt.NDArray[np.int64]
SLOT = np.int32
Group = tuple[str, ...]
NO_SLOTS: Slots = np.zeros(0, dtype=SLOT)
NO_NUMBERS: Numbers = np.zeros(0, dtype=np.int64)


class Postings:
    """Slot lists per association, by posting number: one flat array (``_base``, cut by
    ``_bounds``) as built, and a replacement array for every list changed since.

    Arrays are replaced, never changed in place, so an array handed to a query stays valid. A
    keyword group is filed under its two rarest terms: a query completes a group only if it
    holds both, and rare pairs keep the groups to verify few. A pair keeps the numbers of its
    two-term groups (complete as soon as the pair is), and its longer groups to verify.
    """

    def __init__(self) -> None:
        self.files: dict[str, int] = {}
        self.folders: dict[str, int] = {}
        self.names: dict[str, int] = {}
        self.groups: dict[Group, int] = {}
        self._base: Slots = np.zeros(0, dtype=SLOT)
        self._bounds: npt.NDArray[np.int64] = np.zeros(1, dtype=np.int64)
        self._changed: dict[int, Slots] = {}
        self._count = 0
        self._pairs: dict[str, dict[str, Filed]] = {}
        self._term_count: dict[str, int] = {}

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def build(cls, cards: Sequence[Card]) -> Postings:
        """Postings of ``cards``, the card in slot n being ``cards[n]``. Equal raw values are
        normalised once; a slot may repeat in a list, which scoring and removal allow."""
        built = cls()
        numbers: list[int] = []
        counts: list[int] = []
        files = _Numbering(built._file_numbers).__getitem__
        folders = _Numbering(lambda raw: built._number(built.folders, normalise_path(raw)))
        names = _Numbering(lambda raw: built._number(built.names, raw.strip()))
        groups = _Numbering(lambda raw: built._group_number(_normal_group(raw)))
        extend, flat = numbers.extend, chain.from_iterable
        for card in cards:
            before = len(numbers)
            extend(flat(map(files, card.files)))
            extend(flat(map(folders.__getitem__, card.folders)))
            extend(flat(map(names.__getitem__, card.identifiers)))
            extend(flat(map(groups.__getitem__, card.keyword_groups)))
            counts.append(len(numbers) - before)
        by_number = np.array(numbers, dtype=np.int64)
        order = np.argsort(by_number, kind="stable")
        slots = np.repeat(np.arange(len(cards), dtype=SLOT), counts)
        built._base = slots[order]
        built._bounds = np.searchsorted(
            by_number[order], np.arange(built._count + 1, dtype=np.int64)
        )
        built._term_count = dict(Counter(chain.from_iterable(built.groups)))
        for group in built.groups:
            built._file(group)
        return built

    def _file_numbers(self, raw: str) -> tuple[int, ...]:
        path = normalise_path(raw)
        return self._number(self.files, path) + self._number(self.folders, parent_folder(path))

    def _number(self, table: dict[Any, int], name: Any) -> tuple[int, ...]:
        """The posting number of ``name`` (a new one if needed); none for an empty name."""
        if not name:
            return ()
        number = table.get(name)
        if number is None:
            number = table[name] = self._count
            self._count += 1
        return (number,)

    def _group_number(self, group: Group) -> tuple[int, ...]:
        return self._number(self.groups, group) if len(group) >= 2 else ()

    def _file(self, group: Group) -> None:
        """File a numbered ``group`` under its two rarest terms."""
        count = self._term_count
        if len(group) == 2:
            a, b = group
            first, second = (a, b) if (count[a], a) <= (count[b], b) else (b, a)
        else:
            first, second = sorted(group, key=lambda t: (count[t], t))[:2]
        seconds = self._pairs.setdefault(first, {})
        filed = seconds.get(second)
        if filed is None:
            filed = seconds[second] = Filed()
        if len(group) == 2:
            filed.two.append(self.groups[group])
        else:
            filed.longer.append(group)

    def _unfile(self, group: Group, number: int) -> None:
        """Take ``group`` (posting ``number``) out of the pair it was filed under (any two of
        its terms: the counts that chose them may have moved since)."""
        for first, second in permutations(group, 2):
            seconds = self._pairs.get(first)
            filed = None if seconds is None else seconds.get(second)
            if filed is None or not filed.take(group, number):
                continue
            if not filed.two and not filed.longer:
                del seconds[second]  # type: ignore[union-attr]
                if not seconds:
                    del self._pairs[first]
            break
        for term in group:
            self._term_count[term] -= 1
            if not self._term_count[term]:
                del self._term_count[term]

    # -- reading and changing ------------------------------------------------------------------

    def slots(self, number: int) -> Slots:
        changed = self._changed.get(number)
        if changed is not None:
            return changed
        if number + 1 < len(self._bounds):
            return self._base[self._bounds[number] : self._bounds[number + 1]]
        return NO_SLOTS

    def found(self, table: dict[str, int], names: Iterable[str]) -> Numbers:
        """The posting numbers of the ``names`` that ``table`` holds."""
        return np.fromiter((n for n in map(table.get, names) if n is not None), dtype=np.int64)

    def gather(self, numbers: Numbers) -> Slots:
        """The slots of the lists ``numbers``, concatenated (a slot may repeat): the lists as
        built are cut from the flat array with one index computation, not one slice each."""
        if not len(numbers):
            return NO_SLOTS
        parts: list[Slots] = []
        changed = self._changed
        if changed:
            moved = np.fromiter((n in changed for n in numbers.tolist()), np.bool_, len(numbers))
            if moved.any():
                parts.extend(changed[n] for n in numbers[moved].tolist())
                numbers = numbers[~moved]
        numbers = numbers[numbers + 1 < len(self._bounds)]  # numbered after the build, empty
        if len(numbers) == 1:
            start, end = self._bounds[numbers[0]], self._bounds[numbers[0] + 1]
            parts.append(self._base[start:end])
        elif len(numbers):
            starts, ends = self._bounds[numbers], self._bounds[numbers + 1]
            lengths = ends - starts
            before = np.cumsum(lengths) - lengths  # where each list starts in the result
            at = np.arange(int(before[-1] + lengths[-1])) + np.repeat(starts - before, lengths)
            parts.append(self._base[at])
        if not parts:
            return NO_SLOTS
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def add(self, slot: int, normal: Normal) -> None:
        for table, names in (
            (self.files, normal.files),
            (self.folders, normal.folders),
            (self.names, normal.identifiers),
        ):
            for (number,) in map(partial(self._number, table), names):
                self._changed[number] = np.append(self.slots(number), SLOT(slot))
        for group in normal.groups:
            new = group not in self.groups
            (number,) = self._group_number(group)
            if new:
                for term in group:
                    self._term_count[term] = self._term_count.get(term, 0) + 1
                self._file(group)
            self._changed[number] = np.append(self.slots(number), SLOT(slot))

    def remove(self, slot: int, normal: Normal) -> None:
        for table, names in (
            (self.files, normal.files),
            (self.folders, normal.folders),
            (self.names, normal.identifiers),
        ):
            for name in names:
                if self._drop(table[name], slot):
                    del table[name]
        for group in normal.groups:
            number = self.groups[group]
            if self._drop(number, slot):
                del self.groups[group]
                self._unfile(group, number)

    def _drop(self, number: int, slot: int) -> bool:
        """Take ``slot`` out of a list; True when the list is left empty (and is forgotten)."""
        held = self.slots(number)
        kept = held[held != slot]
        if len(kept):
            self._changed[number] = kept
            return False
        self._changed.pop(number, None)
        return True

    def matched_groups(self, terms: frozenset[str]) -> Numbers:
        """The posting numbers of the groups whose every term is in ``terms``, found through
        their pairs."""
        pairs = self._pairs
        groups = self.groups
        matched: list[int] = []
        for first in terms & pairs.keys():
            seconds = pairs[first]
            for second in seconds.keys() & terms:
                filed = seconds[second]
                matched.extend(filed.two)
                if filed.longer:
                    matched.extend(groups[g] for g in filed.longer if terms.issuperset(g))
        return np.array(matched, dtype=np.int64) if matched else NO_NUMBERS


class Filed:
    """The groups filed under one pair of terms: two-term groups by posting number, longer
    groups whole (a query must hold their other terms too)."""

    __slots__ = ("longer", "two")

    def __init__(self) -> None:
        self.two: list[int] = []
        self.longer: list[Group] = []

    def take(self, group: Group, number: int) -> bool:
        """Remove ``group``; False when it is not filed here."""
        held: list[Any] = self.two if len(group) == 2 else self.longer
        item = number if len(group) == 2 else group
        if item not in held:
            return False
        held.remove(item)
        return True


class _Numbering(dict[Any, tuple[int, ...]]):
    """Posting numbers per raw value, computed on first sight."""

    def __init__(self, numbering: Callable[[Any], tuple[int, ...]]) -> None:
        super().__init__()
        self._numbering = numbering

    def __missing__(self, raw: Any) -> tuple[int, ...]:
        found = self[raw] = self._numbering(raw)
        return found


def _normal_group(raw: Group) -> Group:
    """The group in normal form, as the very tuple given when it already is (less memory)."""
    normal = group_key(raw)
    return raw if normal == raw else normal
