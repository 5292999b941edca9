"""`pull_request` opened / synchronize / reopened: review the new head and post one review."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.orm import Session

from ghapp.deps import Deps
from ghapp.jobs import ClaimedJob
from ghapp.router import Payload
from ghapp.tenants import repository_from_event

log = logging.getLogger(__name__)


def _note_repository(deps: Deps, payload: Payload) -> None:
    with Session(deps.engine) as session, session.begin():
        repository_from_event(session, payload, deps.clock())


async def on_review(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
    await asyncio.to_thread(_note_repository, deps, payload)
    log.info("review requested", extra={"job": job.id})
