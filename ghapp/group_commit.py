"""Group commit for short writes made from many threads: one transaction, one durable commit.

A durable commit costs a disk flush, and on one database the flushes are what bounds how many
writes a second a process makes. When several threads each have a small write ready at once (the
worker settling the jobs it ran side by side), `GroupCommit.write` makes them in one transaction:
the first caller to find no commit under way takes every write waiting at that moment, commits
them together and wakes the others; a caller returns only once its write is committed, so each
answer is as durable as its own transaction would have been. If the shared transaction fails,
its writes are made again one transaction each, so one write that the database refuses fails
alone.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from sqlalchemy import Connection, Engine

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(slots=True)
class _Pending(Generic[T]):
    work: Callable[[Connection], T]
    order: str
    finished: bool = False
    value: T | None = None
    error: Exception | None = field(default=None)


class GroupCommit(Generic[T]):
    """Writes from many threads, made in as few transactions as their timing allows."""

    def __init__(self, engine: Engine, *, max_batch: int = 64) -> None:
        self.engine = engine
        self.max_batch = max_batch
        self.transactions = 0  # shared transactions committed (for the figures, not for logic)
        self._cond = threading.Condition()
        self._pending: list[_Pending[T]] = []
        self._leading = False
        # The leader's connection, handed to the next leader while writes are waiting, so that a
        # busy group takes a connection from the pool (and pays for its ping) once, not a commit.
        self._held: Connection | None = None

    def write(self, work: Callable[[Connection], T], *, order: str = "") -> T:
        """Run `work` in a transaction shared with the writes waiting now; answer its value once
        committed, or raise what it raised. Writes of one batch run sorted by `order` (the lock
        order, on a database where the writes take locks)."""
        mine: _Pending[T] = _Pending(work, order)
        with self._cond:
            self._pending.append(mine)
            while not mine.finished:
                if self._leading:
                    self._cond.wait()
                    continue
                self._leading = True
                batch = self._pending[: self.max_batch]
                del self._pending[: self.max_batch]
                self._cond.release()
                try:
                    self._commit(batch)
                finally:
                    self._cond.acquire()
                    self._leading = False
                    if not self._pending:
                        self._release_held()
                    self._cond.notify_all()
        if mine.error is not None:
            raise mine.error
        return mine.value  # type: ignore[return-value]

    def _release_held(self) -> None:
        """Give the held connection back to the pool: no write is waiting (the caller holds the
        condition's lock and no leader is writing)."""
        held, self._held = self._held, None
        if held is not None:
            held.close()

    def _commit(self, batch: list[_Pending[T]]) -> None:
        batch.sort(key=lambda pending: pending.order)
        try:
            if self._held is None:
                self._held = self.engine.connect()
            with self._held.begin():
                values = [pending.work(self._held) for pending in batch]
        except Exception as exc:
            # Whatever broke the shared transaction, its writes are made again on connections
            # from the pool, each checked as it is taken.
            self._drop_held()
            if len(batch) == 1:
                self._settle(batch[0], error=exc)
                return
            log.warning(
                "grouped writes failed, writing one at a time",
                extra={"size": len(batch), "error": type(exc).__name__},
            )
            for pending in batch:
                try:
                    with self.engine.begin() as conn:
                        value = pending.work(conn)
                except Exception as single:
                    self._settle(pending, error=single)
                else:
                    self._settle(pending, value=value)
            return
        self.transactions += 1
        for pending, value in zip(batch, values, strict=True):
            self._settle(pending, value=value)

    def _drop_held(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            try:
                held.invalidate()
                held.close()
            except Exception:  # a connection that cannot even close is dropped as it is
                log.warning("a group's connection did not close", exc_info=True)

    @staticmethod
    def _settle(
        pending: _Pending[T], *, value: T | None = None, error: Exception | None = None
    ) -> None:
        pending.value, pending.error, pending.finished = value, error, True
