"""What is handed: one lesson text once, whatever its lens; never at a path its mechanism is
refused at."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from continual.persons import Preference
from continual.recall import SnapshotCache
from continual.surfaces import Handed, hand_brief, hand_context
from continual.values import Decision, Source
from tests.continual.test_recall_surfaces import lessons_in, review, target
from tests.support.events import heard, statements_run
from tests.support.recall import NOW, Tenant, accept, decide, live_entries, seed, suggest


@pytest.fixture
def org(engine: Engine) -> Tenant:
    return seed(engine, 1, "octo", "app")


def context(engine: Engine, store_dir: Path, org: Tenant, session: str, path: str) -> Handed:
    return hand_context(
        engine,
        store_dir,
        target(engine, org),
        session_id=session,
        paths=[path],
        identifiers=["parse_config"],
        preference=Preference(),
        person_id=None,
        now=NOW + 5000,
    )


def test_the_same_lesson_text_under_two_lenses_is_handed_once(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    accept(engine, org, "octo/app")
    accept(engine, org, "octo/app", lens="security")
    assert len(live_entries(engine)) == 2
    handed = hand_brief(
        engine,
        tmp_path,
        target(engine, org),
        session_id="s1",
        preference=Preference(),
        person_id=None,
        now=NOW + 1000,
    )
    assert len(lessons_in(handed)) == 1
    assert handed.text.count("Check the result of `parse_config`") == 1
    pushed = context(engine, tmp_path, org, "s2", "src/app.py")
    assert pushed.text.count("Check the result of `parse_config`") == 1
    assert review(engine, tmp_path, org, "r1").text.count("`parse_config`") == 1
    # The session was handed the text: its twin is not handed later in the session either.
    again = hand_brief(
        engine,
        tmp_path,
        target(engine, org),
        session_id="s1",
        preference=Preference(),
        person_id=None,
        now=NOW + 2000,
    )
    assert again.text == "" and lessons_in(again) == ()
    assert lessons_in(context(engine, tmp_path, org, "s1", "src/app.py")) == ()


def test_a_lesson_is_not_handed_at_a_path_its_mechanism_is_refused_at(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    accept(engine, org, "octo/app")
    refused = suggest(engine, org, "octo/app", path="src/other.py")
    decide(engine, refused, at=NOW + 1000, kind=Decision.DISMISSED)  # a false positive there
    assert lessons_in(context(engine, tmp_path, org, "s1", "src/other.py")) == ()
    assert len(lessons_in(context(engine, tmp_path, org, "s2", "src/app.py"))) == 1
    both = review(engine, tmp_path, org, "r1", paths=["src/other.py", "src/app.py"], now=NOW + 5000)
    assert len(lessons_in(both)) == 1, "a hand that also touches another path keeps it"
    lesson = "Check the result of `parse_config` in src/app.py before using it."
    assert lesson in both.text
    only = review(engine, tmp_path, org, "r2", paths=["src/other.py"], now=NOW + 5000)
    assert lesson not in only.text, "only its dismissal is said (the dismissed block)"


def test_a_hand_records_where_each_lesson_came_from(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    accept(engine, org, "octo/app", review_id="r_first")
    accept(engine, org, "octo/app", review_id="r_second")
    pushed = context(engine, tmp_path, org, "s1", "src/app.py")
    [lesson] = pushed.lessons
    assert pushed.as_json()["lessons_handed"] == [
        {
            "id": lesson.id,
            "lens": "correctness",
            "kind": "repository",
            "seat": "alpha",
            "sessions": ["r_first", "r_second"],
        }
    ]
    assert context(engine, tmp_path, org, "s1", "src/app.py").as_json()["lessons_handed"] == []


def test_a_widened_lesson_is_handed_as_the_accounts(engine: Engine, tmp_path: Path) -> None:
    """Its kind is the scope recall gave it: a merged fix of the same mechanism in a second
    repository widens the lesson to the account (its twin there says the same text, so it is
    handed once)."""
    org = seed(engine, 1, "octo", "app", "lib")
    accept(engine, org, "octo/app", review_id="r_app")
    accept(engine, org, "octo/lib", review_id="r_lib", source=Source.FIX_PR)
    pushed = context(engine, tmp_path, org, "s1", "src/app.py")
    [handed] = pushed.provenance
    assert (handed.kind, handed.sessions) == ("account", ("r_app",))


@pytest.mark.parametrize("tokens", [0, -1, 64_001, True])
def test_an_injection_budget_is_1_to_64000_tokens(
    engine: Engine, org: Tenant, tmp_path: Path, tokens: int
) -> None:
    with pytest.raises(ValueError, match="1 to 64,000 tokens"):
        hand_brief(
            engine,
            tmp_path,
            target(engine, org),
            session_id="s1",
            preference=Preference(),
            person_id=None,
            now=NOW,
            max_tokens=tokens,
        )


def test_the_budgets_bound_a_brief_and_a_push(engine: Engine, org: Tenant, tmp_path: Path) -> None:
    accept(engine, org, "octo/app")
    accept(engine, org, "octo/app", name="load_rows")
    card = Preference()
    small = hand_brief(
        engine,
        tmp_path,
        target(engine, org),
        session_id="s1",
        preference=card,
        person_id=None,
        now=NOW + 1000,
        max_tokens=60,
    )
    assert len(small.text.encode()) <= 240 and len(lessons_in(small)) == 1 and small.omitted == 1
    pushed = hand_context(
        engine,
        tmp_path,
        target(engine, org),
        session_id="s2",
        paths=["src/app.py"],
        identifiers=["parse_config", "load_rows"],
        preference=card,
        person_id=None,
        now=NOW + 1000,
        max_tokens=1,
    )
    assert pushed.text == "" and lessons_in(pushed) == ()
    assert len(lessons_in(context(engine, tmp_path, org, "s3", "src/app.py"))) == 2


def test_a_warm_context_push_on_sqlite_runs_its_statements_on_the_driver(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    """A push asks before every tool call: on SQLite its statements skip SQLAlchemy's execution
    (docs/performance.md), and a warm cache reads no lesson and no suppression again."""
    if engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL's statements run through SQLAlchemy")
    accept(engine, org, "octo/app")
    cache = SnapshotCache()
    app = target(engine, org)

    def push(session: str) -> Handed:
        return hand_context(
            engine,
            tmp_path,
            app,
            session_id=session,
            paths=["src/app.py"],
            preference=Preference(),
            person_id=None,
            now=NOW + 5000,
            snapshots=cache,
        )

    assert len(push("s1").lessons) == 1  # builds the snapshot, reads the suppressions
    with statements_run(engine) as ran, heard(engine, "before_cursor_execute") as sent:
        assert len(push("s2").lessons) == 1
    assert sent == [], "no statement went through SQLAlchemy's execution"
    assert [" ".join(sql.split()[:4]) for sql in ran] == [
        "BEGIN IMMEDIATE",
        "SELECT accounts.store_generation FROM accounts",  # the snapshot is current
        "SELECT injections.surface, injections.set_sha256, injections.entries,",  # the session's
        "SELECT accounts.store_generation FROM accounts",  # the suppressions kept are current
        'SELECT history_lessons.id, history_lessons."key", history_lessons.text,',
        "SELECT receipts.entry_id, suggestions.seat, suggestions.review_id",  # its provenance
        "DELETE FROM injections WHERE",  # the account's expired incognito rows
        "INSERT INTO injections (account_id,",
        "COMMIT",
    ]
