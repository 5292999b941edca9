"""The review ledger: per repository, what was reviewed, suggested, decided and handed."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, func, select

from continual.memory import hits_by_repository, states_by_repository
from continual.recall.snapshot import Lesson, load_lessons
from continual.tables import (
    Agreement,
    CallRecordRow,
    CallStatus,
    Injection,
    Receipt,
    Repository,
    ReviewRecord,
    ReviewState,
    Suggestion,
)
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


def _review_counts(conn: Connection, account_id: int) -> dict[int, dict[str, Any]]:
    """Per repository: reviews and how many were posted; calls by status; failures by seat."""
    out: defaultdict[int, dict[str, Any]] = defaultdict(
        lambda: {"reviews": 0, "posted": 0, "calls": Counter(), "failures": Counter()}
    )
    for repository_id, state, count in conn.execute(
        select(ReviewRecord.repository_id, ReviewRecord.state, func.count())
        .where(ReviewRecord.account_id == account_id)
        .group_by(ReviewRecord.repository_id, ReviewRecord.state)
    ).all():
        out[repository_id]["reviews"] += count
        out[repository_id]["posted"] += count if state == ReviewState.POSTED.value else 0
    for repository_id, seat, status, reason, count in conn.execute(
        select(
            ReviewRecord.repository_id,
            CallRecordRow.seat,
            CallRecordRow.status,
            CallRecordRow.reason,
            func.count(),
        )
        .join(ReviewRecord, ReviewRecord.id == CallRecordRow.review_id)
        .where(CallRecordRow.account_id == account_id)
        .group_by(
            ReviewRecord.repository_id,
            CallRecordRow.seat,
            CallRecordRow.status,
            CallRecordRow.reason,
        )
    ).all():
        out[repository_id]["calls"][status] += count
        if status == CallStatus.FAILED.value:
            out[repository_id]["failures"][(seat, reason or "unknown")] += count
    return dict(out)


def _agreements(conn: Connection, account_id: int) -> Counter[str]:
    """How many other seats reported each suggestion too (recorded, never counted as acceptance)."""
    return Counter(
        conn.execute(
            select(Agreement.suggestion_id).where(Agreement.account_id == account_id)
        ).scalars()
    )


def _rules(conn: Connection, account_id: int) -> dict[int, list[dict[str, Any]]]:
    """Per repository: how many current decisions each rule made (so a maintainer sees why)."""
    rows = conn.execute(
        select(
            Suggestion.repository_id,
            Receipt.rule,
            Receipt.decision,
            Receipt.source,
            func.count(),
        )
        .join(Suggestion, Suggestion.id == Receipt.suggestion_id)
        .where(Receipt.account_id == account_id, Receipt.superseded.is_(False))
        .group_by(Suggestion.repository_id, Receipt.rule, Receipt.decision, Receipt.source)
    ).all()
    out: defaultdict[int, list[dict[str, Any]]] = defaultdict(list)
    for repository_id, rule, decision, source, count in sorted(
        rows, key=lambda r: (r[0], -r[4], r[1] or "")
    ):
        out[repository_id].append(
            {"rule": rule or "", "decision": decision, "source": source, "count": count}
        )
    return dict(out)


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
            Suggestion.proven,
        ).where(Suggestion.account_id == account_id)
    ).all()
    lessons = load_lessons(conn, account_id, now=now)
    reviews = _review_counts(conn, account_id)
    agreements = _agreements(conn, account_id)
    rules = _rules(conn, account_id)
    memory = states_by_repository(conn, account_id, now_ms=now)
    hits = hits_by_repository(conn, account_id)
    result: list[dict[str, Any]] = []
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
            guided = s.set_sha256 in guided_sets or s.review_id in guided_reviews
            (with_lessons if guided else without_lessons).append(outcome)
        states = Counter(x.state.value for x in lessons if x.repository_id == repository_id)
        counted = reviews.get(repository_id) or {
            "reviews": 0,
            "posted": 0,
            "calls": Counter(),
            "failures": Counter(),
        }
        record: dict[str, Any] = {
            "repository": full_name,
            "reviews": counted["reviews"],
            "posted": counted["posted"],
            "calls": {
                "ok": counted["calls"][CallStatus.OK.value],
                "failed": counted["calls"][CallStatus.FAILED.value],
                "skipped": counted["calls"][CallStatus.SKIPPED.value],
                "failures": [
                    {"seat": seat, "reason": reason, "count": count}
                    for (seat, reason), count in sorted(counted["failures"].items())
                ],
            },
            "suggestions": _counts(outcomes.get(s.id, PENDING) for s in mine),
            "by_seat_and_lens": [
                {
                    "seat": seat,
                    "lens": lens,
                    **_counts(found),
                    "proven": extra[(seat, lens)]["proven"],
                    "agreements": extra[(seat, lens)]["agreements"],
                }
                for (seat, lens), found in sorted(by_seat.items())
            ],
            "decisions_by_rule": rules.get(repository_id, []),
            "acceptance": {
                "with_lessons": _counts(with_lessons),
                "without_lessons": _counts(without_lessons),
            },
            "entries": {state.value: states[state.value] for state in EntryState},
            "hits": hits.get(repository_id, 0),
            "memory": dict(sorted(memory.get(repository_id, Counter()).items())),
        }
        if brain:
            record["lessons"] = [
                _lesson_json(x) for x in lessons if x.repository_id == repository_id
            ]
            record["handed"] = _handed_reviews(conn, account_id, repository_id)
        result.append(record)
    return result
