"""An account's lessons as read from the store: state, scope, counts, receipts and recall card."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, case, func, select

from continual.lifecycle import ReceiptFacts, Tally, entry_state, tally
from continual.proofs import ProofEvidence, proofs_of_account
from continual.recall.cards import Card
from continual.tables import Entry, Receipt, Repository, Suggestion
from continual.values import Decision, EntryState, Scope, Source

# The only source that widens a lesson to its account (docs/writeback.md, "Entries and receipts");
# a proof never does (continual.proofs).
WIDENING_SOURCES = frozenset({Source.FIX_PR.value})
NO_COUNTS = Tally(0, 0, 0, None)
ENTRY_COLUMNS = (
    Entry.id,
    Entry.key,
    Entry.repository_id,
    Entry.lens,
    Entry.title,
    Entry.text,
    Entry.admission,
    Entry.associations,
    Entry.revision,
    Entry.demoted_ms,
    Entry.last_confirmed_ms,
    Entry.expires_ms,
)


@dataclass(frozen=True, slots=True)
class SourceReceipt:
    """One receipt of a lesson, as a person reading the store sees it."""

    decision: str
    reason: str | None
    source: str
    rule: str | None
    span: str | None
    seat: str
    lab: str | None
    pr: int
    suggestion: str
    review: str | None
    set_sha256: str | None
    actor: str | None
    at_ms: int
    superseded: bool
    proof: ProofEvidence | None = None  # the suggestion's proof, evidence beside the decision


@dataclass(frozen=True, slots=True)
class Lesson:
    """One live entry with everything recall and the API need: state, scope and receipts.

    ``sources`` are read by ``load_lessons``; a recall snapshot reads the counts only and leaves
    them empty.
    """

    id: str
    key: str
    repository_id: int
    repository: str
    scope: Scope
    lens: str
    title: str
    text: str
    state: EntryState
    revision: int
    sources: tuple[SourceReceipt, ...]
    confirmations: int
    last_confirmed_ms: int | None
    expires_ms: int | None
    demoted: bool
    card: Card


def mechanism_of(key: str) -> str:
    """The mechanism hash at the end of an entry key (``lesson/<slug>-<hash>``)."""
    return key.rpartition("-")[2]


def widened(entries: Iterable[tuple[str, int, str]], merged: Iterable[tuple[int, str]]) -> set[str]:
    """Ids of entries that widen to their account.

    ``entries`` are ``(id, repository_id, key)``; ``merged`` are ``(repository_id, key)`` of
    current accepted receipts whose source is a merged fix PR. An entry widens when such a
    receipt of its mechanism (same hash) exists in a second repository of the account.
    """
    merged_in: defaultdict[str, set[int]] = defaultdict(set)
    for repository_id, key in merged:
        merged_in[mechanism_of(key)].add(repository_id)
    return {
        entry_id
        for entry_id, repository_id, key in entries
        if merged_in.get(mechanism_of(key), set()) - {repository_id}
    }


def _source(row: Any, proofs: Mapping[str, ProofEvidence]) -> SourceReceipt:
    return SourceReceipt(
        decision=row.decision,
        reason=row.reason,
        source=row.source,
        rule=row.rule,
        span=row.span,
        seat=row.seat,
        lab=row.lab,
        pr=row.pr,
        suggestion=row.suggestion_id,
        review=row.review_id,
        set_sha256=row.set_sha256,
        actor=row.actor,
        at_ms=row.at_ms,
        superseded=bool(row.superseded),
        proof=proofs.get(row.suggestion_id),
    )


def _merged(receipt: Any) -> bool:
    return (
        receipt.source in WIDENING_SOURCES
        and receipt.decision == Decision.ACCEPTED.value
        and not receipt.superseded
    )


class _Reader:
    """Turns entry rows, their counts and their proofs into lessons (one rule for every read)."""

    def __init__(self, conn: Connection, account_id: int, now: int) -> None:
        self.now = now
        self.names = dict(
            conn.execute(
                select(Repository.id, Repository.full_name).where(
                    Repository.account_id == account_id
                )
            ).all()
        )
        self._shared = _Shared()

    def lessons(
        self,
        rows: Sequence[Any],
        counts: dict[str, Tally],
        merged: Collection[str],
        sources: dict[str, tuple[SourceReceipt, ...]] | None = None,
    ) -> list[Lesson]:
        keys = {row.id: (row.repository_id, row.key) for row in rows}
        wide = widened(
            ((row.id, row.repository_id, row.key) for row in rows),
            (keys[entry_id] for entry_id in merged if entry_id in keys),
        )
        return [
            self._lesson(
                row,
                counts.get(row.id, NO_COUNTS),
                row.id in wide,
                () if sources is None else sources.get(row.id, ()),
            )
            for row in rows
        ]

    def _lesson(
        self, row: Any, counts: Tally, wide: bool, sources: tuple[SourceReceipt, ...]
    ) -> Lesson:
        state = entry_state(
            demoted=row.demoted_ms is not None,
            admitted=row.admission is None,
            counts=counts,
            expires_ms=row.expires_ms,
            now_ms=self.now,
        )
        scope = Scope.ACCOUNT if wide else Scope.REPOSITORY
        repository = self.names.get(row.repository_id, "")
        card = self._card(row, repository, scope)
        share = self._shared.__getitem__
        return Lesson(
            card.id,
            card.key,
            share(row.repository_id),
            repository,
            scope,
            card.lens,
            card.title,
            card.text,
            state,
            card.revision,
            sources,
            counts.accepted,
            share(row.last_confirmed_ms),
            share(row.expires_ms),
            row.demoted_ms is not None,
            card,
        )

    def _card(self, row: Any, repository: str, scope: Scope) -> Card:
        """The recall card, its links left as stored until asked for (``Card.stored``)."""
        return Card.stored(
            row.id,
            row.key,
            row.revision,
            repository,
            scope.value,
            self._shared[row.lens],
            row.title,
            row.text,
            row.associations,
        )


class _Shared(dict[Any, Any]):
    """One object per distinct value: the first seen stands for every equal one."""

    def __missing__(self, value: Any) -> Any:
        self[value] = value
        return value


def _chunks(ids: Sequence[str], size: int = 500) -> Iterable[Sequence[str]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _counts_query(account_id: int | None) -> Any:
    """Receipt counts per entry: of the whole account, or (None) of the entries the caller
    names, whose ids already fix the account."""
    accepted = Receipt.decision == Decision.ACCEPTED.value
    labelled = and_(accepted, Receipt.lab.is_not(None), Receipt.lab != "")
    owned = [] if account_id is None else [Receipt.account_id == account_id]
    return (
        select(
            Receipt.entry_id,
            func.sum(case((accepted, 1), else_=0)).label("accepted"),
            func.sum(case((accepted, 0), else_=1)).label("dismissed"),
            func.sum(case((labelled, 1), else_=0)).label("labelled"),
            func.max(case((accepted, Receipt.at_ms))).label("last"),
        )
        .where(*owned, Receipt.superseded.is_(False))
        .group_by(Receipt.entry_id)
    )


def _merged_query(account_id: int) -> Any:
    return select(Receipt.entry_id).where(
        Receipt.account_id == account_id,
        Receipt.source.in_(sorted(WIDENING_SOURCES)),
        Receipt.decision == Decision.ACCEPTED.value,
        Receipt.superseded.is_(False),
    )


def read_lessons(
    conn: Connection, account_id: int, *, now: int, ids: Sequence[str] | None = None
) -> list[Lesson]:
    """The account's live entries as lessons with counts but no receipts (recall's read): all
    of them, or those of ``ids``. Widening looks at the merged fix PRs of the entries read, so a partial
    read must hold every entry of the mechanisms it touches."""
    reader = _Reader(conn, account_id, now)
    live = select(*ENTRY_COLUMNS, Entry.account_id).where(Entry.deleted_ms.is_(None))
    merged_query = _merged_query(account_id)
    if ids is None:
        parts: Iterable[tuple[Any, Any, Any]] = [
            (live.where(Entry.account_id == account_id), _counts_query(account_id), merged_query)
        ]
    else:
        # By the entries' ids alone, the account checked on each entry row (a receipt's entry
        # is of its account): with the account in the WHERE clause, SQLite's planner walks the
        # account's whole index instead.
        parts = (
            (
                live.where(Entry.id.in_(chunk)),
                _counts_query(None).where(Receipt.entry_id.in_(chunk)),
                merged_query.where(Receipt.entry_id.in_(chunk)),
            )
            for chunk in _chunks(ids)
        )
    rows: list[Any] = []
    counts: dict[str, Tally] = {}
    merged: set[str] = set()
    for entries, tallies, merges in parts:
        rows.extend(row for row in conn.execute(entries) if row.account_id == account_id)
        for entry_id, accepted, dismissed, labelled, last in conn.execute(tallies).all():
            counts[entry_id] = Tally(accepted, dismissed, labelled, last)
        merged.update(conn.execute(merges).scalars())
    return reader.lessons(rows, counts, merged)


def load_lessons(conn: Connection, account_id: int, *, now: int) -> list[Lesson]:
    """Every live entry of the account with its receipts, ordered by repository, key and id."""
    reader = _Reader(conn, account_id, now)
    rows = conn.execute(
        select(*ENTRY_COLUMNS).where(Entry.account_id == account_id, Entry.deleted_ms.is_(None))
    ).all()
    receipts: defaultdict[str, list[Any]] = defaultdict(list)
    for receipt in conn.execute(
        select(Receipt, Suggestion.review_id)
        .join(Suggestion, Suggestion.id == Receipt.suggestion_id)
        .where(Receipt.account_id == account_id)
        .order_by(Receipt.id)
    ):
        receipts[receipt.entry_id].append(receipt)
    counts = {
        entry_id: tally(
            ReceiptFacts(Decision(r.decision), r.lab, r.at_ms, bool(r.superseded)) for r in own
        )
        for entry_id, own in receipts.items()
    }
    merged = {entry_id for entry_id, own in receipts.items() if any(map(_merged, own))}
    proofs = proofs_of_account(conn, account_id)
    sources = {
        entry_id: tuple(_source(r, proofs) for r in own) for entry_id, own in receipts.items()
    }
    lessons = reader.lessons(rows, counts, merged, sources)
    lessons.sort(key=lambda lesson: (lesson.repository, lesson.key, lesson.id))
    return lessons
