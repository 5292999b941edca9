"""Persons: tokens shown once and stored hashed, listing, revocation, and the preference card."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from continual import persons
from continual.persons import InvalidField, Preference, Recording
from continual.tables import Token
from tests.support.recall import NOW, seed


@pytest.fixture
def db(engine: Engine) -> Engine:
    seed(engine, 1, "octo", "app")
    seed(engine, 2, "bee", "app")
    return engine


def test_a_token_is_shown_once_and_stored_as_its_sha256(db: Engine) -> None:
    with db.begin() as conn:
        made = persons.create_token(conn, "octo", "mona", now=NOW)
    assert made.secret.startswith("hs_") and len(made.secret) > 40
    assert made.secret not in repr(made) and made.secret not in repr(made.info)
    with db.connect() as conn:
        (row,) = conn.execute(select(Token)).all()
    assert row.sha256 == hashlib.sha256(made.secret.encode()).hexdigest()
    assert made.secret not in str(tuple(row))
    assert row.prefix == made.secret[:11]
    with db.connect() as conn:
        found = persons.authenticate(conn, made.secret)
    assert found is not None
    caller, last_used = found
    assert (caller.account_id, caller.login, caller.account_login) == (1, "mona", "octo")
    assert last_used is None


def test_list_and_revoke(db: Engine) -> None:
    with db.begin() as conn:
        first = persons.create_token(conn, "octo", "mona", now=NOW)
        second = persons.create_token(conn, "octo", "mona", now=NOW + 1)
        persons.create_token(conn, "octo", "lisa", now=NOW + 2)
        persons.create_token(conn, "bee", "mona", now=NOW + 3)
    with db.connect() as conn:
        listed = persons.list_tokens(conn, "octo", "mona")
        everyone = persons.list_tokens(conn, "octo")
    assert [t.id for t in listed] == [first.info.id, second.info.id]
    assert {t.person for t in everyone} == {"mona", "lisa"}, "never another account's"
    with db.begin() as conn:
        revoked = persons.revoke_token(conn, "octo", "mona", first.info.prefix, now=NOW + 9)
    assert revoked.revoked_ms == NOW + 9
    with db.connect() as conn:
        assert persons.authenticate(conn, first.secret) is None
        assert persons.authenticate(conn, second.secret) is not None
    with db.begin() as conn, pytest.raises(persons.NotFound):
        persons.revoke_token(conn, "bee", "mona", second.info.id, now=NOW)
    with db.begin() as conn, pytest.raises(persons.NotFound):
        persons.create_token(conn, "nobody", "mona", now=NOW)


def test_unknown_tokens_do_not_authenticate(db: Engine) -> None:
    with db.connect() as conn:
        assert persons.authenticate(conn, "hs_unknown") is None
        assert persons.authenticate(conn, "ghp_something") is None


def test_last_used_is_written_at_most_once_a_minute() -> None:
    assert persons.touch_due(None, now=NOW)
    assert not persons.touch_due(NOW, now=NOW + 59_999)
    assert persons.touch_due(NOW, now=NOW + 60_000)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"recording": "loud"}, "recording"),
        ({"recording": 1}, "recording"),
        ({"surfacing": -1}, "surfacing"),
        ({"surfacing": 4}, "surfacing"),
        ({"surfacing": "2"}, "surfacing"),
        ({"surfacing": 2.0}, "surfacing"),
        ({"lesson_cap": 0}, "lesson_cap"),
        ({"lesson_cap": 21}, "lesson_cap"),
        ({"lesson_cap": False}, "lesson_cap"),
        ({"cap": 3}, "cap"),
        ([1, 2], "body"),
    ],
)
def test_invalid_preferences_name_the_field(body: object, field: str) -> None:
    with pytest.raises(InvalidField) as caught:
        persons.validate_preference(body, Preference())
    assert caught.value.field == field
    assert str(caught.value).startswith(f"{field}:")


def test_valid_preferences_change_only_what_is_sent() -> None:
    current = Preference(Recording.FULL, 3, 10)
    assert persons.validate_preference({}, current) == current
    assert persons.validate_preference(
        {"recording": "incognito", "surfacing": 0, "lesson_cap": 20}, current
    ) == Preference(Recording.INCOGNITO, 0, 20)
    assert persons.validate_preference({"lesson_cap": 1}, current).surfacing == 3


def test_purge_deletes_persons_tokens_and_injections(db: Engine, tmp_path: Path) -> None:
    from continual.surfaces import hand_review_lessons
    from continual.tables import Injection, Person
    from ghapp.purge import purge_account
    from tests.support.recall import Tenant, accept

    octo = Tenant(1, "octo", {"octo/app": 11})
    accept(db, octo, "octo/app")
    with db.begin() as conn:
        persons.create_token(conn, "octo", "mona", now=NOW)
        persons.create_token(conn, "bee", "bert", now=NOW)
    hand_review_lessons(
        db, tmp_path, account_id=1, repository_id=11, session_id="r", paths=["src/app.py"], now=NOW
    )
    counts = purge_account(db, "octo", store_dir=tmp_path)
    assert counts is not None
    assert (counts["persons"], counts["tokens"], counts["injections"]) == (1, 1, 1)
    assert counts["files"] == 1
    with db.connect() as conn:
        assert [r.login for r in conn.execute(select(Person)).all()] == ["bert"]
        assert conn.execute(select(Injection)).all() == []
