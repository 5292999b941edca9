"""`repository` events: a repository created, renamed, transferred or deleted keeps its row (keyed by
id) true, so a name reused by a new repository never collides with the old one."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.orm import Session

from ghapp.deps import Deps
from ghapp.envelopes import RepositoryEvent
from ghapp.jobs import ClaimedJob
from ghapp.router import Payload, Route, installation_key
from ghapp.tenants import repository_from_event, retire_repository

log = logging.getLogger(__name__)

ACTIONS = frozenset({"created", "renamed", "transferred", "deleted"})


def apply_repository(deps: Deps, payload: Payload) -> None:
    action = payload["action"]
    repository_id = payload["repository"]["id"]
    now = deps.clock()
    with Session(deps.engine) as session, session.begin():
        if action == "deleted":
            retire_repository(session, repository_id, now)
        else:  # its current name and owner, whatever they were before
            repository_from_event(session, payload, now)
    log.info("repository updated", extra={"repository": repository_id, "action": action})


async def on_repository(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
    await asyncio.to_thread(apply_repository, deps, payload)


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
