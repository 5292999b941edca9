"""Logins are not identities: accounts are keyed by GitHub's id, a login GitHub gives to another
account moves to it, and a renamed account keeps its row, its repositories and its lessons."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from continual import persons
from continual.tables import Account, Entry, Repository
from ghapp.envelopes import Owner
from ghapp.purge import purge_account
from ghapp.tables import Job, JobState
from ghapp.tenants import upsert_account
from tests.conftest import FIXTURES
from tests.support.app_harness import Harness, running_app
from tests.support.recall import Tenant, accept
from tests.support.simulator import WEBHOOK_SECRET
from tests.support.web import deliver

NOW = 1_700_000_000_000


@pytest.fixture
def h(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    with running_app(engine, database_url, tmp_path) as harness:
        yield harness


def installation(
    action: str, installation_id: int, account_id: int, login: str, repos: dict[str, int]
) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(
        (FIXTURES / "installation" / "created.payload.json").read_text()
    )
    payload["action"] = action
    payload["installation"]["id"] = installation_id
    payload["installation"]["account"].update(id=account_id, login=login, type="Organization")
    payload["repositories"] = [
        {"id": rid, "name": full.partition("/")[2], "full_name": full, "private": False}
        for full, rid in repos.items()
    ]
    return payload


def renamed(installation_id: int, account_id: int, old: str, new: str) -> dict[str, Any]:
    """GitHub's `installation_target` event for an account renamed from `old` to `new`."""
    return {
        "action": "renamed",
        "account": {"id": account_id, "login": new, "type": "Organization"},
        "changes": {"login": {"from": old}},
        "installation": {"id": installation_id},
        "target_type": "Organization",
    }


def send(h: Harness, event: str, payload: dict[str, Any]) -> None:
    with httpx.Client(timeout=30) as client:
        response = deliver(client, h.url, WEBHOOK_SECRET, event, payload)
    assert response.status_code == 202, response.text
    h.settle()


def logins(engine: Engine) -> dict[int, str]:
    with engine.connect() as conn:
        return {int(i): str(x) for i, x in conn.execute(select(Account.id, Account.login))}


def names(engine: Engine) -> dict[int, str]:
    with engine.connect() as conn:
        return {
            int(i): str(x) for i, x in conn.execute(select(Repository.id, Repository.full_name))
        }


def no_job_failed(engine: Engine) -> None:
    with engine.connect() as conn:
        failed = conn.execute(
            select(Job.kind, Job.last_error).where(Job.state != JobState.DONE.value)
        ).all()
    assert failed == []


def test_a_login_reused_by_a_new_account_moves_to_it(h: Harness, tmp_path: Path) -> None:
    send(h, "installation", installation("created", 101, 1, "acme", {"acme/app": 11}))
    lesson = accept(h.engine, Tenant(1, "acme", {"acme/app": 11}), "acme/app")
    with h.engine.begin() as conn:
        old_token = persons.create_token(conn, "acme", "mona", now=NOW).secret

    # GitHub freed "acme" and gave it to a new organisation, with a new repository named app.
    send(h, "installation", installation("created", 102, 2, "acme", {"acme/app": 21}))

    no_job_failed(h.engine)
    assert logins(h.engine)[2] == "acme"
    assert logins(h.engine)[1] == "acme#1", "the old account gave the login up"
    assert names(h.engine)[21] == "acme/app"
    assert names(h.engine)[11] == "acme/app#11"
    with h.engine.connect() as conn:
        entries = conn.execute(select(Entry.account_id, Entry.repository_id)).all()
    assert [tuple(e) for e in entries] == [(1, 11)], f"{lesson}'s lesson stays with account 1"

    with h.engine.begin() as conn:
        assert persons.account_id_of(conn, "acme") == 2
        found = persons.authenticate(conn, old_token)
        assert found is not None and found[0].account_id == 1, "a token stays with its account"
        assert found[0].account_login == "acme#1"
        new_token = persons.create_token(conn, "acme", "mona", now=NOW + 1)
        assert [t.id for t in persons.list_tokens(conn, "acme")] == [new_token.info.id]
        caller = persons.authenticate(conn, new_token.secret)
        assert caller is not None and caller[0].account_id == 2

    purged = purge_account(h.engine, "acme", store_dir=tmp_path / "store")
    assert purged is not None and purged["accounts"] == 1
    assert 2 not in logins(h.engine) and logins(h.engine)[1] == "acme#1"
    with h.engine.connect() as conn:
        assert conn.execute(select(Entry.account_id)).scalars().all() == [1]


def test_a_renamed_account_keeps_its_row_and_names_its_repositories_anew(h: Harness) -> None:
    send(h, "installation", installation("created", 101, 1, "acme", {"acme/app": 11}))
    send(h, "installation_target", renamed(101, 1, "acme", "acme-labs"))

    no_job_failed(h.engine)
    assert logins(h.engine)[1] == "acme-labs"
    assert names(h.engine)[11] == "acme-labs/app"
    with h.engine.connect() as conn, pytest.raises(persons.NotFound):
        persons.account_id_of(conn, "acme")


def test_an_installation_event_with_a_new_login_updates_the_row(h: Harness) -> None:
    send(h, "installation", installation("created", 101, 1, "acme", {"acme/app": 11}))
    send(h, "installation", installation("suspend", 101, 1, "acme-two", {}))

    no_job_failed(h.engine)
    assert logins(h.engine)[1] == "acme-two"
    assert names(h.engine)[11] == "acme-two/app"


def test_two_accounts_that_swap_logins_keep_their_ids(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        upsert_account(session, Owner(id=1, login="left"), NOW)
        upsert_account(session, Owner(id=2, login="right"), NOW)
    with Session(engine) as session, session.begin():
        upsert_account(session, Owner(id=1, login="right"), NOW)
        upsert_account(session, Owner(id=2, login="left"), NOW)
    assert logins(engine) == {1: "right", 2: "left"}
