"""The recall index of one account: cards in slots, inverted lists, and deltas applied in place."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from continual.associations import folders_of
from continual.recall.cards import (
    SCORE_FILE,
    SCORE_FOLDER,
    SCORE_IDENTIFIER,
    SCORE_KEYWORDS,
    Card,
    Normal,
    Query,
    Recall,
    Scored,
    visibility_rank,
    why_matched,
)
from continual.recall.postings import Postings
from continual.recall.postings_builder import postings_of
from continual.values import Scope

RANK_GAP = 1 << 24  # room between neighbouring ids' ranks for ids inserted later
SCORE_SHIFT = 48  # ranking key: the score's place in SCORES, from the top, above the id's rank
SCORES = (0, SCORE_KEYWORDS, SCORE_IDENTIFIER, SCORE_FOLDER, SCORE_FILE)  # by code
MAX_VIEWS = 64  # repositories whose visibility is kept; more are recomputed on demand
Mask = npt.NDArray[np.bool_]
Positions = npt.NDArray[np.intp]  # slots in ascending order, as np.flatnonzero gives them


class RecallIndex:
    """An account's active cards, searchable with no I/O and changed by deltas (``apply``).

    Each card sits in a slot; slot arrays hold its id's rank (for ties by id), its key and
    whether the key is shared. A query marks scores into a scratch array from the inverted
    lists (numpy scatter), keeps the slots the repository sees, and orders by score then id.
    Not thread-safe: the caller serialises ``apply`` and ``search`` (see ``Snapshot``).
    """

    def __init__(self, capacity: int = 64) -> None:
        self._cards: list[Card | None] = [None] * capacity
        self._slot: dict[str, int] = {}
        self._free: list[int] = list(range(capacity - 1, -1, -1))
        self._ids: list[str] = []  # live ids in order
        self._rank = np.zeros(capacity, dtype=np.int64)
        self._keyid = np.zeros(capacity, dtype=np.int32)
        self._shared = np.zeros(capacity, dtype=np.bool_)
        self._account = np.zeros(capacity, dtype=np.bool_)  # account-scoped
        self._repository = np.zeros(capacity, dtype=np.int32)  # numbered by _repositories
        self._repositories: dict[str, int] = {}
        self._code = np.zeros(capacity, dtype=np.uint8)  # scratch: which SCORES a slot got
        self._mark = np.zeros(capacity, dtype=np.bool_)  # scratch: the slots a query touched
        self._keys: dict[str, int] = {}
        self._members: dict[int, list[int]] = {}
        self._views: dict[str | None, Mask] = {}
        self._postings = Postings()

    # -- building and changing -------------------------------------------------------------

    @classmethod
    def build(cls, cards: Iterable[Card]) -> RecallIndex:
        """Index ``cards``; a card id must be unique (a later duplicate is dropped)."""
        unique: dict[str, Card] = {}
        for card in cards:
            unique.setdefault(card.id, card)
        held = list(unique.values())
        return cls.of_cards(held, postings_of(held))

    @classmethod
    def of_cards(cls, ordered: list[Card], postings: Postings) -> RecallIndex:
        """The index of ``ordered`` (unique ids, in any order) whose links ``postings`` holds,
        slot n being the n-th card (``continual.recall.building`` makes both card by card)."""
        index = cls(max(64, len(ordered)))
        count = len(ordered)
        index._cards[:count] = ordered
        index._free = list(range(len(index._cards) - 1, count - 1, -1))
        ids = [card.id for card in ordered]
        index._slot = dict(zip(ids, range(count), strict=True))
        by_id = sorted(range(count), key=ids.__getitem__)  # slots in id order
        index._ids = list(map(ids.__getitem__, by_id))
        index._rank[by_id] = np.arange(1, count + 1, dtype=np.int64) * RANK_GAP
        keys = [card.key for card in ordered]
        index._keys = {key: kid for kid, key in enumerate(dict.fromkeys(keys))}
        keyid = np.fromiter(map(index._keys.__getitem__, keys), np.int32, count)
        index._keyid[:count] = keyid
        # Each key's slots in slot order: one stable sort, cut where the key changes.
        by_key = np.argsort(keyid, kind="stable")
        sorted_kids = keyid[by_key]
        at = np.flatnonzero(np.diff(sorted_kids, prepend=-1))
        slots, bounds = by_key.tolist(), [*at.tolist(), count]
        index._members = {
            kid: slots[start:end]
            for kid, start, end in zip(
                sorted_kids[at].tolist(), bounds[:-1], bounds[1:], strict=True
            )
        }
        index._shared[:count] = np.bincount(keyid, minlength=len(index._keys))[keyid] > 1
        account = Scope.ACCOUNT.value
        index._account[:count] = [card.scope == account for card in ordered]
        repositories = [card.repository for card in ordered]
        index._repositories = {name: n for n, name in enumerate(dict.fromkeys(repositories))}
        index._repository[:count] = list(map(index._repositories.__getitem__, repositories))
        index._postings = postings
        return index

    def __len__(self) -> int:
        return len(self._slot)

    @property
    def postings(self) -> Postings:
        """The inverted lists, by slot (for measuring them against other ways to score)."""
        return self._postings

    @property
    def capacity(self) -> int:
        """Slots allocated: one past the highest slot number in use or free."""
        return len(self._cards)

    def card(self, card_id: str) -> Card | None:
        slot = self._slot.get(card_id)
        return None if slot is None else self._cards[slot]

    def apply(self, upserts: Iterable[Card] = (), removals: Iterable[str] = ()) -> None:
        """Add or replace ``upserts`` and drop the cards with ids in ``removals`` (absent ids
        are ignored); the index then answers as one built from the resulting cards."""
        touched: set[int] = set()
        for card_id in removals:
            self._remove(card_id, touched)
        for card in upserts:
            if self._holds(card):
                continue
            self._remove(card.id, touched)
            self._add(card, touched)
        for kid in touched:
            self._settle_key(kid)

    def _holds(self, card: Card) -> bool:
        """Whether ``card`` is already here as it is (its links compared in normal form, as the
        index holds them)."""
        slot = self._slot.get(card.id)
        held = None if slot is None else self._cards[slot]
        if held is None or slot is None or not held.same_fields(card):
            return False
        mine, theirs = self._postings.links(slot), Normal.of(card)
        return (
            set(mine.files) == set(theirs.files)
            and set(mine.folders) == set(theirs.folders)
            and set(mine.identifiers) == set(theirs.identifiers)
            and set(mine.groups) == set(theirs.groups)
        )

    def links(self, card_id: str) -> Normal | None:
        """The links of a card held here, in normal form (its card may not keep them)."""
        slot = self._slot.get(card_id)
        return None if slot is None else self._postings.links(slot)

    def _remove(self, card_id: str, touched: set[int]) -> None:
        slot = self._slot.pop(card_id, None)
        if slot is None:
            return
        card = self._cards[slot]
        assert card is not None
        self._postings.remove(slot)
        self._cards[slot] = None
        del self._ids[bisect_left(self._ids, card_id)]
        kid = int(self._keyid[slot])
        self._members[kid].remove(slot)
        self._shared[slot] = False
        for view in self._views.values():
            view[slot] = False
        self._free.append(slot)
        touched.add(kid)

    def _add(self, card: Card, touched: set[int]) -> None:
        if not self._free:
            self._grow()
        slot = self._free.pop()
        self._cards[slot] = card
        self._slot[card.id] = slot
        self._rank[slot] = self._place(card.id)
        kid = self._keys.setdefault(card.key, len(self._keys))
        self._keyid[slot] = kid
        self._account[slot] = card.scope == Scope.ACCOUNT
        repositories = self._repositories
        self._repository[slot] = repositories.setdefault(card.repository, len(repositories))
        self._members.setdefault(kid, []).append(slot)
        self._postings.add(slot, Normal.of(card))
        touched.add(kid)

    def _place(self, card_id: str) -> int:
        """A rank between the neighbours of ``card_id`` in id order (renumbering when full)."""
        position = bisect_left(self._ids, card_id)
        self._ids.insert(position, card_id)
        slots = self._slot
        low = int(self._rank[slots[self._ids[position - 1]]]) if position else 0
        if position + 1 < len(self._ids):
            high = int(self._rank[slots[self._ids[position + 1]]])
        else:
            high = low + 2 * RANK_GAP
        if high - low >= 2:
            return (low + high) // 2
        live = np.fromiter((slots[i] for i in self._ids if i != card_id), dtype=np.int64)
        ranks = np.arange(1, len(self._ids) + 1, dtype=np.int64) * RANK_GAP
        self._rank[live] = np.delete(ranks, position)
        return int(ranks[position])

    def _settle_key(self, kid: int) -> None:
        """After a key's members changed: who shares it, and which member each view sees."""
        members = self._members.get(kid)
        if not members:
            self._members.pop(kid, None)
            return
        self._shared[members] = len(members) > 1
        cards = [self._cards[m] for m in members]
        for repository, view in self._views.items():
            ranks = [visibility_rank(c, repository) for c in cards if c is not None]
            best = max(ranks)
            for m, r in zip(members, ranks, strict=True):
                view[m] = r >= 0 and r == best

    def _grow(self) -> None:
        old = len(self._cards)
        size = old * 2
        self._cards.extend([None] * (size - old))
        self._free.extend(range(size - 1, old - 1, -1))
        self._rank = _grown(self._rank, size)
        self._keyid = _grown(self._keyid, size)
        self._shared = _grown(self._shared, size)
        self._account = _grown(self._account, size)
        self._repository = _grown(self._repository, size)
        self._code = _grown(self._code, size)
        self._mark = _grown(self._mark, size)
        self._views = {r: _grown(v, size) for r, v in self._views.items()}

    # -- visibility --------------------------------------------------------------------------

    def _view(self, repository: str | None) -> Mask:
        """The slots a query from ``repository`` may see: live, not another repository's own
        entry, and the best-placed entry of its key (``visibility_rank``)."""
        cached = self._views.get(repository)
        if cached is not None:
            return cached
        live = np.zeros(len(self._cards), dtype=np.bool_)
        live[list(self._slot.values())] = True
        if repository is None:  # visibility_rank: repository-scoped 1, account-scoped 0
            ranks = np.where(self._account, 0, 1).astype(np.int8)
        else:  # own 2, account-scoped born here 1, other account-scoped 0, others' own -1
            own = self._repository == self._repositories.get(repository, -1)
            ranks = np.where(self._account, np.where(own, 1, 0), np.where(own, 2, -1))
            ranks = ranks.astype(np.int8)
        ranks[~live] = -1
        best = np.full(len(self._keys) + 1, -1, dtype=np.int8)
        live = ranks >= 0
        np.maximum.at(best, self._keyid[live], ranks[live])
        view: Mask = live & (ranks == best[self._keyid])
        if len(self._views) >= MAX_VIEWS:
            self._views.pop(next(iter(self._views)))
        self._views[repository] = view
        return view

    # -- searching ---------------------------------------------------------------------------

    def search(
        self,
        *,
        paths: Iterable[str] = (),
        identifiers: Iterable[str] = (),
        words: Iterable[str] = (),
        repository: str | None = None,
        limit: int | None = None,
        seen: Iterable[tuple[str, int]] = (),
    ) -> Recall:
        """The first ``limit`` hits of the ranking (all with None) and the ranking's size.

        A card scores its strongest match only: a changed path equal to one of its files (1000),
        a changed path inside one of its folders, component-aware (800), one of its identifiers
        given whole (700), all terms of one of its keyword groups among the query's terms (500;
        terms come from the paths, the identifiers split, and the words). Hits are ordered by
        score, then id. With ``repository``, only that repository's own entries and
        account-scoped entries are visible, and one key yields one card: the repository's own
        entry shadows account-scoped ones (whether or not it matches); among equals the
        better-ranked wins. Entries whose ``(id, revision)`` is in ``seen`` (already handed in
        this session) are ranked as usual, so they still take their key, but are left out of
        both hits and total.
        """
        q = Query.of(paths=paths, identifiers=identifiers, words=words)
        changed_folders = frozenset(f for p in q.paths for f in (p, *folders_of(p)))
        postings = self._postings
        code, mark = self._code, self._mark
        # Weaker matches first: a stronger one written later overwrites the code of a weaker.
        marked = False
        for value, numbers in (
            (1, postings.matched_groups(q.terms) if len(q.terms) >= 2 else None),
            (2, postings.found(postings.names, q.identifiers)),
            (3, postings.found(postings.folders, changed_folders)),
            (4, postings.found(postings.files, q.paths)),
        ):
            if numbers is not None and len(numbers):
                touched = postings.gather(numbers)
                code[touched] = value
                mark[touched] = True
                marked = True
        if not marked:
            return Recall((), 0)
        matched = np.flatnonzero(mark)
        mark[matched] = False
        keep = self._view(repository)[matched]
        slots = matched[keep]
        order_keys = (len(SCORES) - code[slots]).astype(np.int64) << SCORE_SHIFT
        order_keys |= self._rank[slots]
        shared = self._shared[slots]
        total = int(len(slots) - np.count_nonzero(shared)) + _distinct(self._keyid[slots[shared]])
        skipped = self._seen_slots(seen, slots)
        for slot in skipped:
            total -= self._wins_key(slot, slots, order_keys)
        hits = self._head(q, changed_folders, slots, order_keys, shared, skipped, limit)
        return Recall(tuple(hits), total)

    def _seen_slots(self, seen: Iterable[tuple[str, int]], slots: Positions) -> set[int]:
        """Slots of the matched cards whose ``(id, revision)`` is in ``seen``."""
        found: set[int] = set()
        for card_id, revision in seen:
            slot = self._slot.get(card_id)
            if slot is None:
                continue
            card = self._cards[slot]
            if card is None or card.revision != revision:
                continue
            at = int(np.searchsorted(slots, slot))
            if at < len(slots) and slots[at] == slot:
                found.add(slot)
        return found

    def _wins_key(self, slot: int, slots: Positions, order_keys: npt.NDArray[np.int64]) -> bool:
        """True when matched ``slot`` is the first of its key in ranking order."""
        mine = order_keys[int(np.searchsorted(slots, slot))]
        for other in self._members[int(self._keyid[slot])]:
            at = int(np.searchsorted(slots, other))
            matched = other != slot and at < len(slots) and slots[at] == other
            if matched and order_keys[at] < mine:
                return False
        return True

    def _head(
        self,
        q: Query,
        changed_folders: frozenset[str],
        slots: Positions,
        order_keys: npt.NDArray[np.int64],
        shared: Mask,
        skipped: set[int],
        limit: int | None,
    ) -> list[Scored]:
        """The first ``limit`` hits in ranking order, one per key, without ``skipped``."""
        size = len(slots)
        if limit is not None and limit <= 0:
            return []
        window = size if limit is None else min(size, 2 * limit + len(skipped) + 8)
        while True:
            if window < size:
                part = np.argpartition(order_keys, window)[:window]
                order = part[np.argsort(order_keys[part])]
            else:
                order = np.argsort(order_keys)
            hits = self._walk(q, changed_folders, slots, order, order_keys, shared, skipped, limit)
            if window >= size or (limit is not None and len(hits) >= limit):
                return hits
            window = min(size, window * 4)

    def _walk(
        self,
        q: Query,
        changed_folders: frozenset[str],
        slots: Positions,
        order: Any,
        order_keys: npt.NDArray[np.int64],
        shared: Mask,
        skipped: set[int],
        limit: int | None,
    ) -> list[Scored]:
        hits: list[Scored] = []
        keys: set[int] = set()
        cards = self._cards
        keyid = self._keyid
        for at in order.tolist():
            slot = int(slots[at])
            if shared[at]:
                kid = int(keyid[slot])
                if kid in keys:
                    continue
                keys.add(kid)
            if slot in skipped:
                continue
            card = cards[slot]
            assert card is not None
            value = SCORES[len(SCORES) - int(order_keys[at] >> SCORE_SHIFT)]
            why = why_matched(self._postings.links(slot), value, q, changed_folders)
            hits.append(Scored(card, value, why))
            if limit is not None and len(hits) >= limit:
                break
        return hits

    def query(
        self,
        *,
        paths: Iterable[str] = (),
        identifiers: Iterable[str] = (),
        words: Iterable[str] = (),
        repository: str | None = None,
        limit: int | None = None,
    ) -> list[Scored]:
        """The hits of :meth:`search` as a list (the whole ranking with no ``limit``)."""
        found = self.search(
            paths=paths, identifiers=identifiers, words=words, repository=repository, limit=limit
        )
        return list(found.hits)


def _distinct(values: npt.NDArray[np.int32]) -> int:
    """How many distinct values (a sort: numpy's unique hashes, slower at these sizes)."""
    if not len(values):
        return 0
    ordered = np.sort(values)
    return 1 + int(np.count_nonzero(ordered[1:] != ordered[:-1]))


def _grown(array: Any, size: int) -> Any:
    grown = np.zeros(size, dtype=array.dtype)
    grown[: len(array)] = array
    return grown
