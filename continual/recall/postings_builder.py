"""Postings made a card at a time, as a build reads an account's entries: from the numbers the
store keeps for each entry's links, or by numbering the links themselves."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain, compress

import numpy as np

from continual.associations import normalise_path, parent_folder
from continual.recall.cards import FILE, FOLDER, GROUP, NAME, Card, group_key
from continual.recall.numbering import NUMBER, StoredNames
from continual.recall.postings import NO_SLOTS, SLOT, Group, Postings, Slots


def postings_of(cards: Iterable[Card]) -> Postings:
    """Postings of ``cards``, the card in slot n being the n-th."""
    builder = PostingsBuilder()
    for card in cards:
        builder.add(card)
    return builder.finish()


class PostingsBuilder:
    """Postings made card by card, in slot order (slot n is the n-th card): a build can drop
    each card's stored links before reading the next.

    Given the account's numbered names (``continual.recall.numbering``), a card comes with its
    links' numbers as stored (``add_numbered``) and nothing is looked up; a card without them,
    or whose numbers do not fit the names, has its links numbered here (``add``), after the
    stored numbers.
    """

    def __init__(self, stored: StoredNames | None = None) -> None:
        self._built = Postings()
        self._chunks: list[Slots] = []  # each card's numbers, in card order, numbered ones
        self._numbers: list[int] = []  # and those numbered here since the last chunk
        self._counts: list[int] = []
        self._files: dict[str, tuple[int, ...]] = {}  # a stored path: its file and folder
        self._known = np.zeros(0, dtype=np.bool_)  # by stored number: whether it names
        if stored is not None and len(stored):
            self._take(stored)

    def _take(self, stored: StoredNames) -> None:
        """Start from the stored names, under their numbers (a row of no known kind, or under
        a negative number, is left out: a number naming it does not fit)."""
        built = self._built
        usable = (stored.kinds <= GROUP) & (stored.numbers >= 0)
        numbers, kinds = stored.numbers[usable], stored.kinds[usable]
        names = list(compress(stored.names, usable))
        if not len(numbers):
            return
        built._count = int(numbers.max()) + 1
        built._names = [None] * built._count
        for number, name in zip(numbers.tolist(), names, strict=True):
            built._names[number] = name
        by_number = np.zeros(built._count, dtype=np.uint8)
        by_number[numbers] = kinds
        built._kinds = bytearray(by_number.tobytes())
        for kind, table in enumerate(built._tables):
            held = kinds == kind
            table.update(zip(compress(names, held), numbers[held].tolist(), strict=True))
        self._known = np.zeros(built._count, dtype=np.bool_)
        self._known[numbers] = True

    def add_numbered(self, cards: Sequence[Card], numbers: Sequence[bytes | None]) -> None:
        """Add ``cards`` with their links' numbers as stored; a card without numbers, or with
        numbers that do not fit the stored names, is numbered here (``add``)."""
        whole = None if None in numbers else self._fitting(numbers)  # type: ignore[arg-type]
        if whole is not None:
            self._flush()
            self._chunks.append(whole)
            self._counts.extend(len(held) // NUMBER.itemsize for held in numbers)  # type: ignore[arg-type]
            return
        for card, held in zip(cards, numbers, strict=True):  # one at a time: some do not fit
            fitting = None if held is None else self._fitting([held])
            if fitting is None:
                self.add(card)
                continue
            self._flush()
            self._chunks.append(fitting)
            self._counts.append(len(fitting))

    def _fitting(self, numbers: Sequence[bytes]) -> Slots | None:
        """``numbers`` as one array, or None unless each is whole and every number names."""
        if any(len(held) % NUMBER.itemsize for held in numbers):
            return None
        joined = np.frombuffer(b"".join(numbers), dtype=NUMBER)
        known = self._known
        if len(joined) and not (
            (joined >= 0).all() and (joined < len(known)).all() and known[joined].all()
        ):
            return None
        return joined.astype(np.int32)

    def _flush(self) -> None:
        if self._numbers:
            self._chunks.append(np.array(self._numbers, dtype=np.int32))
            self._numbers = []

    def add(self, card: Card) -> None:
        # A stored value is usually in normal form and seen before: one lookup as it is, and
        # normalised (and numbered, if new) only when that misses.
        built, numbers = self._built, self._numbers
        append = numbers.append
        before = len(numbers)
        files, names, groups, folders = card.link_lists()
        for raw in files:
            found = self._files.get(raw)
            if found is None:
                path = normalise_path(raw)
                found = built._number(FILE, path) + built._number(FOLDER, parent_folder(path))
                self._files[raw] = found
            numbers += found
        for raw in folders:
            number = built.folders.get(raw)
            if number is None:
                numbers += built._number(FOLDER, normalise_path(raw))
            else:
                append(number)
        for raw in names:
            number = built.names.get(raw)
            if number is None:
                numbers += built._number(NAME, raw.strip())
            else:
                append(number)
        for raw in groups:
            group = tuple(raw)
            number = built.groups.get(group)
            if number is not None:
                append(number)
            elif (
                len(group) == 2
                and group[0] < group[1]
                and group[0].islower()
                and group[1].islower()
            ):
                numbers += built._number(GROUP, (sys.intern(group[0]), sys.intern(group[1])))
            else:  # not in normal form, or of three or more terms
                numbers += built._group_number(_normal_group(group))
        self._counts.append(len(numbers) - before)

    def _forget_unused(self, numbers: Slots) -> None:
        """Forget the stored names no card here links to (those of entries not active)."""
        built, known = self._built, self._known
        used = np.bincount(numbers, minlength=built._count)[: len(known)] > 0
        for number in np.flatnonzero(known & ~used).tolist():
            del built._tables[built._kinds[number]][built._names[number]]
            built._names[number] = None
        self._known = np.zeros(0, dtype=np.bool_)

    def finish(self) -> Postings:
        """The inverted lists (a slot may repeat in a list, which scoring and removal allow)."""
        built, counts = self._built, self._counts
        self._flush()
        by_number = np.concatenate(self._chunks) if self._chunks else NO_SLOTS
        self._chunks, self._files = [], {}
        self._forget_unused(by_number)
        built._slot_numbers = by_number
        built._slot_bounds = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=built._slot_bounds[1:])
        order = np.argsort(by_number, kind="stable")
        slots = np.repeat(np.arange(len(counts), dtype=SLOT), counts)
        built._base = slots[order]
        built._bounds = np.searchsorted(
            by_number[order], np.arange(built._count + 1, dtype=np.int64)
        )
        built._term_count = count = dict(Counter(chain.from_iterable(built.groups)))
        pairs = built._pairs
        for group, number in built.groups.items():
            if len(group) != 2:
                built._file(group)
                continue
            # _file, unrolled for the pairs that are most groups: under the rarer term
            a, b = group
            first, second = (a, b) if (count[a], a) <= (count[b], b) else (b, a)
            seconds = pairs.get(first)
            if seconds is None:
                pairs[first] = {second: [number]}
            elif second in seconds:
                seconds[second].append(number)
            else:
                seconds[second] = [number]
        return built


def _normal_group(raw: Group) -> Group:
    """The group in normal form, its terms interned: a term is held once however many groups
    name it (a hundred thousand groups share a few thousand terms)."""
    return tuple(map(sys.intern, group_key(raw)))
