"""An account's lessons as read from the store: state, scope, counts, receipts and recall card."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from sqlalchemy import Connection, bindparam, or_, select

from continual.lifecycle import Tally, entry_state
from continual.prepared import Prepared
from continual.proofs import ProofEvidence, proofs_of_account
from continual.recall.cards import Card
from continual.tables import Entry, Receipt, Repository, Suggestion
from continual.values import Decision, EntryState, Scope, Source

# The only source that widens a lesson to its account (docs/writeback.md, "Entries and receipts");
# a proof never does (continual.proofs).
WIDENING_SOURCES = frozenset({Source.FIX_PR.value})
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
    Entry.accepted_count,
    Entry.dismissed_count,
    Entry.labelled_count,
)
ENTRY_WIDTH = len(ENTRY_COLUMNS)
ROW_BATCH = 4096


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
    them empty. What the card holds (id, key, repository, lens, title, text, revision) is read
    from it, not held twice: a snapshot holds a lesson per entry.
    """

    card: Card
    repository_id: int
    scope: Scope
    state: EntryState
    sources: tuple[SourceReceipt, ...]
    confirmations: int
    last_confirmed_ms: int | None
    expires_ms: int | None
    demoted: bool

    @property
    def id(self) -> str:
        return self.card.id

    @property
    def key(self) -> str:
        return self.card.key

    @property
    def repository(self) -> str:
        return self.card.repository

    @property
    def lens(self) -> str:
        return self.card.lens

    @property
    def title(self) -> str:
        return self.card.title

    @property
    def text(self) -> str:
        return self.card.text

    @property
    def revision(self) -> int:
        return self.card.revision


def mechanism_of(key: str) -> str:
    """The mechanism hash at the end of an entry key (``lesson/<slug>-<hash>``)."""
    return key.rpartition("-")[2]


class Widening:
    """Which entries widen to their account. ``merged`` are ``(repository_id, key)`` of the
    entries holding a current accepted receipt from a merged fix PR; an entry widens when such
    a receipt of its mechanism (same hash) exists in a second repository of the account."""

    def __init__(self, merged: Iterable[tuple[int, str]]) -> None:
        self._merged_in: defaultdict[str, set[int]] = defaultdict(set)
        for repository_id, key in merged:
            self._merged_in[mechanism_of(key)].add(repository_id)

    def widens(self, repository_id: int, key: str) -> bool:
        if not self._merged_in:
            return False
        elsewhere = self._merged_in.get(mechanism_of(key), ())
        return any(other != repository_id for other in elsewhere)


def widened(entries: Iterable[tuple[str, int, str]], merged: Iterable[tuple[int, str]]) -> set[str]:
    """Ids of the ``entries`` (``(id, repository_id, key)``) that widen (``Widening``)."""
    widening = Widening(merged)
    return {
        entry_id for entry_id, repository_id, key in entries if widening.widens(repository_id, key)
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
        rows: Iterable[Any],
        widening: Widening,
        sources: Mapping[str, tuple[SourceReceipt, ...]] | None = None,
    ) -> list[Lesson]:
        """One lesson per entry row (``ENTRY_COLUMNS`` first, in that order)."""
        no_sources: Mapping[str, tuple[SourceReceipt, ...]] = {}
        return [
            self._lesson(row[:ENTRY_WIDTH], widening, no_sources if sources is None else sources)
            for row in rows
        ]

    def _lesson(
        self,
        row: Sequence[Any],
        widening: Widening,
        all_sources: Mapping[str, tuple[SourceReceipt, ...]],
    ) -> Lesson:
        # Unpacked once: a row's attributes cost a lookup each, and a build reads 100,000 rows.
        (
            entry_id,
            key,
            repository_id,
            lens,
            title,
            text,
            admission,
            associations,
            revision,
            demoted_ms,
            last_confirmed_ms,
            expires_ms,
            accepted,
            dismissed,
            labelled,
        ) = row
        # The entry's current receipts, counted on its row by the refresh after each change.
        counts = Tally(accepted, dismissed, labelled, last_confirmed_ms)
        sources = all_sources.get(entry_id, ())
        state = entry_state(
            demoted=demoted_ms is not None,
            admitted=admission is None,
            counts=counts,
            expires_ms=expires_ms,
            now_ms=self.now,
        )
        scope = Scope.ACCOUNT if widening.widens(repository_id, key) else Scope.REPOSITORY
        repository = self.names.get(repository_id, "")
        share = self._shared.__getitem__
        lens = share(lens)
        card = Card.stored(
            entry_id, key, revision, repository, scope.value, lens, title, text, associations
        )
        return Lesson(
            card,
            share(repository_id),
            scope,
            state,
            sources,
            counts.accepted,
            share(last_confirmed_ms),
            share(expires_ms),
            demoted_ms is not None,
        )


class _Shared(dict[Any, Any]):
    """One object per distinct value: the first seen stands for every equal one."""

    def __missing__(self, value: Any) -> Any:
        self[value] = value
        return value


def _chunks(ids: Sequence[str], size: int = 500) -> Iterable[Sequence[str]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _merged_query(account: Any) -> Any:
    """The entry ids of the account's current acceptances by a widening source (a merged fix);
    ``account``: its id, or a parameter that stands for it."""
    return select(Receipt.entry_id).where(
        Receipt.account_id == account,
        # One comparison a source, not IN: a prepared statement cannot expand a list.
        or_(*(Receipt.source == source for source in sorted(WIDENING_SOURCES))),
        Receipt.decision == Decision.ACCEPTED.value,
        Receipt.superseded.is_(False),
    )


# The live entries as a read for recall takes them: its columns, the account, the link numbers.
_LIVE = select(*ENTRY_COLUMNS, Entry.account_id, Entry.link_numbers).where(
    Entry.deleted_ms.is_(None)
)
# Built once: a cold build reads a whole account with these (on SQLite's driver), and building
# them again costs a small account's build a tenth of its time.
_ACCOUNT_ENTRIES = Prepared(_LIVE.where(Entry.account_id == bindparam("account_id")))
_ACCOUNT_MERGED = Prepared(_merged_query(bindparam("account_id")))


def read_lessons(
    conn: Connection,
    account_id: int,
    *,
    now: int,
    ids: Sequence[str] | None = None,
    each_batch: Callable[[list[Lesson], list[bytes | None]], None] | None = None,
) -> list[Lesson]:
    """The account's live entries as lessons with counts but no receipts (recall's read): all
    of them, or those of ``ids``. Widening looks at the merged fix PRs of the entries read, so a
    partial read must hold every entry of the mechanisms it touches. What is read is handed to
    ``each_batch`` as it is read, with each entry's link numbers (a snapshot indexes it on the
    way)."""
    reader = _Reader(conn, account_id, now)
    merged: set[str] = set()
    batches: list[Iterable[Sequence[Any]]] = []
    if ids is None:
        mine = {"account_id": account_id}
        merged.update(row[0] for row in _ACCOUNT_MERGED.rows(conn, mine))
        batches.append(_ACCOUNT_ENTRIES.batches(conn, mine, ROW_BATCH))
    else:
        # By the entries' ids alone, the account checked on each entry row (a receipt's entry
        # is of its account): with the account in the WHERE clause, SQLite's planner walks the
        # account's whole index instead.
        merged_query = _merged_query(account_id)
        for chunk in _chunks(ids):
            merged.update(conn.execute(merged_query.where(Receipt.entry_id.in_(chunk))).scalars())
            batches.append(_of_account(conn, _LIVE.where(Entry.id.in_(chunk)), account_id))
    widening = Widening(_merged_keys(conn, account_id, sorted(merged)))
    lessons: list[Lesson] = []
    # In batches: a build's rows are freed as it goes, not held for the whole account. The
    # entries are read after the merged receipts: a statement runs when its batches are asked for.
    for batch in chain.from_iterable(batches):
        made = reader.lessons(batch, widening)
        if each_batch is not None:
            each_batch(made, [row[-1] for row in batch])
        lessons.extend(made)
    return lessons


def _of_account(conn: Connection, query: Any, account_id: int) -> Iterator[list[Any]]:
    """Those rows of ``query`` (entry rows with their ``account_id``) that are the account's."""
    for batch in conn.execute(query).partitions(ROW_BATCH):
        yield [row for row in batch if row.account_id == account_id]


def _merged_keys(conn: Connection, account_id: int, ids: Sequence[str]) -> list[tuple[int, str]]:
    """``(repository_id, key)`` of the live entries among ``ids`` (those holding a merged fix)."""
    found: list[tuple[int, str]] = []
    for chunk in _chunks(ids):
        rows = conn.execute(
            select(Entry.repository_id, Entry.key, Entry.account_id).where(
                Entry.id.in_(chunk), Entry.deleted_ms.is_(None)
            )
        )
        found.extend((r.repository_id, r.key) for r in rows if r.account_id == account_id)
    return found


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
    merged = {entry_id for entry_id, own in receipts.items() if any(map(_merged, own))}
    proofs = proofs_of_account(conn, account_id)
    sources = {
        entry_id: tuple(_source(r, proofs) for r in own) for entry_id, own in receipts.items()
    }
    widening = Widening((row.repository_id, row.key) for row in rows if row.id in merged)
    lessons = reader.lessons(rows, widening, sources)
    lessons.sort(key=lambda lesson: (lesson.repository, lesson.key, lesson.id))
    return lessons
