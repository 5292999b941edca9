"""The judge's answers, kept per reply revision and contract so that each revision is asked about
once under the contract in force; an answer given under an older contract is never replayed."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Row, insert, select
from sqlalchemy.exc import IntegrityError

from continual.judge.grounding import CONTRACT, Outcome, Reading, reading
from continual.replies import Verdict
from continual.secrets import redact_optional
from continual.tables import JudgeVerdictRow
from continual.times import to_ms
from continual.writeback.threads import ThreadComment


@dataclass(frozen=True)
class Revision:
    """One reply as it reads now: the cache key of what the judge said about it."""

    reply_id: int
    updated_ms: int
    body_sha256: str

    @classmethod
    def of(cls, reply: ThreadComment) -> Revision:
        when = reply.updated_at or reply.created_at
        digest = hashlib.sha256(reply.body.encode("utf-8")).hexdigest()
        return cls(reply.id, to_ms(when), digest)


@dataclass(frozen=True)
class Judgement:
    """What came of asking about one reply revision: the outcome, the verdict or deferral it
    grounds (if any) and, for a failure, what went wrong. Every outcome is final for that
    revision."""

    outcome: Outcome
    verdict: Reading | None
    detail: str | None = None


def _judgement(row: Row[Any]) -> Judgement:
    """A kept answer as it was judged; a row this version cannot read decides nothing."""
    try:
        outcome = Outcome(row.outcome)
    except ValueError:
        return Judgement(Outcome.FAILED, None, f"kept outcome {row.outcome!r} is not known")
    return Judgement(
        outcome, reading(outcome, row.reason or "", row.quote or "", seat=row.seat), row.detail
    )


def judgements(
    conn: Connection, repository_id: int, seat: str, revisions: list[Revision]
) -> dict[Revision, Judgement]:
    """What `seat` answered about these reply revisions in one repository under the contract in
    force (`CONTRACT`), where it was asked."""
    if not revisions:
        return {}
    wanted = set(revisions)
    rows = conn.execute(
        select(JudgeVerdictRow).where(
            JudgeVerdictRow.repository_id == repository_id,
            JudgeVerdictRow.seat == seat,
            JudgeVerdictRow.contract == CONTRACT,
            JudgeVerdictRow.reply_id.in_({revision.reply_id for revision in revisions}),
        )
    ).all()
    found: dict[Revision, Judgement] = {}
    for row in rows:
        revision = Revision(row.reply_id, row.reply_updated_ms, row.body_sha256)
        if revision in wanted:
            found[revision] = _judgement(row)
    return found


def keep(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    seat: str,
    revision: Revision,
    judgement: Judgement,
    now: int,
) -> None:
    """Keep what came of one ask; a revision kept already (by a concurrent run) keeps its own."""
    verdict = judgement.verdict
    reason = verdict.reason if isinstance(verdict, Verdict) else None
    row = insert(JudgeVerdictRow).values(
        account_id=account_id,
        repository_id=repository_id,
        seat=seat,
        contract=CONTRACT,
        reply_id=revision.reply_id,
        reply_updated_ms=revision.updated_ms,
        body_sha256=revision.body_sha256,
        outcome=judgement.outcome.value,
        reason=reason.value if reason is not None else None,
        quote=redact_optional(verdict.span if verdict is not None else None),
        detail=redact_optional(judgement.detail),
        asked_ms=now,
    )
    try:
        with conn.begin_nested():
            conn.execute(row)
    except IntegrityError:  # kept by a concurrent run in the meantime: that answer stands
        return
