"""`repository` events keep the repositories table true, keyed by id: renamed, transferred, deleted,
and a repository re-created under the same name with a new id (its jobs run, none dies)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Engine, select

from continual.tables import Account, Repository
from ghapp.tables import Job
from tests.conftest import WEBHOOK_SECRET
from tests.support.app_harness import INSTALLATION_ID, Harness, running_app
from tests.support.simulator import ORG, REPO
from tests.support.web import deliver


def owner_of(app: Harness) -> dict[str, Any]:
    (installed,) = [d for d in app.sim.deliveries if d.event == "installation"]
    account: dict[str, Any] = json.loads(installed.body)["installation"]["account"]
    return account


def repository_event(
    app: Harness, action: str, repo_id: int, full_name: str, owner: dict[str, Any]
) -> None:
    payload = {
        "action": action,
        "repository": {
            "id": repo_id,
            "name": full_name.split("/")[1],
            "full_name": full_name,
            "owner": owner,
            "private": False,
        },
        "installation": {"id": INSTALLATION_ID},
        "sender": owner,
    }
    with httpx.Client(trust_env=False) as client:
        answer = deliver(client, app.url, WEBHOOK_SECRET, "repository", payload)
    assert answer.status_code == 202, answer.text
    app.settle()


def rows(engine: Engine) -> dict[int, tuple[str, int, bool]]:
    with engine.connect() as conn:
        found = conn.execute(
            select(
                Repository.id, Repository.full_name, Repository.account_id, Repository.removed_ms
            )
        ).all()
    return {r.id: (r.full_name, r.account_id, r.removed_ms is None) for r in found}


def test_renamed_transferred_deleted_and_recreated_keep_the_store_consistent(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with running_app(engine, database_url, tmp_path) as app:
        owner = owner_of(app)
        old_id = app.repository_id(REPO)
        new_id = old_id + 1000

        # Re-created under the same name with a new id, the deletion never seen.
        repository_event(app, "created", new_id, REPO, owner)
        assert rows(engine)[new_id] == (REPO, owner["id"], True)
        assert rows(engine)[old_id] == (f"{REPO}#{old_id}", owner["id"], False)

        renamed = f"{ORG}/gadgets"
        repository_event(app, "renamed", new_id, renamed, owner)
        assert rows(engine)[new_id] == (renamed, owner["id"], True)

        other = {"login": "other-org", "id": 9_990_001, "type": "Organization"}
        repository_event(app, "transferred", new_id, "other-org/gadgets", other)
        assert rows(engine)[new_id] == ("other-org/gadgets", other["id"], True)

        repository_event(app, "deleted", new_id, "other-org/gadgets", other)
        assert rows(engine)[new_id] == (f"other-org/gadgets#{new_id}", other["id"], False)

        # And the name is free again for a repository created under it.
        repository_event(app, "created", new_id + 1, "other-org/gadgets", other)
        assert rows(engine)[new_id + 1] == ("other-org/gadgets", other["id"], True)

        # The first repository comes back through an event about it: its row is revived by id.
        repository_event(app, "renamed", old_id, f"{ORG}/widgets-2", owner)
        assert rows(engine)[old_id] == (f"{ORG}/widgets-2", owner["id"], True)
    with engine.connect() as conn:
        states = conn.execute(select(Job.kind, Job.state)).all()
        logins = set(conn.execute(select(Account.login)).scalars())
    assert {state for _, state in states} == {"done"}, states
    assert {"other-org", owner["login"]} <= logins
