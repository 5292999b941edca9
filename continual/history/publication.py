"""One publication of a repository's history, in the caller's transaction: its facts, the
lessons found, its refusals made candidates, and the receipt saying what it published."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, insert, select, update

from continual.history.discovery import Discovered
from continual.history.evidence import Outcome
from continual.history.lessons import save_lessons, seed_published
from continual.history.store import publish
from continual.tables import HistoryComment, HistoryPublication
from continual.values import EntryState

PUBLICATIONS_SHOWN = 10


@dataclass(frozen=True, slots=True)
class Discovery:
    """What the discovery seat gave this publication: the lessons kept, how many it proposed,
    the others counted by why they were not kept, and its failures (None: all answered)."""

    seat: str | None = None
    lessons: tuple[Discovered, ...] = ()
    proposals: int = 0
    rejected: dict[str, int] | None = None
    failure: str | None = None


def fresh_ids(conn: Connection, repository_id: int) -> set[int]:
    """The addressed comments no publication has seen yet (what discovery is asked about)."""
    return set(
        conn.execute(
            select(HistoryComment.id).where(
                HistoryComment.repository_id == repository_id,
                HistoryComment.outcome == Outcome.ADDRESSED.value,
                HistoryComment.published.is_(False),
            )
        ).scalars()
    )


def publish_all(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    generation: int,
    cap: int,
    discovery: Discovery,
    now_ms: int,
) -> dict[str, Any]:
    """Publish everything of the repository at once and write its receipt; answers the receipt."""
    publication_id = conn.execute(
        insert(HistoryPublication)
        .values(
            account_id=account_id,
            repository_id=repository_id,
            generation=generation,
            facts=0,
            lessons_active=0,
            lessons_candidate=0,
            refusals=0,
            seat=discovery.seat,
            proposals=discovery.proposals,
            rejected=json.dumps(discovery.rejected or {}, sort_keys=True),
            seat_failure=discovery.failure,
            at_ms=now_ms,
        )
        .returning(HistoryPublication.id)
    ).scalar_one()
    save_lessons(
        conn,
        account_id=account_id,
        repository_id=repository_id,
        lessons=discovery.lessons,
        seat=discovery.seat or "",
        publication_id=publication_id,
        now_ms=now_ms,
    )
    refusals = seed_published(conn, repository_id)
    facts = publish(
        conn, account_id=account_id, repository_id=repository_id, cap=cap, now_ms=now_ms
    )
    states = [lesson.state for lesson in discovery.lessons]
    values = {
        "facts": facts,
        "lessons_active": states.count(EntryState.ACTIVE),
        "lessons_candidate": states.count(EntryState.CANDIDATE),
        "refusals": refusals,
    }
    conn.execute(
        update(HistoryPublication).where(HistoryPublication.id == publication_id).values(**values)
    )
    return {"id": publication_id, **values}


def publications(conn: Connection, repository_id: int) -> Sequence[Any]:
    """The repository's newest publication receipts."""
    return conn.execute(
        select(*HistoryPublication.__table__.c)
        .where(HistoryPublication.repository_id == repository_id)
        .order_by(HistoryPublication.at_ms.desc(), HistoryPublication.id.desc())
        .limit(PUBLICATIONS_SHOWN)
    ).all()
