"""The frozen recall snapshot of one account: lessons with their receipts, state, scope and cards."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import Connection, select

from continual.lifecycle import ReceiptFacts, entry_state, tally
from continual.proofs import ProofEvidence, proofs_of_account
from continual.recall.index import Card, RecallIndex
from continual.tables import Account, Entry, Receipt, Repository, Suggestion
from continual.values import Decision, EntryState, Scope, Source

# The only source that widens a lesson to its account (docs/writeback.md, "Entries and receipts");
# a proof never does (continual.proofs).
WIDENING_SOURCES = frozenset({Source.FIX_PR.value})


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
    """One live entry with everything recall and the API need: state, scope and receipts."""

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
    associations: Mapping[str, Any]

    def card(self) -> Card:
        links = self.associations
        return Card(
            id=self.id,
            key=self.key,
            revision=self.revision,
            repository=self.repository,
            scope=self.scope.value,
            lens=self.lens,
            title=self.title,
            text=self.text,
            files=tuple(links.get("files", ())),
            identifiers=tuple(links.get("identifiers", ())),
            keyword_groups=tuple(tuple(g) for g in links.get("keyword_groups", ())),
            folders=tuple(links.get("folders", ())),
        )


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


def _receipts_by_entry(conn: Connection, account_id: int) -> dict[str, list[Any]]:
    rows = conn.execute(
        select(Receipt, Suggestion.review_id)
        .join(Suggestion, Suggestion.id == Receipt.suggestion_id)
        .where(Receipt.account_id == account_id)
        .order_by(Receipt.id)
    ).all()
    grouped: defaultdict[str, list[Any]] = defaultdict(list)
    for row in rows:
        grouped[row.entry_id].append(row)
    return grouped


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


def load_lessons(conn: Connection, account_id: int, *, now: int) -> list[Lesson]:
    """Every live entry of the account, ordered by repository, key and id; nothing else read."""
    names = dict(
        conn.execute(
            select(Repository.id, Repository.full_name).where(Repository.account_id == account_id)
        ).all()
    )
    rows = conn.execute(
        select(Entry).where(Entry.account_id == account_id, Entry.deleted_ms.is_(None))
    ).all()
    receipts = _receipts_by_entry(conn, account_id)
    proofs = proofs_of_account(conn, account_id)
    merged = [
        (entry.repository_id, entry.key)
        for entry in rows
        for r in receipts.get(entry.id, ())
        if r.source in WIDENING_SOURCES
        and r.decision == Decision.ACCEPTED.value
        and not r.superseded
    ]
    wide = widened(((e.id, e.repository_id, e.key) for e in rows), merged)
    lessons: list[Lesson] = []
    for entry in rows:
        own = receipts.get(entry.id, [])
        counts = tally(
            ReceiptFacts(Decision(r.decision), r.lab, r.at_ms, bool(r.superseded)) for r in own
        )
        state = entry_state(
            demoted=entry.demoted_ms is not None,
            admitted=entry.admission is None,
            counts=counts,
            expires_ms=entry.expires_ms,
            now_ms=now,
        )
        lessons.append(
            Lesson(
                id=entry.id,
                key=entry.key,
                repository_id=entry.repository_id,
                repository=names.get(entry.repository_id, ""),
                scope=Scope.ACCOUNT if entry.id in wide else Scope.REPOSITORY,
                lens=entry.lens,
                title=entry.title,
                text=entry.text,
                state=state,
                revision=entry.revision,
                sources=tuple(_source(r, proofs) for r in own),
                confirmations=counts.accepted,
                last_confirmed_ms=entry.last_confirmed_ms,
                expires_ms=entry.expires_ms,
                associations=orjson.loads(entry.associations or "{}"),
            )
        )
    lessons.sort(key=lambda lesson: (lesson.repository, lesson.key, lesson.id))
    return lessons


def _visibility(card: Card, repository: str) -> int:
    """Which of several entries with one key a repository sees (the index's rule): its own
    entry (2), an account-scoped one born in it (1), another account-scoped one (0), none (-1)."""
    if card.scope == Scope.ACCOUNT:
        return 1 if card.repository == repository else 0
    return 2 if card.repository == repository else -1


@dataclass(frozen=True, slots=True)
class Snapshot:
    """An immutable view of one account's lessons at one moment; queries do no I/O."""

    account_id: int
    now: int
    lessons: tuple[Lesson, ...]
    index: RecallIndex

    def by_id(self) -> dict[str, Lesson]:
        return {lesson.id: lesson for lesson in self.lessons}

    def standing(self, repository: str) -> list[Card]:
        """Every active card a session in ``repository`` may be handed, one per key, in brief
        order: most confirmations, then latest confirmation, then id."""
        best: dict[str, tuple[int, Lesson]] = {}
        for lesson in self.lessons:
            if lesson.state is not EntryState.ACTIVE:
                continue
            rank = _visibility(lesson.card(), repository)
            if rank < 0:
                continue
            held = best.get(lesson.key)
            if held is None or (-rank, lesson.id) < (-held[0], held[1].id):
                best[lesson.key] = (rank, lesson)
        chosen = sorted(
            (lesson for _, lesson in best.values()),
            key=lambda x: (-x.confirmations, -(x.last_confirmed_ms or 0), x.id),
        )
        return [lesson.card() for lesson in chosen]


def build_snapshot(conn: Connection, account_id: int, *, now: int) -> Snapshot:
    """Read the account's lessons once and index the active ones."""
    lessons = load_lessons(conn, account_id, now=now)
    active = [lesson.card() for lesson in lessons if lesson.state is EntryState.ACTIVE]
    return Snapshot(account_id, now, tuple(lessons), RecallIndex.build(active))


@dataclass(frozen=True, slots=True)
class _Cached:
    generation: int
    snapshot: Snapshot


class SnapshotCache:
    """Snapshots per account, reused while the account's entries stay as they were.

    Every change of an entry bumps the account's `store_generation` in the same transaction, so
    one primary-key read tells a stale snapshot; `max_age_ms` bounds how long a snapshot's clock
    may lag (expiry). Building a snapshot reads and indexes every lesson of the account, which at
    100,000 entries takes seconds; a hit costs that one read.
    """

    def __init__(self, *, max_age_ms: int = 60_000, max_accounts: int = 64) -> None:
        self.max_age_ms = max_age_ms
        self.max_accounts = max_accounts
        self._items: dict[int, _Cached] = {}
        self._lock = threading.Lock()
        self.builds = 0

    def get(self, conn: Connection, account_id: int, *, now: int) -> Snapshot:
        generation = int(
            conn.execute(
                select(Account.store_generation).where(Account.id == account_id)
            ).scalar_one_or_none()
            or 0
        )
        with self._lock:
            cached = self._items.get(account_id)
        if (
            cached is not None
            and cached.generation == generation
            and 0 <= now - cached.snapshot.now < self.max_age_ms
        ):
            return cached.snapshot
        snapshot = build_snapshot(conn, account_id, now=now)
        with self._lock:
            self.builds += 1
            if len(self._items) >= self.max_accounts and account_id not in self._items:
                self._items.pop(next(iter(self._items)))
            self._items[account_id] = _Cached(generation, snapshot)
        return snapshot


def lessons_of(lessons: Sequence[Lesson], repository: str | None) -> list[Lesson]:
    """The lessons of one repository (all with None)."""
    return [x for x in lessons if repository is None or x.repository == repository]
