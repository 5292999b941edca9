"""Statements run on SQLite's driver (`Prepared`): the rows SQLAlchemy would answer, in the
caller's transaction, with SQLAlchemy's errors; refused when SQLAlchemy would change a value."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, bindparam, insert, select
from sqlalchemy.exc import IntegrityError

from continual.prepared import Prepared
from continual.recall.lessons import read_lessons
from continual.recall.numbering import read_link_names
from continual.suppression.store import mechanisms
from continual.tables import Account, Repository
from tests.support.recall import seed

_ACCOUNT = Prepared(
    select(Account.id, Account.login, Account.store_generation).where(Account.id == bindparam("id"))
)
_NEW_REPOSITORY = Prepared(
    insert(Repository).values(
        id=bindparam("id"), account_id=bindparam("account_id"), full_name=bindparam("name")
    )
)


def test_rows_are_the_tuples_sqlalchemy_answers(engine: Engine) -> None:
    seed(engine, 1, "octo", "app")
    with engine.connect() as conn:
        plain = [tuple(row) for row in conn.execute(_ACCOUNT.statement, {"id": 1})]
        assert _ACCOUNT.rows(conn, {"id": 1}) == plain == [(1, "octo", 0)]
        assert _ACCOUNT.scalar(conn, {"id": 1}) == 1
        assert _ACCOUNT.rows(conn, {"id": 2}) == [] and _ACCOUNT.scalar(conn, {"id": 2}) is None


def test_a_statements_own_values_are_bound_beside_the_callers(engine: Engine) -> None:
    """`full_name = 'octo/app'` is a value of the statement, not the caller's."""
    named = Prepared(
        select(Repository.id).where(
            Repository.account_id == bindparam("account_id"), Repository.full_name == "octo/app"
        )
    )
    assert "octo/app" not in named.sql, "bound as a parameter, as SQLAlchemy binds it"
    tenant = seed(engine, 1, "octo", "app", "lib")
    with engine.connect() as conn:
        assert named.rows(conn, {"account_id": 1}) == [(tenant.repos["octo/app"],)]


def test_it_writes_in_the_callers_transaction(engine: Engine) -> None:
    seed(engine, 1, "octo", "app")
    with engine.connect() as conn:
        _NEW_REPOSITORY.run(conn, {"id": 99, "account_id": 1, "name": "octo/new"})
        assert conn.in_transaction()
        conn.rollback()
        assert conn.execute(select(Repository.id).where(Repository.id == 99)).all() == []
    with engine.begin() as conn:
        _NEW_REPOSITORY.run(conn, {"id": 99, "account_id": 1, "name": "octo/new"})
    with engine.connect() as conn:
        assert conn.execute(select(Repository.full_name).where(Repository.id == 99)).all() == [
            ("octo/new",)
        ]


def test_a_refused_write_raises_sqlalchemys_error(engine: Engine) -> None:
    """On SQLite's driver the error names no value (they may be large bodies)."""
    seed(engine, 1, "octo", "app")
    with pytest.raises(IntegrityError) as refused, engine.begin() as conn:
        _NEW_REPOSITORY.run(conn, {"id": 98, "account_id": 404, "name": "secret/name"})
    if engine.dialect.name == "sqlite":
        assert "FOREIGN KEY" in str(refused.value)
        assert "secret/name" not in str(refused.value)
    with engine.connect() as conn:
        assert conn.execute(select(Repository.id).where(Repository.id == 98)).all() == []


def test_a_statement_whose_values_sqlalchemy_changes_is_refused() -> None:
    """A boolean or a date is converted by SQLAlchemy on SQLite: the driver's tuples would differ."""
    from sqlalchemy import Boolean, Column, DateTime, Integer, MetaData, Table

    table = Table(
        "converted",
        MetaData(),
        Column("id", Integer, primary_key=True),
        Column("flag", Boolean),
        Column("at", DateTime),
    )
    with pytest.raises(TypeError, match="not prepared"):
        Prepared(select(table.c.flag))
    with pytest.raises(TypeError, match="not prepared"):
        Prepared(select(table.c.id).where(table.c.at == bindparam("at", type_=DateTime)))
    Prepared(select(table.c.id).where(table.c.id == bindparam("id")))


_REPOSITORIES = Prepared(
    select(Repository.id, Repository.full_name)
    .where(Repository.account_id == bindparam("account_id"))
    .order_by(Repository.id)
)


def test_batches_hand_every_row_a_few_at_a_time(engine: Engine) -> None:
    names = [f"r{n}" for n in range(7)]
    tenant = seed(engine, 1, "octo", *names)
    with engine.connect() as conn:
        every = _REPOSITORIES.rows(conn, {"account_id": 1})
        batches = [list(map(tuple, b)) for b in _REPOSITORIES.batches(conn, {"account_id": 1}, 3)]
        assert [len(b) for b in batches] == [3, 3, 1]
        assert [row for b in batches for row in b] == every
        assert sorted(name for _, name in every) == sorted(tenant.repos)
        assert list(_REPOSITORIES.batches(conn, {"account_id": 2}, 3)) == []


def test_batches_run_the_statement_when_first_asked(engine: Engine) -> None:
    """A build reads what it needs first, then the entries: nothing runs before the first batch."""
    seed(engine, 1, "octo", "app")
    with engine.connect() as conn:
        pending = _REPOSITORIES.batches(conn, {"account_id": 1}, 10)
        _NEW_REPOSITORY.run(conn, {"id": 99, "account_id": 1, "name": "octo/late"})
        assert "octo/late" in {name for batch in pending for _, name in batch}


def test_a_failing_read_in_batches_raises_sqlalchemys_error(engine: Engine) -> None:
    from sqlalchemy import Column, Integer, MetaData, Table
    from sqlalchemy.exc import DBAPIError

    missing = Table("no_such_table", MetaData(), Column("id", Integer))
    broken = Prepared(select(missing.c.id).where(missing.c.id == bindparam("id")))
    with pytest.raises(DBAPIError), engine.connect() as conn:
        list(broken.batches(conn, {"id": 1}, 10))


def test_the_cold_builds_statements_take_ids_past_32_bits(engine: Engine) -> None:
    """GitHub's ids pass 2**31: a parameter typed as a 32-bit integer fails on PostgreSQL."""
    big = 2**40 + 7
    tenant = seed(engine, big, "octo", "app")
    (repository_id,) = tenant.repos.values()
    assert repository_id > 2**40
    with engine.connect() as conn:
        assert mechanisms(conn, repository_id) == []
        assert read_lessons(conn, big, now=1_700_000_000_000) == []
        assert len(read_link_names(conn, big)) == 0
