"""The per-process cache of recall snapshots: kept current by deltas, bounded in memory."""

from __future__ import annotations

import gc
import threading
from collections import OrderedDict
from dataclasses import dataclass

from sqlalchemy import Connection

from continual.recall.changes import generation_of
from continual.recall.snapshot import Snapshot, build_snapshot

MIB = 1 << 20
# Builds between two returns of the frozen objects to the cycle collector (`SnapshotCache`).
UNFREEZE_EVERY = 1_000
# Half of a 2 GiB worker: the process itself (interpreter, libraries, the jobs in flight) and
# the allocator's slack take the rest (docs/operations.md, "Memory").
DEFAULT_MAX_BYTES = 1024 * MIB


@dataclass
class _Held:
    snapshot: Snapshot
    bytes: int  # the snapshot's estimated size when last measured
    lessons: int  # how many lessons it held then


class SnapshotCache:
    """Snapshots per account, kept current by deltas rather than rebuilt, and at most
    ``max_bytes`` of them (by ``Snapshot.estimated_bytes``): the least recently asked about
    accounts leave first, and are built again when next asked about.

    Every change of an entry bumps the account's store generation and logs the entry in the
    same transaction (``continual.recall.changes``), so one primary-key read tells whether a
    snapshot is behind, and the log says which entries to read again. A snapshot is rebuilt
    only when the log no longer reaches back to it, when asked about a moment more than
    ``max_age_ms`` before its clock (its expiries cannot be undone), or after it was evicted.
    A snapshot larger than the whole bound is answered from but not kept. A delta scales the
    held estimate by the change in lessons; a build measures it again.
    """

    def __init__(self, *, max_bytes: int = DEFAULT_MAX_BYTES, max_age_ms: int = 60_000) -> None:
        if max_bytes < 1:
            raise ValueError(f"a snapshot cache needs a positive bound, not {max_bytes} bytes")
        self.max_bytes = max_bytes
        self.max_age_ms = max_age_ms
        self._items: OrderedDict[int, _Held] = OrderedDict()  # least recently used first
        self._bytes = 0
        self._lock = threading.Lock()
        self.builds = 0
        self.evictions = 0
        self.oversized = 0  # builds too large to keep
        self._frozen_builds = 0  # builds kept since the frozen objects went back (UNFREEZE_EVERY)

    @property
    def held_bytes(self) -> int:
        """The estimated size of the snapshots held; never above ``max_bytes``."""
        return self._bytes

    def accounts(self) -> list[int]:
        """The accounts held, least recently used first."""
        with self._lock:
            return list(self._items)

    def get(self, conn: Connection, account_id: int, *, now: int) -> Snapshot:
        generation = generation_of(conn, account_id)
        with self._lock:
            held = self._items.get(account_id)
            if held is not None:
                self._items.move_to_end(account_id)
        cached = None if held is None else held.snapshot
        if (
            cached is not None
            and now >= cached.now - self.max_age_ms
            and generation >= cached.generation  # lower: the account was purged since
            and cached.follow(conn, generation, now)
        ):
            self._rescale(account_id, cached)
            return cached
        snapshot = build_snapshot(conn, account_id, now=now)
        if self._keep(account_id, snapshot, snapshot.estimated_bytes()):
            self._out_of_collection()
        return snapshot

    def _out_of_collection(self) -> None:
        """Move what is alive now, the new snapshot with it, out of the cycle collector's
        generations (`gc.freeze`). A held snapshot lives until evicted and holds no reference
        cycles (`build_snapshot`), so reference counting alone frees it; left in, every full
        pass of the collector would walk every held snapshot again, a pause of up to a second
        inside whichever push set it off (docs/performance.md, "Many tenants"). Whatever else
        was alive is moved too; every UNFREEZE_EVERY builds all of it goes back, so that any
        reference cycle among it that has become garbage since is collected."""
        with self._lock:
            self._frozen_builds += 1
            thaw = self._frozen_builds >= UNFREEZE_EVERY
            if thaw:
                self._frozen_builds = 0
        if thaw:
            gc.unfreeze()
        else:
            gc.freeze()

    def _rescale(self, account_id: int, snapshot: Snapshot) -> None:
        """After a delta: the held estimate in proportion to the lessons now held, if the
        snapshot is still the account's (an evicted one is not brought back)."""
        count = len(snapshot)
        with self._lock:
            held = self._items.get(account_id)
            if held is None or held.snapshot is not snapshot or held.lessons == count:
                return
            size = held.bytes * count // max(1, held.lessons)
            self._bytes += size - held.bytes
            held.bytes, held.lessons = size, count
            self._evict(keep=account_id)

    def _keep(self, account_id: int, snapshot: Snapshot, size: int) -> bool:
        """Hold a new build; False when it is too large to keep."""
        with self._lock:
            self.builds += 1
            replaced = self._items.pop(account_id, None)
            if replaced is not None:
                self._bytes -= replaced.bytes
            if size > self.max_bytes:
                self.oversized += 1
                return False
            self._items[account_id] = _Held(snapshot, size, len(snapshot))
            self._bytes += size
            self._evict(keep=account_id)
            return True

    def _evict(self, *, keep: int) -> None:
        """Drop least recently used snapshots until the held ones fit (the lock is held)."""
        while self._bytes > self.max_bytes:
            oldest = next(iter(self._items))
            if oldest == keep and len(self._items) == 1:
                held = self._items.pop(oldest)  # grown past the bound by deltas alone
                self._bytes -= held.bytes
                self.oversized += 1
                return
            if oldest == keep:
                self._items.move_to_end(oldest)
                continue
            self._bytes -= self._items.pop(oldest).bytes
            self.evictions += 1
