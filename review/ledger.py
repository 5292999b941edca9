"""The review ledger: per repository, what reviews ran, what they suggested and what became of it."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, Row, func, select

from continual.lifecycle import ReceiptFacts, entry_state, tally
from continual.schema import Entry, Receipt, Repository, Suggestion
from continual.schema_reviews import (
    Agreement,
    CallRecordRow,
    CallStatus,
    MemoryHit,
    MemoryItemRow,
    ReviewRecord,
    ReviewState,
)
from continual.values import Decision, EntryState

PENDING = "pending"


@dataclass(frozen=True)
class Rate:
    """Decided suggestions and the share accepted (None when nothing was decided)."""

    accepted: int = 0
    dismissed: int = 0
    pending: int = 0

    @property
    def rate(self) -> float | None:
        decided = self.accepted + self.dismissed
        return self.accepted / decided if decided else None


@dataclass(frozen=True)
class SeatLens:
    """Suggestions of one seat under one lens and their outcomes."""

    seat: str
    lens: str
    suggestions: int
    accepted: int
    dismissed: int
    pending: int
    proven: int
    agreements: int


@dataclass(frozen=True)
class CallFailures:
    seat: str
    reason: str
    count: int


@dataclass(frozen=True)
class RepositoryLedger:
    repository: str
    reviews: int
    posted: int
    calls_ok: int
    calls_failed: int
    calls_skipped: int
    failures: tuple[CallFailures, ...]
    by_seat_lens: tuple[SeatLens, ...]
    with_lessons: Rate
    without_lessons: Rate
    hits: int
    memory: dict[str, int] = field(default_factory=dict)
    entries: dict[str, int] = field(default_factory=dict)


def entries_with_state(
    conn: Connection, repository_id: int, now: int
) -> list[tuple[Row[Any], EntryState]]:
    """The repository's live entries, each with its state (active, candidate, demoted, expired)."""
    entries = conn.execute(
        select(Entry).where(Entry.repository_id == repository_id, Entry.deleted_ms.is_(None))
    ).all()
    receipts = conn.execute(
        select(Receipt.entry_id, Receipt.decision, Receipt.lab, Receipt.at_ms, Receipt.superseded)
        .join(Entry, Entry.id == Receipt.entry_id)
        .where(Entry.repository_id == repository_id)
    ).all()
    facts: dict[str, list[ReceiptFacts]] = {}
    for r in receipts:
        facts.setdefault(r.entry_id, []).append(
            ReceiptFacts(Decision(r.decision), r.lab, r.at_ms, bool(r.superseded))
        )
    return [
        (
            entry,
            entry_state(
                demoted=entry.demoted_ms is not None,
                admitted=entry.admission is None,
                counts=tally(facts.get(entry.id, ())),
                expires_ms=entry.expires_ms,
                now_ms=now,
            ),
        )
        for entry in entries
    ]


def _outcomes(conn: Connection, suggestion_ids: Iterable[str]) -> dict[str, str]:
    """Each suggestion's current outcome: accepted wins over dismissed; else pending."""
    ids = list(suggestion_ids)
    found: dict[str, str] = {}
    if not ids:
        return found
    rows = conn.execute(
        select(Receipt.suggestion_id, Receipt.decision).where(
            Receipt.suggestion_id.in_(ids), Receipt.superseded.is_(False)
        )
    ).all()
    for row in rows:
        if found.get(row.suggestion_id) != Decision.ACCEPTED.value:
            found[row.suggestion_id] = row.decision
    return found


def _repository_ledger(
    conn: Connection, repository_id: int, name: str, now: int
) -> RepositoryLedger:
    reviews = conn.execute(
        select(ReviewRecord.id, ReviewRecord.state, ReviewRecord.lessons).where(
            ReviewRecord.repository_id == repository_id
        )
    ).all()
    with_lessons = {r.id for r in reviews if r.lessons > 0}
    calls = conn.execute(
        select(CallRecordRow.seat, CallRecordRow.status, CallRecordRow.reason, func.count())
        .join(ReviewRecord, ReviewRecord.id == CallRecordRow.review_id)
        .where(ReviewRecord.repository_id == repository_id)
        .group_by(CallRecordRow.seat, CallRecordRow.status, CallRecordRow.reason)
    ).all()
    statuses: Counter[str] = Counter()
    failures: list[CallFailures] = []
    for seat, status, reason, count in calls:
        statuses[status] += count
        if status == CallStatus.FAILED.value:
            failures.append(CallFailures(seat, reason or "unknown", count))
    suggestions = conn.execute(
        select(
            Suggestion.id, Suggestion.seat, Suggestion.lens, Suggestion.proven, Suggestion.review_id
        ).where(Suggestion.repository_id == repository_id)
    ).all()
    outcomes = _outcomes(conn, (s.id for s in suggestions))
    agreed = Counter(
        conn.execute(
            select(Agreement.suggestion_id)
            .join(Suggestion, Suggestion.id == Agreement.suggestion_id)
            .where(Suggestion.repository_id == repository_id)
        ).scalars()
    )
    groups: defaultdict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    guided: dict[bool, Counter[str]] = {True: Counter(), False: Counter()}
    for s in suggestions:
        outcome = outcomes.get(s.id, PENDING)
        counts = groups[(s.seat, s.lens)]
        counts["suggestions"] += 1
        counts[outcome] += 1
        counts["proven"] += bool(s.proven)
        counts["agreements"] += agreed.get(s.id, 0)
        guided[s.review_id in with_lessons][outcome] += 1
    by_seat_lens = tuple(
        SeatLens(
            seat,
            lens,
            c["suggestions"],
            c[Decision.ACCEPTED.value],
            c[Decision.DISMISSED.value],
            c[PENDING],
            c["proven"],
            c["agreements"],
        )
        for (seat, lens), c in sorted(groups.items())
    )
    hits = conn.execute(
        select(func.count()).select_from(MemoryHit).where(MemoryHit.repository_id == repository_id)
    ).scalar_one()
    memory: Counter[str] = Counter()
    for state, expires_ms in conn.execute(
        select(MemoryItemRow.state, MemoryItemRow.expires_ms).where(
            MemoryItemRow.repository_id == repository_id
        )
    ).all():
        memory["expired" if expires_ms <= now else state] += 1
    entries = Counter(state.value for _, state in entries_with_state(conn, repository_id, now))
    return RepositoryLedger(
        repository=name,
        reviews=len(reviews),
        posted=sum(1 for r in reviews if r.state == ReviewState.POSTED.value),
        calls_ok=statuses[CallStatus.OK.value],
        calls_failed=statuses[CallStatus.FAILED.value],
        calls_skipped=statuses[CallStatus.SKIPPED.value],
        failures=tuple(failures),
        by_seat_lens=by_seat_lens,
        with_lessons=_rate(guided[True]),
        without_lessons=_rate(guided[False]),
        hits=hits,
        memory=dict(memory),
        entries=dict(entries),
    )


def _rate(counts: Counter[str]) -> Rate:
    return Rate(counts[Decision.ACCEPTED.value], counts[Decision.DISMISSED.value], counts[PENDING])


def review_ledger(
    engine: Engine, *, now: int, account_id: int | None = None, repository: str | None = None
) -> list[RepositoryLedger]:
    """The ledger of every repository with a review (of one account, or one repository)."""
    query = (
        select(Repository.id, Repository.full_name)
        .where(Repository.id.in_(select(ReviewRecord.repository_id)))
        .order_by(Repository.full_name)
    )
    if account_id is not None:
        query = query.where(Repository.account_id == account_id)
    if repository is not None:
        query = query.where(Repository.full_name == repository)
    with engine.connect() as conn:
        return [
            _repository_ledger(conn, repo_id, name, now)
            for repo_id, name in conn.execute(query).all()
        ]
