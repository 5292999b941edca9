"""Acceptance over time: per repository and week, suggestions with and without lessons handed."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import Connection, select

from continual.ledger import queries
from continual.ledger.values import PENDING, Counts
from continual.lifecycle import DAY_MS
from continual.tables import Repository

WEEK_MS = 7 * DAY_MS
# 1970-01-01 was a Thursday: weeks start on Monday, 00:00 UTC, four days later.
MONDAY_OFFSET_MS = 4 * DAY_MS


def week_of(ms: int) -> int:
    """The start (Monday, 00:00 UTC, in milliseconds) of the week holding ``ms``."""
    return (ms - MONDAY_OFFSET_MS) // WEEK_MS * WEEK_MS + MONDAY_OFFSET_MS


@dataclass(frozen=True, slots=True)
class WeekAcceptance:
    """One week's suggestions, by when they were made: with lessons handed, and without."""

    week_ms: int
    with_lessons: Counts
    without_lessons: Counts


def acceptance_by_week(conn: Connection, account_id: int) -> dict[str, tuple[WeekAcceptance, ...]]:
    """Per repository (owner/name), its weeks oldest first; the ledger's outcomes and guidance."""
    names: dict[int, str] = {
        int(repository_id): str(full_name)
        for repository_id, full_name in conn.execute(
            select(Repository.id, Repository.full_name).where(Repository.account_id == account_id)
        ).all()
    }
    outcomes = queries.outcomes(conn, account_id)
    sets, reviews = queries.guided(conn, account_id)
    grouped: defaultdict[int, defaultdict[int, tuple[list[str], list[str]]]] = defaultdict(
        lambda: defaultdict(lambda: ([], []))
    )
    for found in queries.suggestions(conn, account_id):
        with_lessons, without_lessons = grouped[found.repository_id][week_of(found.created_ms)]
        outcome = outcomes.get(found.id, PENDING)
        (with_lessons if found.guided(sets, reviews) else without_lessons).append(outcome)
    return {
        names[repository_id]: tuple(
            WeekAcceptance(week, Counts.of(guided), Counts.of(unguided))
            for week, (guided, unguided) in sorted(weeks.items())
        )
        for repository_id, weeks in grouped.items()
        if repository_id in names
    }
