"""The lessons a repository's own review history taught (docs/history.md), as every surface hands
them after the store's lessons: whatever the memory setting, each named in the receipt."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence

from sqlalchemy import Connection

from continual.history.active import HistoryCard, active_lessons
from continual.injections import Handed, HandedLesson, LessonHanded, Target
from continual.packing import Budget, pack_lines
from continual.surfaces.delivery import PARTS_SEPARATOR, with_part

HISTORY_HEADER = (
    "From the review history of {repo} (its maintainers asked for each in two or more merged"
    " pull requests):"
)
HISTORY_LINE = "- {text} (history lesson {id}; asked in {prs})"
CITED_TEXT = "{text} (from the review history; asked in {prs})"
HISTORY_KIND = "history"  # the kind a handing receipt gives a history lesson
HISTORY_REVISION = 1  # a history lesson is never edited, only deleted
HISTORY_CAP = 10


def about(card: HistoryCard, paths: Iterable[str]) -> bool:
    """Whether the lesson's comments were about one of ``paths`` or a file beside one."""
    wanted = set(paths)
    folders = {posixpath.dirname(path) for path in wanted}
    return any(path in wanted or posixpath.dirname(path) in folders for path in card.files)


def history_line(card: HistoryCard) -> str:
    return HISTORY_LINE.format(text=" ".join(card.text.split()), id=card.id, prs=_prs(card))


def cited_text(card: HistoryCard) -> str:
    """The lesson's words with where they come from, as a list of lessons names it (a review's
    header lists lessons without their ids)."""
    return CITED_TEXT.format(text=" ".join(card.text.split()), prs=_prs(card))


def _prs(card: HistoryCard) -> str:
    return ", ".join(f"#{n}" for n in card.prs)


def with_history(
    conn: Connection,
    target: Target,
    handed: Handed,
    *,
    seen: set[tuple[str, int]],
    budget: Budget | None,
    paths: Sequence[str] = (),
    only_about: bool = False,
    cap: int = HISTORY_CAP,
) -> Handed:
    """``handed``, then the repository's active history lessons the session does not hold yet:
    those about ``paths`` first (only those with ``only_about``), at most ``cap`` whole lines
    within what ``budget`` leaves. Each joins the set's entries, its lessons and its provenance
    (kind ``history``), so the receipt names it."""
    cards = [c for c in active_lessons(conn, target.repository_id) if _entry(c) not in seen]
    if paths or only_about:
        near = [c for c in cards if about(c, paths)]
        cards = near if only_about else near + [c for c in cards if c not in near]
    if not cards or cap <= 0:
        return handed
    left = () if budget is None else (budget.after(handed.text, PARTS_SEPARATOR),)
    block = pack_lines(
        [history_line(card) for card in cards[:cap]],
        budgets=left,
        header=HISTORY_HEADER.format(repo=target.repository),
        total=len(cards),
    )
    taken = cards[: block.included]
    if not taken:
        return handed
    return with_part(
        handed,
        block.text,
        entries=(*handed.entries, *(_entry(card) for card in taken)),
        lessons=(
            *handed.lessons,
            *(HandedLesson(c.handed_id, c.key, cited_text(c)) for c in taken),
        ),
        provenance=(*handed.provenance, *(_provenance(card) for card in taken)),
        omitted=handed.omitted + block.omitted,
    )


def _entry(card: HistoryCard) -> tuple[str, int]:
    return (card.handed_id, HISTORY_REVISION)


def _provenance(card: HistoryCard) -> LessonHanded:
    return LessonHanded(
        card.handed_id, "", HISTORY_KIND, card.seat, tuple(f"#{n}" for n in card.prs)
    )
