"""The review ledger of one account: per repository, what was reviewed, suggested and handed."""

from __future__ import annotations

from collections import Counter, defaultdict

from sqlalchemy import Connection, select

from continual.ledger import queries
from continual.ledger.values import (
    PENDING,
    Acceptance,
    Counts,
    EntryCounts,
    RepositoryLedger,
    SeatLensCounts,
    by_signal,
)
from continual.memory.store import hits_by_repository, states_by_repository
from continual.proofs import outcomes_by_repository
from continual.recall import load_lessons
from continual.tables import Repository
from continual.values import EntryState


def review_ledger(
    conn: Connection, account_id: int, *, now: int, brain: bool
) -> list[RepositoryLedger]:
    """One ledger per repository of the account, in name order; `brain` adds lessons and handed."""
    repositories = conn.execute(
        select(Repository.id, Repository.full_name)
        .where(Repository.account_id == account_id)
        .order_by(Repository.full_name)
    ).all()
    outcomes = queries.outcomes(conn, account_id)
    guided_sets, guided_reviews = queries.guided(conn, account_id)
    suggestions = queries.suggestions(conn, account_id)
    lessons = load_lessons(conn, account_id, now=now)
    reviews = queries.reviews(conn, account_id)
    calls = queries.calls(conn, account_id)
    agreements = queries.agreements(conn, account_id)
    rules = queries.rules(conn, account_id)
    held = queries.held(conn, account_id)
    bound = queries.bound(conn, account_id)
    memory = {
        repository_id: dict(sorted(tally.items()))
        for repository_id, tally in states_by_repository(conn, account_id, now_ms=now).items()
    }
    hits = hits_by_repository(conn, account_id)
    suppressed = queries.suppressed(conn, account_id)
    proofs = outcomes_by_repository(conn, account_id)
    result: list[RepositoryLedger] = []
    for repository_id, full_name in repositories:
        mine = [s for s in suggestions if s.repository_id == repository_id]
        by_seat: defaultdict[tuple[str, str], list[str]] = defaultdict(list)
        extra: defaultdict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        with_lessons: list[str] = []
        without_lessons: list[str] = []
        for s in mine:
            outcome = outcomes.get(s.id, PENDING)
            by_seat[(s.seat, s.lens)].append(outcome)
            extra[(s.seat, s.lens)]["proven"] += bool(s.proven)
            extra[(s.seat, s.lens)]["agreements"] += agreements.get(s.id, 0)
            guided = s.guided(guided_sets, guided_reviews)
            (with_lessons if guided else without_lessons).append(outcome)
        own_lessons = tuple(x for x in lessons if x.repository_id == repository_id)
        states = Counter(x.state.value for x in own_lessons)
        total, posted = reviews.get(repository_id, (0, 0))
        result.append(
            RepositoryLedger(
                repository=full_name,
                reviews=total,
                posted=posted,
                calls=calls.get(repository_id, queries.NO_CALLS),
                suggestions=Counts.of(outcomes.get(s.id, PENDING) for s in mine),
                by_seat_and_lens=tuple(
                    SeatLensCounts(
                        seat=seat,
                        lens=lens,
                        counts=Counts.of(found),
                        proven=extra[(seat, lens)]["proven"],
                        agreements=extra[(seat, lens)]["agreements"],
                    )
                    for (seat, lens), found in sorted(by_seat.items())
                ),
                decisions_by_rule=rules.get(repository_id, ()),
                decisions_by_signal=by_signal(
                    rules.get(repository_id, ()),
                    held.get(repository_id),
                    bound.get(repository_id, ()),
                ),
                acceptance=Acceptance(
                    with_lessons=Counts.of(with_lessons),
                    without_lessons=Counts.of(without_lessons),
                ),
                entries=EntryCounts(**{state.value: states[state.value] for state in EntryState}),
                hits=hits.get(repository_id, 0),
                memory=memory.get(repository_id, {}),
                suppressed=suppressed.get(repository_id, 0),
                resolved=sum(s.resolved for s in mine),
                bound_by_evidence=tuple(bound.get(repository_id, ())[: queries.BOUND_SHOWN]),
                proofs=proofs.get(repository_id, {}),
                lessons=own_lessons if brain else None,
                handed=queries.handed_reviews(conn, account_id, repository_id) if brain else None,
            )
        )
    return result
