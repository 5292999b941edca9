"""The review ledger: per repository, what was reviewed, suggested, decided and handed."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, func, select

from continual.recall import Lesson, load_lessons
from continual.schema import Receipt, Repository, Suggestion
from continual.schema_people import Injection
from continual.schema_reviews import CallRecordRow, MemoryHit, ReviewRecord
from continual.values import Decision, EntryState, Surface

PENDING = "pending"


def _rate(accepted: int, decided: int) -> float | None:
    return round(accepted / decided, 4) if decided else None


def _outcomes(conn: Connection, account_id: int) -> dict[str, str]:
    """Each suggestion's current outcome: accepted, dismissed (no suggestion id: pending)."""
    rows = conn.execute(
        select(Receipt.suggestion_id, Receipt.decision).where(
            Receipt.account_id == account_id, Receipt.superseded.is_(False)
        )
    ).all()
    outcome: dict[str, str] = {}
    for suggestion_id, decision in rows:
        if outcome.get(suggestion_id) != Decision.ACCEPTED.value:
            outcome[suggestion_id] = decision
    return outcome


def _guided(conn: Connection, account_id: int) -> tuple[set[str], set[str]]:
    """Guidance sets and review sessions that were handed at least one lesson."""
    rows = conn.execute(
        select(
            Injection.set_sha256, Injection.session_id, Injection.surface, Injection.entries
        ).where(Injection.account_id == account_id)
    ).all()
    sets = {r.set_sha256 for r in rows if json.loads(r.entries)}
    reviews = {
        r.session_id for r in rows if r.surface == Surface.REVIEW.value and json.loads(r.entries)
    }
    return sets, reviews


def _counts(outcomes: Iterable[str]) -> dict[str, Any]:
    tally = Counter(outcomes)
    decided = tally[Decision.ACCEPTED.value] + tally[Decision.DISMISSED.value]
    return {
        "total": sum(tally.values()),
        "accepted": tally[Decision.ACCEPTED.value],
        "dismissed": tally[Decision.DISMISSED.value],
        "pending": tally[PENDING],
        "acceptance_rate": _rate(tally[Decision.ACCEPTED.value], decided),
    }


def _lesson_json(lesson: Lesson) -> dict[str, Any]:
    return {
        "id": lesson.id,
        "key": lesson.key,
        "scope": lesson.scope.value,
        "lens": lesson.lens,
        "title": lesson.title,
        "text": lesson.text,
        "state": lesson.state.value,
        "revision": lesson.revision,
        "confirmations": lesson.confirmations,
    }


def _review_counts(
    conn: Connection, account_id: int
) -> tuple[Counter[int], dict[int, Counter[str]]]:
    reviews: Counter[int] = Counter(
        dict(
            conn.execute(
                select(ReviewRecord.repository_id, func.count())
                .where(ReviewRecord.account_id == account_id)
                .group_by(ReviewRecord.repository_id)
            ).all()
        )
    )
    calls: defaultdict[int, Counter[str]] = defaultdict(Counter)
    for repository_id, status, count in conn.execute(
        select(ReviewRecord.repository_id, CallRecordRow.status, func.count())
        .join(ReviewRecord, ReviewRecord.id == CallRecordRow.review_id)
        .where(CallRecordRow.account_id == account_id)
        .group_by(ReviewRecord.repository_id, CallRecordRow.status)
    ).all():
        calls[repository_id][status] += count
    return reviews, dict(calls)


def _handed_reviews(conn: Connection, account_id: int, repository_id: int) -> list[dict[str, Any]]:
    rows = conn.execute(
        select(Injection)
        .where(
            Injection.account_id == account_id,
            Injection.repository_id == repository_id,
            Injection.surface == Surface.REVIEW.value,
        )
        .order_by(Injection.at_ms, Injection.id)
    ).all()
    return [
        {
            "review": r.session_id,
            "set_sha256": r.set_sha256,
            "entries": [{"id": i, "revision": v} for i, v in json.loads(r.entries)],
            "chars": r.chars,
            "at_ms": r.at_ms,
        }
        for r in rows
    ]


def review_ledger(
    conn: Connection, account_id: int, *, now: int, brain: bool
) -> list[dict[str, Any]]:
    """One record per repository of the account, in name order."""
    repositories = conn.execute(
        select(Repository.id, Repository.full_name)
        .where(Repository.account_id == account_id)
        .order_by(Repository.full_name)
    ).all()
    outcomes = _outcomes(conn, account_id)
    guided_sets, guided_reviews = _guided(conn, account_id)
    suggestions = conn.execute(
        select(
            Suggestion.id,
            Suggestion.repository_id,
            Suggestion.seat,
            Suggestion.lens,
            Suggestion.set_sha256,
            Suggestion.review_id,
        ).where(Suggestion.account_id == account_id)
    ).all()
    lessons = load_lessons(conn, account_id, now=now)
    reviews, calls = _review_counts(conn, account_id)
    hits = dict(
        conn.execute(
            select(MemoryHit.repository_id, func.count())
            .where(MemoryHit.account_id == account_id)
            .group_by(MemoryHit.repository_id)
        ).all()
    )
    result: list[dict[str, Any]] = []
    for repository_id, full_name in repositories:
        mine = [s for s in suggestions if s.repository_id == repository_id]
        by_seat: defaultdict[tuple[str, str], list[str]] = defaultdict(list)
        with_lessons: list[str] = []
        without_lessons: list[str] = []
        for s in mine:
            outcome = outcomes.get(s.id, PENDING)
            by_seat[(s.seat, s.lens)].append(outcome)
            guided = s.set_sha256 in guided_sets or s.review_id in guided_reviews
            (with_lessons if guided else without_lessons).append(outcome)
        states = Counter(x.state.value for x in lessons if x.repository_id == repository_id)
        record: dict[str, Any] = {
            "repository": full_name,
            "reviews": reviews.get(repository_id, 0),
            "calls": {
                "ok": calls.get(repository_id, Counter())["ok"],
                "failed": calls.get(repository_id, Counter())["failed"],
                "skipped": calls.get(repository_id, Counter())["skipped"],
            },
            "suggestions": _counts(outcomes.get(s.id, PENDING) for s in mine),
            "by_seat_and_lens": [
                {"seat": seat, "lens": lens, **_counts(found)}
                for (seat, lens), found in sorted(by_seat.items())
            ],
            "acceptance": {
                "with_lessons": _counts(with_lessons),
                "without_lessons": _counts(without_lessons),
            },
            "entries": {state.value: states[state.value] for state in EntryState},
            "hits": hits.get(repository_id, 0),
        }
        if brain:
            record["lessons"] = [
                _lesson_json(x) for x in lessons if x.repository_id == repository_id
            ]
            record["handed"] = _handed_reviews(conn, account_id, repository_id)
        result.append(record)
    return result
