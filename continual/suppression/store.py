"""Suppression in the store: a repository's refused mechanisms, read from entries and receipts, and
the findings a review did not post because of them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import BigInteger, Connection, bindparam, insert, select, union

from continual.prepared import Prepared
from continual.suppression.rules import (
    DEFAULT_SUPPRESS_DAYS,
    Mechanism,
    PathReceipt,
    Suppression,
    suppressions_of,
)
from continual.tables import Entry, Receipt, Repository, Suggestion, SuppressedFinding
from continual.values import Decision


@dataclass(frozen=True, slots=True)
class Withheld:
    """A finding a review did not post, and the suppression that withheld it."""

    key: str
    path: str
    line: int | None
    seat: str
    lens: str
    title: str
    suppression: Suppression


def _candidates() -> Prepared:
    """The entries of a repository's account that were ever dismissed, and the repository's
    demoted entries."""
    repository_id = bindparam("repository_id", type_=BigInteger)  # ids past 32 bits
    account = select(Repository.account_id).where(Repository.id == repository_id).scalar_subquery()
    dismissed = select(Receipt.entry_id).where(
        Receipt.account_id == account, Receipt.decision == Decision.DISMISSED.value
    )
    demoted = select(Entry.id).where(
        Entry.repository_id == repository_id, Entry.demoted_ms.is_not(None)
    )
    return Prepared(union(dismissed, demoted))


# Built once: read on every hand-out whose snapshot has moved on (on SQLite's driver).
_CANDIDATES = _candidates()


def mechanisms(conn: Connection, repository_id: int) -> list[Mechanism]:
    """The repository's live entries that were ever dismissed or demoted, with their receipts.

    Read on every hand-out, so both halves go through an index: the account's dismissals, and the
    repository's demoted entries; the cost follows how many there are, not the store's size.
    """
    # Two steps, so that the entries are looked up by primary key: given the repository as well,
    # a planner may walk every entry of the repository instead.
    candidates = [row[0] for row in _CANDIDATES.rows(conn, {"repository_id": repository_id})]
    if not candidates:
        return []
    entries = [
        row
        for row in conn.execute(
            select(Entry).where(Entry.id.in_(candidates)).order_by(Entry.id)
        ).all()
        if row.repository_id == repository_id and row.deleted_ms is None
    ]
    if not entries:
        return []
    aliases: dict[str, list[str]] = {}
    for alias in conn.execute(
        select(Entry.key, Entry.replaced_by)
        .where(Entry.replaced_by.in_([row.id for row in entries]))
        .order_by(Entry.key)
    ).all():
        aliases.setdefault(str(alias.replaced_by), []).append(alias.key)
    rows = conn.execute(
        select(Receipt, Suggestion.path)
        .join(Suggestion, Suggestion.id == Receipt.suggestion_id)
        .where(Receipt.entry_id.in_([row.id for row in entries]))
        .order_by(Receipt.id)
    ).all()
    verdicts: dict[str, list[PathReceipt]] = {}
    for row in rows:
        verdicts.setdefault(row.entry_id, []).append(
            PathReceipt(
                row.id, row.decision, row.reason, row.path, row.actor, row.at_ms, row.superseded
            )
        )
    return [
        Mechanism(
            entry_id=row.id,
            key=row.key,
            lens=row.lens,
            title=row.title,
            verdicts=tuple(verdicts.get(row.id, ())),
            demoted_by=row.demoted_by,
            demoted=row.demoted_ms is not None,
            lifted_ms=row.suppression_lifted_ms,
            revision=row.revision,
            aliases=tuple(aliases.get(row.id, ())),
        )
        for row in entries
    ]


def suppressions(
    conn: Connection,
    repository_id: int,
    *,
    now_ms: int,
    suppress_days: int = DEFAULT_SUPPRESS_DAYS,
) -> tuple[Suppression, ...]:
    """Every suppression standing in the repository now, ordered by entry id, then path."""
    return standing_suppressions(
        mechanisms(conn, repository_id), now_ms=now_ms, suppress_days=suppress_days
    )


class Standing:
    """The suppressions of a fixed set of mechanisms as the clock moves. Time only ends a
    suppression (``until_ms``), so an answer holds from the moment it was computed until the
    first of its suppressions lapses; only then (or when asked about an earlier moment) is it
    computed again."""

    def __init__(self, found: Sequence[Mechanism], suppress_days: int) -> None:
        self._found = found
        self._suppress_days = suppress_days
        self._held: tuple[int, int | None, tuple[Suppression, ...]] | None = None

    def at(self, now_ms: int) -> tuple[Suppression, ...]:
        held = self._held  # replaced whole, never changed: safe to read without a lock
        if held is not None:
            since, lapse, found = held
            if since <= now_ms and (lapse is None or now_ms < lapse):
                return found
        found = standing_suppressions(self._found, now_ms=now_ms, suppress_days=self._suppress_days)
        lapse = min((s.until_ms for s in found if s.until_ms is not None), default=None)
        self._held = (now_ms, lapse, found)
        return found


def standing_suppressions(
    found: Iterable[Mechanism], *, now_ms: int, suppress_days: int = DEFAULT_SUPPRESS_DAYS
) -> tuple[Suppression, ...]:
    """The suppressions ``found`` mechanisms hold now, in their order."""
    return tuple(
        suppression
        for mechanism in found
        for suppression in suppressions_of(mechanism, now_ms=now_ms, suppress_days=suppress_days)
    )


def suppressed_entries(
    conn: Connection,
    repository_ids: Iterable[int],
    *,
    now_ms: int,
    suppress_days: int = DEFAULT_SUPPRESS_DAYS,
) -> dict[str, Suppression]:
    """The suppression standing on each entry of some repositories now, by entry id: a listed
    lesson that is refused here is shown as such, not as a candidate to follow."""
    found: dict[str, Suppression] = {}
    for repository_id in sorted(set(repository_ids)):
        for suppression in suppressions(
            conn, repository_id, now_ms=now_ms, suppress_days=suppress_days
        ):
            found.setdefault(suppression.entry_id, suppression)
    return found


def record_withheld(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    review_id: str,
    withheld: Sequence[Withheld],
    now: int,
) -> None:
    """One row per finding a review did not post, naming the receipt that suppressed it."""
    if not withheld:
        return
    conn.execute(
        insert(SuppressedFinding),
        [
            {
                "account_id": account_id,
                "repository_id": repository_id,
                "review_id": review_id,
                "entry_id": item.suppression.entry_id,
                "receipt_id": item.suppression.receipt_id,
                "key": item.key,
                "path": item.path,
                "line": item.line,
                "seat": item.seat,
                "lens": item.lens,
                "title": item.title,
                "reason": item.suppression.reason,
                "repository_wide": item.suppression.repository_wide,
                "actor": item.suppression.actor,
                "created_ms": now,
            }
            for item in withheld
        ],
    )
