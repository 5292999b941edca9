"""A repository's history as the ledger shows it: the back-fill's progress, its publication
receipts, and where each fact, lesson and suppression candidate came from (the pull request,
the comment, the maintainer and their association then, the commit that addressed it)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from continual.history.lessons import RefusalState, cited_comments
from continual.history.publication import publications
from continual.history.store import Progress, progress
from continual.history.suppressed import refused_suggestion_id
from continual.tables import HistoryComment, HistoryLesson, HistoryRefusal, Receipt


@dataclass(frozen=True, slots=True)
class ShownLesson:
    """A history lesson with the comments it rests on (rows of ``history_comments``)."""

    id: int
    title: str
    text: str
    state: str
    prs: tuple[int, ...]
    seat: str
    quotes: dict[str, str]
    cited: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class HistoryView:
    progress: Progress
    publications: tuple[Any, ...]
    lessons: tuple[ShownLesson, ...]
    refusals: tuple[Any, ...]  # rows of ``history_refusals``, published ones
    associations: dict[int, str]  # each receipt's comment id → its author's association then
    suppressing: dict[int, str]  # each confirmed refusal's id → the entry of its suppression


def _associations(conn: Connection, ids: Sequence[int]) -> dict[int, str]:
    if not ids:
        return {}
    rows = conn.execute(
        select(HistoryComment.id, HistoryComment.association).where(
            HistoryComment.id.in_(list(ids))
        )
    ).all()
    return {int(row.id): str(row.association) for row in rows}


def history_view(
    conn: Connection, *, account_id: int, repository_id: int, repository: str
) -> HistoryView | None:
    """The repository's history for the ledger, or None when no back-fill was ever asked for."""
    found = progress(
        conn, account_id=account_id, repository_id=repository_id, repository=repository
    )
    if found is None:
        return None
    rows = conn.execute(
        select(*HistoryLesson.__table__.c)
        .where(HistoryLesson.repository_id == repository_id, HistoryLesson.deleted_ms.is_(None))
        .order_by(HistoryLesson.state, HistoryLesson.id)
    ).all()
    lessons = tuple(
        ShownLesson(
            row.id,
            row.title,
            row.text,
            row.state,
            tuple(json.loads(row.prs)),
            row.seat,
            json.loads(row.quotes),
            tuple(cited_comments(conn, json.loads(row.comment_ids))),
        )
        for row in rows
    )
    refusals = conn.execute(
        select(*HistoryRefusal.__table__.c)
        .where(
            HistoryRefusal.repository_id == repository_id,
            HistoryRefusal.state != RefusalState.SEEDED.value,
        )
        .order_by(HistoryRefusal.state, HistoryRefusal.id)
    ).all()
    ids = [receipt.comment_id for receipt in found.receipts]
    return HistoryView(
        found,
        tuple(publications(conn, repository_id)),
        lessons,
        tuple(refusals),
        _associations(conn, ids),
        _suppressing(conn, [r.id for r in refusals if r.state == RefusalState.CONFIRMED.value]),
    )


def _suppressing(conn: Connection, refusal_ids: Sequence[int]) -> dict[int, str]:
    """The entry each confirmed refusal suppresses, by refusal id (its dismissed receipt's)."""
    if not refusal_ids:
        return {}
    by_suggestion = {refused_suggestion_id(i): i for i in refusal_ids}
    rows = conn.execute(
        select(Receipt.suggestion_id, Receipt.entry_id).where(
            Receipt.suggestion_id.in_(list(by_suggestion))
        )
    ).all()
    return {by_suggestion[row.suggestion_id]: str(row.entry_id) for row in rows}
