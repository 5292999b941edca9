"""The review ledger is one frozen, typed value per repository, read by attribute."""

from __future__ import annotations

from dataclasses import FrozenInstanceError

import pytest
from sqlalchemy import Engine, insert

from continual.ledger import Counts, RepositoryLedger, RuleCount, review_ledger
from continual.recall import Lesson
from continual.tables import Injection
from tests.support.recall import NOW, accept, seed, suggest


def ledger_of(engine: Engine, *, brain: bool) -> list[RepositoryLedger]:
    with engine.connect() as conn:
        return review_ledger(conn, 1, now=NOW + 1000, brain=brain)


def test_counts_read_as_attributes(engine: Engine) -> None:
    org = seed(engine, 1, "octo", "app", "lib")
    accept(engine, org, "octo/app", review_id="rev-1")
    accept(engine, org, "octo/app", name="load_rows", review_id="rev-1")
    suggest(engine, org, "octo/app", name="read_file", review_id="rev-2")
    app, lib = ledger_of(engine, brain=False)
    assert (app.repository, lib.repository) == ("octo/app", "octo/lib")
    assert app.suggestions == Counts(
        total=3, accepted=2, dismissed=0, pending=1, acceptance_rate=1.0
    )
    (row,) = app.by_seat_and_lens
    assert (row.seat, row.lens, row.counts.total, row.counts.pending) == (
        "alpha",
        "correctness",
        3,
        1,
    )
    assert app.decisions_by_rule == (
        RuleCount(rule="grammar.accepted", decision="accepted", source="reply", count=2),
    )
    assert (app.entries.active, app.entries.candidate) == (2, 0)
    assert app.acceptance.without_lessons.total == 3
    assert (app.reviews, app.calls.ok, app.calls.failures, app.hits) == (0, 0, (), 0)
    assert lib.suggestions.total == 0 and lib.suggestions.acceptance_rate is None
    assert app.lessons is None and app.handed is None


def test_brain_hands_the_snapshot_lessons(engine: Engine) -> None:
    org = seed(engine, 1, "octo", "app", "lib")
    accept(engine, org, "octo/app", review_id="rev-1")
    app, lib = ledger_of(engine, brain=True)
    assert app.lessons is not None and lib.lessons == ()
    (lesson,) = app.lessons
    assert isinstance(lesson, Lesson) and lesson.repository == "octo/app"
    assert app.handed == () and lib.handed == ()


def test_ledger_values_are_frozen(engine: Engine) -> None:
    seed(engine, 1, "octo", "app")
    (app,) = ledger_of(engine, brain=False)
    with pytest.raises(FrozenInstanceError):
        app.hits = 1  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        app.suggestions.accepted = 1  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        app.entries.active = 1  # type: ignore[misc]


def test_decisions_are_counted_by_the_signal_behind_them() -> None:
    from continual.ledger.values import SIGNALS, RuleCount, by_signal, signal_of

    assert signal_of("grammar.accept", "reply") == "grammar"
    assert signal_of("natural.fr.corrige", "reply") == "natural"
    assert signal_of("judge:alpha", "reply") == "judge"
    assert signal_of("reaction.thumbs-up", "reaction") == "reaction"
    rules = (
        RuleCount("grammar.accept", "accepted", "reply", 2),
        RuleCount("natural.intentional", "dismissed", "reply", 1),
        RuleCount("judge:alpha", "dismissed", "reply", 3),
        RuleCount("applied.suggestion-block", "accepted", "applied", 1),
        RuleCount("something.new", "accepted", "elsewhere", 4),
    )
    counted = {c.signal: (c.accepted, c.dismissed) for c in by_signal(rules)}
    assert list(counted)[: len(SIGNALS)] == list(SIGNALS), "every known signal, in order"
    assert counted["grammar"] == (2, 0) and counted["natural"] == (0, 1)
    assert counted["judge"] == (0, 3) and counted["applied"] == (1, 0)
    assert counted["reaction"] == (0, 0) and counted["elsewhere"] == (4, 0)


def test_a_set_of_only_a_memory_summary_is_not_guidance_with_lessons(engine: Engine) -> None:
    org = seed(engine, 1, "octo", "app")
    suggest(engine, org, "octo/app", review_id="rev-1")
    with engine.begin() as conn:
        conn.execute(
            insert(Injection).values(
                account_id=1,
                repository_id=org.repos["octo/app"],
                session_id="rev-1",
                surface="review",
                set_sha256="f" * 64,
                entries='[["summary_11", 1]]',
                chars=300,
                at_ms=NOW,
            )
        )
    (app,) = ledger_of(engine, brain=False)
    assert app.acceptance.with_lessons.total == 0 and app.acceptance.without_lessons.total == 1
