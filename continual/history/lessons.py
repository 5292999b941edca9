"""What a back-fill publishes beyond its facts: the lessons a discovery seat found (kept after
their checks), other bots' refused suggestions as suppression candidates, a person's decisions
on both (a confirmed refusal becomes a suppression), and the active lessons reviews are handed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, insert, select, update

from continual.history.active import LESSON_SUBJECT
from continual.history.discovery import Discovered
from continual.history.evidence import SHORT_SHA, gist
from continual.history.refusals import BotRefusal
from continual.history.suppressed import suppress_refusal
from continual.secrets import redact
from continual.tables import HistoryComment, HistoryLesson, HistoryRefusal, TombstonedSource
from continual.times import to_ms
from continual.tombstones import hold_sources

SOURCE_PREFIX = "history:"  # a comment id as a tombstoned source


class RefusalState(StrEnum):
    SEEDED = "seeded"  # read by a run not yet published
    CANDIDATE = "candidate"  # published: waits for a person
    CONFIRMED = "confirmed"  # a person confirmed it: a suppression until a person lifts it
    REJECTED = "rejected"  # a person rejected it: never handed


class Missing(LookupError):
    """No such lesson or candidate in the repository (or it is already decided)."""


def held_comments(conn: Connection, account_id: int) -> set[int]:
    """The comments whose lesson a person deleted: they never make a lesson again."""
    rows = conn.execute(
        select(TombstonedSource.suggestion_id).where(
            TombstonedSource.account_id == account_id,
            TombstonedSource.suggestion_id.like(f"{SOURCE_PREFIX}%"),
        )
    ).scalars()
    return {
        int(row.removeprefix(SOURCE_PREFIX))
        for row in rows
        if row[len(SOURCE_PREFIX) :].isdecimal()
    }


def known_keys(conn: Connection, repository_id: int) -> set[str]:
    """The keys of the repository's lessons, deleted ones included."""
    return set(
        conn.execute(
            select(HistoryLesson.key).where(HistoryLesson.repository_id == repository_id)
        ).scalars()
    )


def save_lessons(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    lessons: Sequence[Discovered],
    seat: str,
    publication_id: int,
    now_ms: int,
) -> None:
    """Keep the lessons found (each key once: one already kept is skipped)."""
    held = known_keys(conn, repository_id)
    rows = [
        {
            "account_id": account_id,
            "repository_id": repository_id,
            "key": lesson.key,
            "title": redact(lesson.title),
            "text": redact(lesson.text),
            "state": lesson.state.value,
            "comment_ids": json.dumps(list(lesson.comment_ids)),
            "prs": json.dumps(list(lesson.prs)),
            "quotes": json.dumps({str(k): redact(v) for k, v in lesson.quotes.items()}),
            "seat": seat,
            "publication_id": publication_id,
            "created_ms": now_ms,
        }
        for lesson in lessons
        if lesson.key not in held
    ]
    if rows:
        conn.execute(insert(HistoryLesson), rows)


def save_refusals(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    pr: int,
    generation: int,
    refusals: Sequence[BotRefusal],
    now_ms: int,
) -> None:
    """Seed the refusals read in one pull request (one already seeded is left as it was)."""
    ids = [refusal.suggestion.id for refusal in refusals]
    if not ids:
        return
    held = set(conn.execute(select(HistoryRefusal.id).where(HistoryRefusal.id.in_(ids))).scalars())
    rows = [
        {
            "id": r.suggestion.id,
            "account_id": account_id,
            "repository_id": repository_id,
            "pr": pr,
            "generation": generation,
            "bot": r.suggestion.author.login,
            "path": r.suggestion.path,
            "line": r.suggestion.line,
            "body": redact(gist(r.suggestion.body)),
            "url": r.suggestion.url,
            "maintainer": r.reply.author.login,
            "association": r.reply.author.association,
            "reply_id": r.reply.id,
            "reply_url": r.reply.url,
            "quote": redact(r.quote),
            "reason": r.reason,
            "rule": r.rule[:128],
            "evidence": r.evidence,
            "state": RefusalState.SEEDED.value,
            "created_ms": to_ms(r.reply.created_at),
        }
        for r in refusals
        if r.suggestion.id not in held
    ]
    if rows:
        conn.execute(insert(HistoryRefusal), rows)


def seed_published(conn: Connection, repository_id: int) -> int:
    """The seeded refusals become candidates (in the publication's transaction); answers how many."""
    return conn.execute(
        update(HistoryRefusal)
        .where(
            HistoryRefusal.repository_id == repository_id,
            HistoryRefusal.state == RefusalState.SEEDED.value,
        )
        .values(state=RefusalState.CANDIDATE.value)
    ).rowcount


def delete_lesson(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    lesson_id: int,
    actor: str,
    now_ms: int,
) -> None:
    """A person deletes a history lesson: its words go, its comments are held (never a lesson
    again), the row stays as the tombstone of its key."""
    row = conn.execute(
        select(HistoryLesson.comment_ids).where(
            HistoryLesson.id == lesson_id,
            HistoryLesson.account_id == account_id,
            HistoryLesson.repository_id == repository_id,
            HistoryLesson.deleted_ms.is_(None),
        )
    ).first()
    if row is None:
        raise Missing(f"history lesson {lesson_id}")
    conn.execute(
        update(HistoryLesson)
        .where(HistoryLesson.id == lesson_id)
        .values(title="", text="", quotes="{}", deleted_ms=now_ms, deleted_by=actor)
    )
    sources = [f"{SOURCE_PREFIX}{i}" for i in json.loads(row.comment_ids)]
    hold_sources(conn, account_id, f"{LESSON_SUBJECT}{lesson_id}", sources, now=now_ms)


def decide_refusal(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    refusal_id: int,
    confirm: bool,
    actor: str,
    now_ms: int,
) -> None:
    """A person confirms or rejects a published suppression candidate; a confirmed one becomes
    a suppression of the bot's mechanism, in the same transaction (continual.history.suppressed)."""
    state = RefusalState.CONFIRMED if confirm else RefusalState.REJECTED
    done = conn.execute(
        update(HistoryRefusal)
        .where(
            HistoryRefusal.id == refusal_id,
            HistoryRefusal.account_id == account_id,
            HistoryRefusal.repository_id == repository_id,
            HistoryRefusal.state == RefusalState.CANDIDATE.value,
        )
        .values(state=state.value, decided_by=actor, decided_ms=now_ms)
    ).rowcount
    if done != 1:
        raise Missing(f"suppression candidate {refusal_id}")
    if confirm:
        row = conn.execute(
            select(*HistoryRefusal.__table__.c).where(HistoryRefusal.id == refusal_id)
        ).one()
        suppress_refusal(conn, row, actor=actor, now_ms=now_ms)


def cited_comments(conn: Connection, ids: Sequence[int]) -> list[Any]:
    """The stored comments a lesson cites (those still kept), oldest first."""
    if not ids:
        return []
    return list(
        conn.execute(
            select(*HistoryComment.__table__.c)
            .where(HistoryComment.id.in_(list(ids)))
            .order_by(HistoryComment.created_ms, HistoryComment.id)
        ).all()
    )


def short(sha: str | None) -> str:
    return (sha or "")[:SHORT_SHA]
