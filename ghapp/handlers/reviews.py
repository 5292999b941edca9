"""`pull_request` opened / synchronize / reopened: review the new head and post one review."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from continual.writeback.authors import bot_login
from ghapp.deps import Deps
from ghapp.github.reviewing import InstallationReviewGitHub
from ghapp.jobs import ClaimedJob
from ghapp.router import Payload
from ghapp.tenants import note_repository
from review.pipeline import review_pull
from review.records import ReviewTarget

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PullEvent:
    """What the handler needs from the payload."""

    installation_id: int
    repository: str
    repository_id: int
    pr: int
    head_sha: str


def _event(payload: Payload) -> PullEvent | None:
    repo: Mapping[str, Any] = payload.get("repository") or {}
    pull: Mapping[str, Any] = payload.get("pull_request") or {}
    installation: Mapping[str, Any] = payload.get("installation") or {}
    head: Mapping[str, Any] = pull.get("head") or {}
    try:
        return PullEvent(
            installation_id=int(installation["id"]),
            repository=str(repo["full_name"]),
            repository_id=int(repo["id"]),
            pr=int(pull["number"]),
            head_sha=str(head["sha"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


async def on_review(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
    account_id = await asyncio.to_thread(note_repository, deps.engine, payload, deps.clock())
    event = _event(payload)
    config = deps.review_config
    if event is None or account_id is None or deps.github is None or config is None:
        log.info("review skipped: nothing to review with", extra={"job": job.id})
        return
    target = ReviewTarget(
        account_id, event.repository_id, event.repository, event.pr, event.head_sha
    )
    slug = await deps.github.app_slug(deps.settings.app_slug)
    github = InstallationReviewGitHub(
        deps.github.installation(event.installation_id), bot_login=bot_login(slug)
    )
    await review_pull(
        target,
        github=github,
        engine=deps.engine,
        store_dir=deps.settings.store_dir,
        config=config,
        clock=deps.clock,
        snapshots=deps.snapshots,
        http=httpx.AsyncClient,
        log_fields={"job": job.id},
        sandbox=deps.sandbox,
    )
