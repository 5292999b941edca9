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
SLOT = np.int32
Group = tuple[str, ...]


class Postings:
    """Slot lists per association, by posting number: one flat array (``_base``, cut by
    ``_bounds``) as built, and a replacement array for every list changed since.

    Arrays are replaced, never changed in place, so an array handed to a query stays valid. A
    keyword group is filed under its two rarest terms: a query completes a group only if it
    holds both, and rare pairs keep the groups to verify few.
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
        self._pairs: dict[str, dict[str, list[Group]]] = {}
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
        count = self._term_count
        if len(group) == 2:
            a, b = group
            first, second = (a, b) if (count[a], a) <= (count[b], b) else (b, a)
        else:
            first, second = sorted(group, key=lambda t: (count[t], t))[:2]
        self._pairs.setdefault(first, {}).setdefault(second, []).append(group)

    def _unfile(self, group: Group) -> None:
        """Take ``group`` out of the pair it was filed under (any two of its terms)."""
        for first, second in permutations(group, 2):
            seconds = self._pairs.get(first)
            filed = None if seconds is None else seconds.get(second)
            if filed is not None and group in filed:
                filed.remove(group)
                if not filed:
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
        return np.zeros(0, dtype=SLOT)

    def found(self, table: dict[str, int], names: Iterable[str]) -> list[Slots]:
        """The slot lists of the ``names`` that ``table`` holds."""
        return [self.slots(n) for n in map(table.get, names) if n is not None]

    def add(self, slot: int, normal: Normal) -> None:
        for table, names in (
            (self.files, normal.files),
            (self.folders, normal.folders),
            (self.names, normal.identifiers),
        ):
            for (number,) in map(partial(self._number, table), names):
                self._changed[number] = np.append(self.slots(number), SLOT(slot))
        for group in normal.groups:
            if group not in self.groups:
                for term in group:
                    self._term_count[term] = self._term_count.get(term, 0) + 1
                self._file(group)
            (number,) = self._group_number(group)
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
            if self._drop(self.groups[group], slot):
                del self.groups[group]
                self._unfile(group)

    def _drop(self, number: int, slot: int) -> bool:
        """Take ``slot`` out of a list; True when the list is left empty (and is forgotten)."""
        held = self.slots(number)
        kept = held[held != slot]
        if len(kept):
            self._changed[number] = kept
            return False
        self._changed.pop(number, None)
        return True

    def matched_groups(self, terms: frozenset[str]) -> list[Slots]:
        """The slots of each group whose every term is in ``terms``, found through its pair."""
        pairs = self._pairs
        groups = self.groups
        slots = self.slots
        matched: list[Slots] = []
        for first in terms & pairs.keys():
            seconds = pairs[first]
            for second in seconds.keys() & terms:
                for group in seconds[second]:
                    if len(group) == 2 or terms.issuperset(group):
                        matched.append(slots(groups[group]))
        return matched


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
