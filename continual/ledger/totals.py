"""The store's totals across every account: lessons by state, decisions by signal, calls by seat."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlalchemy import Connection, func, select

from continual.ledger.values import signal_of
from continual.recall import load_lessons
from continual.tables import Account, Receipt, ReviewCallRow
from continual.values import EntryState


@dataclass(frozen=True, slots=True)
class StoreTotals:
    """Counts an operator watches; every known lesson state is present, zeros included."""

    lessons: dict[str, int]  # state -> live entries
    decisions: dict[tuple[str, str], int]  # (signal, decision) -> current decisions
    calls: dict[tuple[str, str], int]  # (seat, status) -> review calls


def store_totals(conn: Connection, *, now: int) -> StoreTotals:
    """Read the totals in one pass over the accounts (lesson state is computed, as recall does)."""
    lessons: Counter[str] = Counter({state.value: 0 for state in EntryState})
    for account_id in conn.execute(select(Account.id)).scalars():
        lessons.update(x.state.value for x in load_lessons(conn, account_id, now=now))
    decisions: Counter[tuple[str, str]] = Counter()
    rows = conn.execute(
        select(Receipt.rule, Receipt.source, Receipt.decision, func.count())
        .where(Receipt.superseded.is_(False))
        .group_by(Receipt.rule, Receipt.source, Receipt.decision)
    ).all()
    for rule, source, decision, count in rows:
        decisions[(signal_of(rule or "", source), decision)] += count
    calls = {
        (seat, status): count
        for seat, status, count in conn.execute(
            select(ReviewCallRow.seat, ReviewCallRow.status, func.count()).group_by(
                ReviewCallRow.seat, ReviewCallRow.status
            )
        ).all()
    }
    return StoreTotals(lessons=dict(lessons), decisions=dict(decisions), calls=calls)
