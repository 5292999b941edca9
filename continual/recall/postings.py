"""The inverted lists of a recall index: which slots each file, folder, name and keyword group hold."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from itertools import permutations
from typing import Any

import numpy as np
import numpy.typing as npt

from continual.recall.cards import FILE, FOLDER, GROUP, NAME, Normal

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
    holds both, and rare pairs keep the groups to verify few.

    The other way round, each slot's posting numbers are kept (one flat array as built, cut by
    ``_slot_bounds``, and a replacement per slot changed since), and each number's name and
    kind: a slot's links in normal form are read from here (``links``), so the cards of an
    index need not keep theirs.
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
        # Groups filed under their two rarest terms: two-term groups by posting number (complete
        # as soon as the pair is), longer groups whole (the query must hold their other terms).
        self._pairs: dict[str, dict[str, list[int]]] = {}
        self._longer: dict[str, dict[str, list[Group]]] = {}
        self._term_count: dict[str, int] = {}
        self._tables: tuple[dict[Any, int], ...] = (
            self.files,
            self.folders,
            self.names,
            self.groups,
        )
        self._names: list[Any] = []  # by posting number: the name (None once forgotten)
        self._kinds = bytearray()  # by posting number: FILE, FOLDER, NAME or GROUP
        self._slot_numbers: npt.NDArray[np.int32] = np.zeros(0, dtype=np.int32)
        self._slot_bounds: npt.NDArray[np.int64] = np.zeros(1, dtype=np.int64)
        self._slot_changed: dict[int, tuple[int, ...]] = {}

    # -- building ------------------------------------------------------------------------------

    def _number(self, kind: int, name: Any) -> tuple[int, ...]:
        """The posting number of ``name`` (a new one if needed); none for an empty name."""
        if not name:
            return ()
        table = self._tables[kind]
        number = table.get(name)
        if number is None:
            number = table[name] = self._count
            self._count += 1
            self._names.append(name)
            self._kinds.append(kind)
        return (number,)

    def _group_number(self, group: Group) -> tuple[int, ...]:
        return self._number(GROUP, group) if len(group) >= 2 else ()

    def _file(self, group: Group) -> None:
        """File a numbered ``group`` under its two rarest terms."""
        count = self._term_count
        if len(group) == 2:
            a, b = group
            first, second = (a, b) if (count[a], a) <= (count[b], b) else (b, a)
        else:
            first, second = sorted(group, key=lambda t: (count[t], t))[:2]
        if len(group) == 2:
            self._pairs.setdefault(first, {}).setdefault(second, []).append(self.groups[group])
        else:
            self._longer.setdefault(first, {}).setdefault(second, []).append(group)

    def _unfile(self, group: Group, number: int) -> None:
        """Take ``group`` (posting ``number``) out of the pair it was filed under (any two of
        its terms: the counts that chose them may have moved since)."""
        table: dict[str, dict[str, list[Any]]] = self._pairs if len(group) == 2 else self._longer
        item = number if len(group) == 2 else group
        for first, second in permutations(group, 2):
            seconds = table.get(first)
            filed = None if seconds is None else seconds.get(second)
            if filed is None or item not in filed:
                continue
            filed.remove(item)
            if not filed:
                del seconds[second]  # type: ignore[union-attr]
                if not seconds:
                    del table[first]
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

    def numbers_of(self, slot: int) -> Sequence[int]:
        """The posting numbers ``slot`` is filed under."""
        changed = self._slot_changed.get(slot)
        if changed is not None:
            return changed
        if slot + 1 < len(self._slot_bounds):
            start, end = self._slot_bounds[slot], self._slot_bounds[slot + 1]
            return self._slot_numbers[start:end].tolist()  # type: ignore[no-any-return]
        return ()

    def links(self, slot: int) -> Normal:
        """The links of the card in ``slot``, in normal form, from its posting numbers."""
        found: tuple[list[Any], ...] = ([], [], [], [])
        for number in dict.fromkeys(self.numbers_of(slot)):
            found[self._kinds[number]].append(self._names[number])
        files, folders, names, groups = found
        return Normal(tuple(files), tuple(folders), tuple(names), tuple(groups))

    def add(self, slot: int, normal: Normal) -> None:
        numbers: list[int] = []
        for kind, names in (
            (FILE, normal.files),
            (FOLDER, normal.folders),
            (NAME, normal.identifiers),
        ):
            for (number,) in map(partial(self._number, kind), names):
                self._changed[number] = np.append(self.slots(number), SLOT(slot))
                numbers.append(number)
        for group in normal.groups:
            new = group not in self.groups
            (number,) = self._group_number(group)
            if new:
                for term in group:
                    self._term_count[term] = self._term_count.get(term, 0) + 1
                self._file(group)
            self._changed[number] = np.append(self.slots(number), SLOT(slot))
            numbers.append(number)
        self._slot_changed[slot] = tuple(numbers)

    def remove(self, slot: int) -> None:
        """Take ``slot`` out of every list it is filed under; a list left empty is forgotten."""
        for number in dict.fromkeys(self.numbers_of(slot)):
            if not self._drop(number, slot):
                continue
            kind, name = self._kinds[number], self._names[number]
            del self._tables[kind][name]
            self._names[number] = None
            if kind == GROUP:
                self._unfile(name, number)
        self._slot_changed[slot] = ()

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
        matched: list[int] = []
        extend = matched.extend
        pairs = self._pairs
        for first in terms & pairs.keys():
            seconds = pairs[first]
            for second in seconds.keys() & terms:
                extend(seconds[second])
        longer = self._longer
        groups = self.groups
        for first in terms & longer.keys():
            filed = longer[first]
            for second in filed.keys() & terms:
                extend(groups[g] for g in filed[second] if terms.issuperset(g))
        return np.array(matched, dtype=np.int64) if matched else NO_NUMBERS
