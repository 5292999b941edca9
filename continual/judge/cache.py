"""The judge's answers, kept per reply revision so that each revision is asked about once."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Row, insert, select
from sqlalchemy.exc import IntegrityError

from continual.judge.grounding import Outcome, judge_rule
from continual.replies import Verdict
from continual.secrets import redact_optional
from continual.tables import JudgeVerdictRow
from continual.times import to_ms
from continual.values import Decision, Reason
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
    """What came of asking about one reply revision: the outcome, the verdict it grounds (if
    any) and, for a failure, what went wrong. Every outcome is final for that revision."""

    outcome: Outcome
    verdict: Verdict | None
    detail: str | None = None


def _verdict(row: Row[Any]) -> Verdict | None:
    if row.outcome == Outcome.ACCEPTED:
        return Verdict(Decision.ACCEPTED, None, judge_rule(row.seat), row.quote or "")
    if row.outcome == Outcome.DISMISSED and row.reason is not None:
        return Verdict(
            Decision.DISMISSED, Reason(row.reason), judge_rule(row.seat), row.quote or ""
        )
    return None


def judgements(
    conn: Connection, repository_id: int, seat: str, revisions: list[Revision]
) -> dict[Revision, Judgement]:
    """What `seat` answered about these reply revisions in one repository, where it was asked."""
    if not revisions:
        return {}
    wanted = set(revisions)
    rows = conn.execute(
        select(JudgeVerdictRow).where(
            JudgeVerdictRow.repository_id == repository_id,
            JudgeVerdictRow.seat == seat,
            JudgeVerdictRow.reply_id.in_({revision.reply_id for revision in revisions}),
        )
    ).all()
    found: dict[Revision, Judgement] = {}
    for row in rows:
        revision = Revision(row.reply_id, row.reply_updated_ms, row.body_sha256)
        if revision in wanted:
            found[revision] = Judgement(Outcome(row.outcome), _verdict(row), row.detail)
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
    row = insert(JudgeVerdictRow).values(
        account_id=account_id,
        repository_id=repository_id,
        seat=seat,
        reply_id=revision.reply_id,
        reply_updated_ms=revision.updated_ms,
        body_sha256=revision.body_sha256,
        outcome=judgement.outcome.value,
        reason=verdict.reason.value if verdict is not None and verdict.reason else None,
        quote=redact_optional(verdict.span if verdict is not None else None),
        detail=redact_optional(judgement.detail),
        asked_ms=now,
    )
    try:
        with conn.begin_nested():
            conn.execute(row)
    except IntegrityError:  # kept by a concurrent run in the meantime: that answer stands
        return
