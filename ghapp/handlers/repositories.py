"""`repository` events: a repository created, renamed, transferred or deleted keeps its row (keyed by
id) true, so a name reused by a new repository never collides with the old one."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.orm import Session

from ghapp.deps import Deps
from ghapp.envelopes import RepositoryEvent
from ghapp.jobs import ClaimedJob
from ghapp.router import Route, installation_key
from ghapp.tenants import repository_from_event, retire_repository

log = logging.getLogger(__name__)

ACTIONS = frozenset({"created", "renamed", "transferred", "deleted"})


def apply_repository(deps: Deps, event: RepositoryEvent) -> None:
    action, repository_id = event.action, event.repository.id
    now = deps.clock()
    with Session(deps.engine) as session, session.begin():
        if action == "deleted":
            retire_repository(session, repository_id, now)
        else:  # its current name and owner, whatever they were before
            repository_from_event(session, event, now)
    log.info("repository updated", extra={"repository": repository_id, "action": action})


async def on_repository(deps: Deps, job: ClaimedJob, event: RepositoryEvent) -> None:
    await asyncio.to_thread(apply_repository, deps, event)


ROUTES = [
    Route(
        event="repository",
        actions=ACTIONS,
        kind="repository.sync",
        handler=on_repository,
        shape=RepositoryEvent,
        serial_key=installation_key,
    ),
]
