"""One account's lessons and their recall index, kept current by deltas read from the change log."""

from __future__ import annotations

import gc
import heapq
import sys
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TypeVar

from sqlalchemy import Connection, select

from continual.recall.building import IndexBuilder
from continual.recall.cards import Card, Recall, visibility_rank
from continual.recall.changes import changed_since, generation_of
from continual.recall.index import RecallIndex
from continual.recall.lessons import Lesson, mechanism_of, read_lessons
from continual.recall.numbering import read_link_names
from continual.recall.sizing import estimated_bytes
from continual.tables import Entry
from continual.values import EntryState

T = TypeVar("T")
SIZING_SAMPLE = 16  # lessons' worth of each large container an estimate of its size measures
MAX_REMEMBERED = 256  # derived values a snapshot keeps (one or two per repository asked about)


class Snapshot:
    """An account's live lessons and the index of the active ones, at one store generation.

    ``follow`` brings it to a later generation: the entries the change log names, with every
    entry sharing their mechanism (widening looks across them), are read again and applied to
    the index as a delta; expiry is applied as the clock passes it. Queries take the lock, so
    a delta never shows half-applied.
    """

    def __init__(
        self,
        account_id: int,
        generation: int,
        now: int,
        lessons: list[Lesson],
        index: RecallIndex | None = None,
    ) -> None:
        """``index``: of the active lessons' cards, already built (``build_snapshot``)."""
        self.account_id = account_id
        self.generation = generation
        self.now = now
        self._lock = threading.RLock()
        self._lessons = {lesson.card.id: lesson for lesson in lessons}
        self._sorted: tuple[Lesson, ...] | None = None
        self._mechanisms: dict[str, str | tuple[str, ...]] = {}  # mechanism -> entry id(s)
        self._expiring: list[tuple[int, str]] = []
        self._remembered: dict[Hashable, object] = {}
        self._track_all(lessons)
        built_here = index is None
        if index is None:
            index = RecallIndex.build(
                lesson.card for lesson in lessons if lesson.state is EntryState.ACTIVE
            )
        self.index = index
        if built_here:
            self._release(lessons)

    # -- reading ----------------------------------------------------------------------------

    @property
    def lessons(self) -> tuple[Lesson, ...]:
        """Every live lesson, ordered by repository, key and id."""
        with self._lock:
            if self._sorted is None:
                self._sorted = tuple(
                    sorted(self._lessons.values(), key=lambda x: (x.repository, x.key, x.id))
                )
            return self._sorted

    def __len__(self) -> int:
        """How many live lessons it holds."""
        return len(self._lessons)

    def by_id(self) -> dict[str, Lesson]:
        with self._lock:
            return dict(self._lessons)

    def texts_of(self, entries: Iterable[tuple[str, int]]) -> list[tuple[str, str]]:
        """``(id, text)`` of the live lessons among ``entries`` (``(id, revision)``, as handed)."""
        with self._lock:
            found = (self._lessons.get(entry_id) for entry_id, _ in entries)
            return [(lesson.id, lesson.text) for lesson in found if lesson is not None]

    def search(self, **query: object) -> Recall:
        """``RecallIndex.search`` on the current lessons."""
        with self._lock:
            return self.index.search(**query)  # type: ignore[arg-type]

    def standing(self, repository: str) -> list[Card]:
        """Every active card a session in ``repository`` may be handed, one per key, in brief
        order: most confirmations, then latest confirmation, then id."""
        best: dict[str, tuple[int, Lesson]] = {}
        with self._lock:
            lessons = list(self._lessons.values())
        for lesson in lessons:
            if lesson.state is not EntryState.ACTIVE:
                continue
            rank = visibility_rank(lesson.card, repository)
            if rank < 0:
                continue
            held = best.get(lesson.key)
            if held is None or (-rank, lesson.id) < (-held[0], held[1].id):
                best[lesson.key] = (rank, lesson)
        chosen = sorted(
            (lesson for _, lesson in best.values()),
            key=lambda x: (-x.confirmations, -(x.last_confirmed_ms or 0), x.id),
        )
        return [lesson.card for lesson in chosen]

    def remembered(self, name: Hashable, compute: Callable[[], T], *, generation: int) -> T:
        """``compute()``, a value read from the store that only an entry change can alter (every
        such change, receipts included, bumps the generation), kept until this snapshot follows
        a change. ``generation`` is the one the caller's connection sees: a value is kept, and a
        kept one answered, only when it is this snapshot's (another thread may have moved the
        snapshot past the caller's reads, or on while it computed)."""
        with self._lock:
            if generation == self.generation and name in self._remembered:
                return self._remembered[name]  # type: ignore[return-value]
        value = compute()
        with self._lock:
            if generation == self.generation:
                if len(self._remembered) >= MAX_REMEMBERED:
                    self._remembered.pop(next(iter(self._remembered)))
                self._remembered[name] = value
        return value

    def estimated_bytes(self) -> int:
        """About how much memory the snapshot holds: its lessons, their cards and the index
        (``continual.recall.sizing``; the index's cards are the lessons' own)."""
        with self._lock:
            index = [held for name, held in vars(self.index).items() if name != "_cards"]
            rate = min(1.0, SIZING_SAMPLE / max(1, len(self._lessons)))
            return sys.getsizeof(self.index._cards) + estimated_bytes(
                self._lessons, self._mechanisms, self._expiring, self._remembered, *index, rate=rate
            )

    # -- following changes -------------------------------------------------------------------

    def follow(self, conn: Connection, generation: int, now: int) -> bool:
        """Apply the changes up to ``generation`` and the expiries up to ``now``; False when the
        change log no longer holds them all (the caller rebuilds)."""
        with self._lock:
            if generation > self.generation:
                changed = changed_since(conn, self.account_id, self.generation, generation)
                if changed is None:
                    return False
                self._reload(conn, changed)
                self._remembered.clear()
                self.generation = generation
            self._expire(now)
            return True

    def _reload(self, conn: Connection, changed: Iterable[str]) -> None:
        ids = set(changed)
        keys = {
            row.key
            for start in range(0, len(ids), 500)
            for row in conn.execute(  # by primary key alone: see read_lessons
                select(Entry.key, Entry.account_id).where(
                    Entry.id.in_(sorted(ids)[start : start + 500])
                )
            )
            if row.account_id == self.account_id
        }
        keys.update(self._lessons[i].key for i in ids if i in self._lessons)
        for mechanism in {mechanism_of(key) for key in keys}:
            ids.update(self._peers(mechanism))
        fresh = {
            lesson.id: lesson
            for lesson in read_lessons(conn, self.account_id, now=self.now, ids=sorted(ids))
        }
        upserts: list[Card] = []
        removals: list[str] = []
        for entry_id in ids:
            self._forget(entry_id)
            lesson = fresh.get(entry_id)
            if lesson is None:
                removals.append(entry_id)
                continue
            self._lessons[entry_id] = lesson
            self._track(lesson)
            if lesson.state is EntryState.ACTIVE:
                upserts.append(lesson.card)
            else:
                removals.append(entry_id)
        self.index.apply(upserts=upserts, removals=removals)
        self._release(fresh.values())
        self._sorted = None

    def _release(self, lessons: Iterable[Lesson]) -> None:
        """The index holds the links of its cards (``RecallIndex.links``): the cards need not."""
        for lesson in lessons:
            if self.index.card(lesson.id) is lesson.card:
                lesson.card.release_links()

    def _peers(self, mechanism: str) -> tuple[str, ...]:
        held = self._mechanisms.get(mechanism, ())
        return (held,) if isinstance(held, str) else held

    def _track_all(self, lessons: list[Lesson]) -> None:
        """``_track`` for every lesson of a build, with one heapify."""
        for lesson in lessons:
            self._file_mechanism(lesson)
        self._expiring.extend(filter(None, map(self._expiry, lessons)))
        heapq.heapify(self._expiring)

    def _track(self, lesson: Lesson) -> None:
        self._file_mechanism(lesson)
        expiry = self._expiry(lesson)
        if expiry is not None:
            heapq.heappush(self._expiring, expiry)

    def _file_mechanism(self, lesson: Lesson) -> None:
        mechanism = mechanism_of(lesson.key)
        held = self._peers(mechanism)
        if lesson.id not in held:
            # Most mechanisms have one entry: held as the id itself, not a tuple of one.
            self._mechanisms[mechanism] = (*held, lesson.id) if held else lesson.id

    def _expiry(self, lesson: Lesson) -> tuple[int, str] | None:
        """When ``lesson`` lapses, if it waits for that (confirmed, not demoted, not lapsed)."""
        expires = lesson.expires_ms
        if expires is None or lesson.demoted or expires <= self.now:
            return None
        return expires, lesson.id

    def _forget(self, entry_id: str) -> None:
        lesson = self._lessons.pop(entry_id, None)
        if lesson is None:
            return
        mechanism = mechanism_of(lesson.key)
        held = tuple(i for i in self._peers(mechanism) if i != entry_id)
        if held:
            self._mechanisms[mechanism] = held if len(held) > 1 else held[0]
        else:
            self._mechanisms.pop(mechanism, None)

    def _expire(self, now: int) -> None:
        """Lessons whose confirmation lapsed by ``now`` become expired and leave the index."""
        if now <= self.now:
            return
        self.now = now
        lapsed: list[str] = []
        while self._expiring and self._expiring[0][0] <= now:
            expires_ms, entry_id = heapq.heappop(self._expiring)
            lesson = self._lessons.get(entry_id)
            if lesson is None or lesson.expires_ms != expires_ms or lesson.demoted:
                continue  # changed since: its current expiry has an entry of its own
            self._lessons[entry_id] = replace(lesson, state=EntryState.EXPIRED)
            lapsed.append(entry_id)
        if lapsed:
            self.index.apply(removals=lapsed)
            self._sorted = None


def build_snapshot(conn: Connection, account_id: int, *, now: int) -> Snapshot:
    """Read the account's lessons once and index the active ones."""
    generation = generation_of(conn, account_id)
    builder = IndexBuilder(read_link_names(conn, account_id))

    def index(batch: list[Lesson], numbers: list[bytes | None]) -> None:
        # Each active card is indexed as it is read and lets go of its stored links at once:
        # they are never all held together.
        active = [
            (lesson.card, held)
            for lesson, held in zip(batch, numbers, strict=True)
            if lesson.state is EntryState.ACTIVE
        ]
        cards = [card for card, _ in active]
        builder.extend(cards, [held for _, held in active])
        for card in cards:
            card.release_links()

    with _without_cycle_collection():
        lessons = read_lessons(conn, account_id, now=now, each_batch=index)
        return Snapshot(account_id, generation, now, lessons, builder.finish())


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """A build allocates about ten objects per lesson and makes no reference cycles; left on,
    the cycle collector would walk everything built so far again and again (a third of the
    build's time at 100,000 lessons). Reference counting still frees what is dropped."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
