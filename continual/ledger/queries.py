"""The ledger's reads of one account: outcomes, guidance, reviews, calls, agreements and rules."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass

from sqlalchemy import Connection, func, select

from continual.history.suppressed import REFUSED_PREFIX
from continual.ledger.values import (
    BoundDecision,
    CallFailure,
    Calls,
    EntryRevision,
    ReviewHanded,
    RuleCount,
    signal_of,
)
from continual.summary import is_summary_id
from continual.tables import (
    CallStatus,
    Injection,
    Receipt,
    ReviewAgreement,
    ReviewCallRow,
    ReviewRow,
    ReviewState,
    Suggestion,
    SuppressedFinding,
)
from continual.values import Decision, Surface

NO_CALLS = Calls(ok=0, failed=0, skipped=0, failures=())


def outcomes(conn: Connection, account_id: int) -> dict[str, str]:
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


def guided(conn: Connection, account_id: int) -> tuple[set[str], set[str]]:
    """Guidance sets and review sessions that were handed at least one lesson (a memory summary
    alone is not a lesson)."""
    rows = conn.execute(
        select(
            Injection.set_sha256, Injection.session_id, Injection.surface, Injection.entries
        ).where(Injection.account_id == account_id)
    ).all()
    lessons = [r for r in rows if any(not is_summary_id(i) for i, _ in json.loads(r.entries))]
    sets = {r.set_sha256 for r in lessons}
    reviews = {r.session_id for r in lessons if r.surface == Surface.REVIEW.value}
    return sets, reviews


@dataclass(frozen=True, slots=True)
class Found:
    """One suggestion, with what the ledger groups and joins it by."""

    id: str
    repository_id: int
    seat: str
    lens: str
    set_sha256: str | None
    review_id: str | None
    proven: bool
    resolved: bool  # its thread is resolved on GitHub (evidence, not a decision)
    created_ms: int

    def guided(self, sets: set[str], reviews: set[str]) -> bool:
        """Whether its review was handed lessons (by guidance set, or by review session)."""
        return self.set_sha256 in sets or self.review_id in reviews


def suggestions(conn: Connection, account_id: int) -> list[Found]:
    """Every suggestion of the account its reviews posted (not the other bots' suggestions a
    confirmed history refusal is stored as)."""
    rows = conn.execute(
        select(
            Suggestion.id,
            Suggestion.repository_id,
            Suggestion.seat,
            Suggestion.lens,
            Suggestion.set_sha256,
            Suggestion.review_id,
            Suggestion.proven,
            Suggestion.resolved_by.is_not(None),
            Suggestion.created_ms,
        ).where(
            Suggestion.account_id == account_id,
            Suggestion.id.not_like(f"{REFUSED_PREFIX}%"),
        )
    ).all()
    return [Found(*row) for row in rows]


def reviews(conn: Connection, account_id: int) -> dict[int, tuple[int, int]]:
    """Per repository: how many reviews ran and how many of them were posted."""
    out: defaultdict[int, tuple[int, int]] = defaultdict(lambda: (0, 0))
    for repository_id, state, count in conn.execute(
        select(ReviewRow.repository_id, ReviewRow.state, func.count())
        .where(ReviewRow.account_id == account_id)
        .group_by(ReviewRow.repository_id, ReviewRow.state)
    ).all():
        total, posted = out[repository_id]
        out[repository_id] = (
            total + count,
            posted + (count if state == ReviewState.POSTED.value else 0),
        )
    return dict(out)


def calls(conn: Connection, account_id: int) -> dict[int, Calls]:
    """Per repository: seat calls by status, and the failures by seat and reason."""
    statuses: defaultdict[int, Counter[str]] = defaultdict(Counter)
    failures: defaultdict[int, Counter[tuple[str, str]]] = defaultdict(Counter)
    for repository_id, seat, status, reason, count in conn.execute(
        select(
            ReviewRow.repository_id,
            ReviewCallRow.seat,
            ReviewCallRow.status,
            ReviewCallRow.reason,
            func.count(),
        )
        .join(ReviewRow, ReviewRow.id == ReviewCallRow.review_id)
        .where(ReviewCallRow.account_id == account_id)
        .group_by(
            ReviewRow.repository_id,
            ReviewCallRow.seat,
            ReviewCallRow.status,
            ReviewCallRow.reason,
        )
    ).all():
        statuses[repository_id][status] += count
        if status == CallStatus.FAILED.value:
            failures[repository_id][(seat, reason or "unknown")] += count
    return {
        repository_id: Calls(
            ok=tally[CallStatus.OK.value],
            failed=tally[CallStatus.FAILED.value],
            skipped=tally[CallStatus.SKIPPED.value],
            failures=tuple(
                CallFailure(seat=seat, reason=reason, count=count)
                for (seat, reason), count in sorted(failures[repository_id].items())
            ),
        )
        for repository_id, tally in statuses.items()
    }


def agreements(conn: Connection, account_id: int) -> Counter[str]:
    """How many other seats reported each suggestion too (recorded, never counted as acceptance)."""
    return Counter(
        conn.execute(
            select(ReviewAgreement.suggestion_id).where(ReviewAgreement.account_id == account_id)
        ).scalars()
    )


def suppressed(conn: Connection, account_id: int) -> dict[int, int]:
    """Per repository: findings reviews did not post because their mechanism was dismissed here."""
    rows = conn.execute(
        select(SuppressedFinding.repository_id, func.count())
        .where(SuppressedFinding.account_id == account_id)
        .group_by(SuppressedFinding.repository_id)
    ).all()
    return {int(repository_id): int(count) for repository_id, count in rows}


def rules(conn: Connection, account_id: int) -> dict[int, tuple[RuleCount, ...]]:
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
    out: defaultdict[int, list[RuleCount]] = defaultdict(list)
    for repository_id, rule, decision, source, count in sorted(
        rows, key=lambda r: (r[0], -r[4], r[1] or "")
    ):
        out[repository_id].append(
            RuleCount(rule=rule or "", decision=decision, source=source, count=count)
        )
    return {repository_id: tuple(found) for repository_id, found in out.items()}


def handed_reviews(
    conn: Connection, account_id: int, repository_id: int
) -> tuple[ReviewHanded, ...]:
    """What each review of the repository was handed, oldest first."""
    rows = conn.execute(
        select(Injection)
        .where(
            Injection.account_id == account_id,
            Injection.repository_id == repository_id,
            Injection.surface == Surface.REVIEW.value,
        )
        .order_by(Injection.at_ms, Injection.id)
    ).all()
    return tuple(
        ReviewHanded(
            review=r.session_id,
            set_sha256=r.set_sha256,
            entries=tuple(EntryRevision(id=i, revision=v) for i, v in json.loads(r.entries)),
            chars=r.chars,
            at_ms=r.at_ms,
        )
        for r in rows
    )


# The bound decisions the ledger lists per repository, newest first.
BOUND_SHOWN = 20


def held(conn: Connection, account_id: int) -> dict[int, Counter[tuple[str, str]]]:
    """Per repository: the threads' claims (a reply that has not bound) by (signal, state)."""
    out: defaultdict[int, Counter[tuple[str, str]]] = defaultdict(Counter)
    rows = conn.execute(
        select(Suggestion.repository_id, Suggestion.claim).where(
            Suggestion.account_id == account_id, Suggestion.claim.is_not(None)
        )
    ).all()
    for repository_id, claim in rows:
        try:
            value = json.loads(claim or "")
            state, rule = str(value["state"]), str(value["rule"])
        except (ValueError, KeyError, TypeError):
            continue  # not a claim this version wrote: nothing to count
        out[int(repository_id)][(signal_of(rule, "reply"), state)] += 1
    return dict(out)


def bound(conn: Connection, account_id: int) -> dict[int, list[BoundDecision]]:
    """Per repository: the current decisions the code's evidence bound, newest first."""
    rows = conn.execute(
        select(
            Suggestion.repository_id,
            Receipt.suggestion_id,
            Suggestion.path,
            Receipt.decision,
            Receipt.source,
            Receipt.rule,
            Receipt.evidence,
            Receipt.evidence_commit,
            Receipt.at_ms,
        )
        .join(Suggestion, Suggestion.id == Receipt.suggestion_id)
        .where(
            Receipt.account_id == account_id,
            Receipt.superseded.is_(False),
            Receipt.evidence.is_not(None),
        )
        .order_by(Receipt.at_ms.desc(), Receipt.id.desc())
    ).all()
    out: defaultdict[int, list[BoundDecision]] = defaultdict(list)
    for repository_id, sid, path, decision, source, rule, evidence, commit, at_ms in rows:
        out[int(repository_id)].append(
            BoundDecision(
                suggestion=sid,
                path=path,
                decision=decision,
                signal=signal_of(rule or "", source),
                rule=rule or "",
                evidence=evidence or "",
                commit=commit,
                at_ms=at_ms,
            )
        )
    return dict(out)
