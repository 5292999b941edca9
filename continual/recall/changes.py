"""The entry change log: written wherever an entry's row changes, read by recall as a delta."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, update

from continual.prepared import Prepared
from continual.tables import Account, Entry, EntryChange

# Changes kept per account. A process further behind than this rebuilds its index instead of
# reading the delta; pruning runs once every PRUNE_EVERY generations.
KEEP_CHANGES = 50_000
PRUNE_EVERY = 1_024


def note_entry_change(conn: Connection, entry_id: str, account_id: int | None = None) -> int:
    """Record that ``entry_id``'s row changed in this transaction; returns its account.

    Bumping the account's generation takes its row lock until commit, so generations are
    contiguous and in commit order per account; the log row names the entry under it.
    """
    owner: Any = (
        account_id
        if account_id is not None
        else select(Entry.account_id).where(Entry.id == entry_id).scalar_subquery()
    )
    bumped = conn.execute(
        update(Account)
        .where(Account.id == owner)
        .values(store_generation=Account.store_generation + 1)
        .returning(Account.id, Account.store_generation)
    ).one()
    account, generation = int(bumped.id), int(bumped.store_generation)
    conn.execute(
        insert(EntryChange).values(account_id=account, generation=generation, entry_id=entry_id)
    )
    _prune(conn, account, generation, generation)
    return account


def note_entry_changes(conn: Connection, account_id: int, entry_ids: Sequence[str]) -> None:
    """``note_entry_change`` for many entries of one account in two statements: the generation
    moves on by their number at once (under the same row lock), one log row for each."""
    if not entry_ids:
        return
    last = conn.execute(
        update(Account)
        .where(Account.id == account_id)
        .values(store_generation=Account.store_generation + len(entry_ids))
        .returning(Account.store_generation)
    ).scalar_one()
    first = int(last) - len(entry_ids) + 1
    conn.execute(
        insert(EntryChange),
        [
            {"account_id": account_id, "generation": first + n, "entry_id": entry_id}
            for n, entry_id in enumerate(entry_ids)
        ],
    )
    _prune(conn, account_id, first, int(last))


def _prune(conn: Connection, account_id: int, first: int, last: int) -> None:
    """Drop the log rows KEEP_CHANGES generations behind, when ``first..last`` crossed a
    multiple of PRUNE_EVERY."""
    if last // PRUNE_EVERY != (first - 1) // PRUNE_EVERY:
        conn.execute(
            delete(EntryChange).where(
                EntryChange.account_id == account_id,
                EntryChange.generation <= last - KEEP_CHANGES,
            )
        )


# Built once: every question any surface asks starts with this read (on SQLite's driver).
_GENERATION = Prepared(
    select(Account.store_generation).where(Account.id == bindparam("account_id"))
)


def generation_of(conn: Connection, account_id: int) -> int:
    """The account's store generation: one primary-key read."""
    return int(_GENERATION.scalar(conn, {"account_id": account_id}) or 0)


def changed_since(conn: Connection, account_id: int, after: int, upto: int) -> Sequence[str] | None:
    """The ids of entries changed in generations ``after < g <= upto``, each once; None when the
    log no longer holds all of them (pruned), so the caller must rebuild."""
    if upto <= after:
        return ()
    rows = conn.execute(
        select(EntryChange.generation, EntryChange.entry_id).where(
            EntryChange.account_id == account_id,
            EntryChange.generation > after,
            EntryChange.generation <= upto,
        )
    ).all()
    if len(rows) != upto - after:
        return None
    return tuple(dict.fromkeys(row.entry_id for row in rows))
