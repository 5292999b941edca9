"""Acceptance over time: weeks by when a suggestion was made, split as the ledger splits them."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine

from continual.ledger import acceptance_by_week, review_ledger
from continual.ledger.weekly import week_of
from tests.support.ledger_page import START, WEEK, WEEKS, seed_ledger
from tests.support.recall import NOW


def test_weeks_start_on_monday_at_midnight_utc() -> None:
    thursday_noon = int(datetime(2026, 11, 26, 12, tzinfo=UTC).timestamp() * 1000)
    monday = datetime.fromtimestamp(week_of(thursday_noon) / 1000, UTC)
    assert monday == datetime(2026, 11, 23, tzinfo=UTC)
    assert week_of(week_of(thursday_noon)) == week_of(thursday_noon)


def test_each_week_counts_its_suggestions_with_and_without_lessons(engine: Engine) -> None:
    seeded = seed_ledger(engine)
    with engine.connect() as conn:
        weeks = acceptance_by_week(conn, seeded.tenant.account_id)
        (app, _lib) = review_ledger(conn, seeded.tenant.account_id, now=NOW, brain=False)
    assert "octo/lib" not in weeks  # no suggestions there, so no weeks
    found = weeks[seeded.repo]
    assert len(found) == len(WEEKS)
    assert [w.week_ms for w in found] == sorted(w.week_ms for w in found)
    for week, (count, accepts, guided) in zip(found, WEEKS, strict=True):
        counts = week.with_lessons if guided else week.without_lessons
        other = week.without_lessons if guided else week.with_lessons
        assert (counts.total, counts.accepted, counts.dismissed) == (
            count,
            accepts,
            count - accepts,
        )
        assert other.total == 0 and other.acceptance_rate is None
    # The weeks add up to the ledger's own split, so the chart and the totals cannot disagree.
    assert sum(w.with_lessons.accepted for w in found) == app.acceptance.with_lessons.accepted
    assert sum(w.without_lessons.total for w in found) == app.acceptance.without_lessons.total
    assert found[0].week_ms <= START + WEEK
