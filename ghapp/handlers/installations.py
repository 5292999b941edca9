"""`installation`, `installation_repositories` and `installation_target`: keep tenants true (a
renamed account included), stop a gone app's jobs, and ask for the history back-fill of every
repository the app is installed on."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy import update
from sqlalchemy.orm import Session

from continual.tables import Repository
from ghapp.deps import Deps
from ghapp.envelopes import (
    InstallationEvent,
    InstallationRepositoriesEvent,
    InstallationTargetEvent,
)
from ghapp.history import schedule_all, stop_for
from ghapp.jobs import ClaimedJob
from ghapp.router import Route, installation_key
from ghapp.tables import Installation, JobState
from ghapp.tenants import (
    remove_repositories,
    upsert_account,
    upsert_installation,
    upsert_repositories,
)

log = logging.getLogger(__name__)


def apply_installation(deps: Deps, event: InstallationEvent) -> None:
    action, installation = event.action, event.installation
    now = deps.clock()
    with Session(deps.engine) as session, session.begin():
        row = upsert_installation(session, installation, now)
        conn = session.connection()
        if action == "created":
            upsert_repositories(
                session,
                event.repositories or (),
                account_id=row.account_id,
                installation_id=row.id,
                now=now,
                account_login=installation.account.login,
            )
            if deps.settings.history_on_install:
                session.flush()
                schedule_all(conn, [repo.id for repo in event.repositories or ()], now)
        elif action == "deleted":
            row.deleted_ms = now
            session.execute(
                update(Repository)
                .where(Repository.installation_id == row.id, Repository.removed_ms.is_(None))
                .values(removed_ms=now)
            )
            deps.queue.hold_installation(conn, row.id, JobState.CANCELLED)
            stop_for(
                conn, reason="the installation was removed", now_ms=now, installation_id=row.id
            )
        elif action == "suspend":
            row.suspended_ms = now
            deps.queue.hold_installation(conn, row.id, JobState.HELD)
        elif action == "unsuspend":
            row.suspended_ms = None
            deps.queue.release_installation(conn, row.id, now)
    log.info("installation updated", extra={"installation": installation.id, "action": action})


def apply_installation_repositories(deps: Deps, event: InstallationRepositoriesEvent) -> None:
    installation = event.installation
    now = deps.clock()
    with Session(deps.engine) as session, session.begin():
        row = session.get(Installation, installation.id)
        if row is None:
            row = upsert_installation(session, installation, now)
        account = upsert_account(session, installation.account, now)
        upsert_repositories(
            session,
            event.repositories_added or (),
            account_id=account.id,
            installation_id=row.id,
            now=now,
            account_login=account.login,
        )
        if deps.settings.history_on_install:
            session.flush()
            added = [repo.id for repo in event.repositories_added or ()]
            schedule_all(session.connection(), added, now)
        removed = [repo.id for repo in event.repositories_removed or ()]
        remove_repositories(session, removed, now)
        if removed:
            session.flush()
            reason = "the repository left the installation"
            stop_for(session.connection(), reason=reason, now_ms=now, repository_ids=removed)


def apply_account_renamed(deps: Deps, event: InstallationTargetEvent) -> None:
    """The installation's account has a new login: its row (found by id) takes it."""
    now = deps.clock()
    with Session(deps.engine) as session, session.begin():
        upsert_account(session, event.account, now)
    log.info(
        "account renamed",
        extra={"installation": event.installation.id, "account": event.account.id},
    )


async def on_installation(deps: Deps, job: ClaimedJob, event: InstallationEvent) -> None:
    await asyncio.to_thread(apply_installation, deps, event)


async def on_installation_repositories(
    deps: Deps, job: ClaimedJob, event: InstallationRepositoriesEvent
) -> None:
    await asyncio.to_thread(apply_installation_repositories, deps, event)


async def on_installation_target(
    deps: Deps, job: ClaimedJob, event: InstallationTargetEvent
) -> None:
    await asyncio.to_thread(apply_account_renamed, deps, event)


ROUTES = [
    Route(
        event="installation",
        actions=frozenset({"created", "deleted", "suspend", "unsuspend"}),
        kind="installation.sync",
        handler=on_installation,
        shape=InstallationEvent,
        serial_key=installation_key,
        lifecycle=True,
    ),
    Route(
        event="installation_repositories",
        actions=frozenset({"added", "removed"}),
        kind="installation.repositories",
        handler=on_installation_repositories,
        shape=InstallationRepositoriesEvent,
        serial_key=installation_key,
        lifecycle=True,
    ),
    Route(
        event="installation_target",
        actions=frozenset({"renamed"}),
        kind="installation.target",
        handler=on_installation_target,
        shape=InstallationTargetEvent,
        serial_key=installation_key,
        lifecycle=True,
    ),
]
