"""A repository's active history lessons as every surface reads them, before each review and each
agent tool call: so this module loads nothing of the back-fill (docs/history.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import Connection, bindparam, select

from continual.prepared import Prepared
from continual.tables import HistoryComment, HistoryLesson
from continual.values import EntryState

LESSON_SUBJECT = "history-lesson:"  # a history lesson as receipts and tombstones name it


@dataclass(frozen=True, slots=True)
class HistoryCard:
    """An active history lesson as surfaces hand it: its words, the pull requests it rests on,
    the files its comments were about and the seat that proposed it."""

    id: int
    key: str
    text: str
    prs: tuple[int, ...]
    files: tuple[str, ...]
    seat: str

    @property
    def handed_id(self) -> str:
        """How handing receipts name it (an entry id cannot look like this)."""
        return f"{LESSON_SUBJECT}{self.id}"


# Built once: every review and agent hand-out asks it (a context push before each tool call;
# on SQLite's driver).
_ACTIVE = Prepared(
    select(HistoryLesson.id, HistoryLesson.key, HistoryLesson.text, HistoryLesson.prs)
    .add_columns(HistoryLesson.comment_ids, HistoryLesson.seat)
    .where(
        HistoryLesson.repository_id == bindparam("repository_id"),
        HistoryLesson.state == EntryState.ACTIVE.value,
        HistoryLesson.deleted_ms.is_(None),
    )
    .order_by(HistoryLesson.id)
)
_PATHS = select(HistoryComment.id, HistoryComment.path).where(
    HistoryComment.id.in_(bindparam("ids", expanding=True))
)


def active_lessons(conn: Connection, repository_id: int) -> list[HistoryCard]:
    """The repository's active history lessons (never a candidate, never a deleted one), those
    resting on the most pull requests first, then the oldest."""
    rows = _ACTIVE.rows(conn, {"repository_id": repository_id})
    if not rows:
        return []
    cited = {int(lesson_id): json.loads(comments) for lesson_id, *_, comments, _ in rows}
    ids = sorted({int(i) for found in cited.values() for i in found})
    paths = {int(r.id): r.path for r in conn.execute(_PATHS, {"ids": ids})} if ids else {}
    cards = [
        HistoryCard(
            int(lesson_id),
            key,
            text,
            tuple(json.loads(prs)),
            tuple(sorted({paths[i] for i in cited[int(lesson_id)] if i in paths})),
            seat,
        )
        for lesson_id, key, text, prs, _, seat in rows
    ]
    return sorted(cards, key=lambda card: (-len(card.prs), card.id))
