"""`pull_request` opened / synchronize / reopened: review the new head and post one review."""

from __future__ import annotations

import asyncio
import logging

import httpx

from continual.writeback.authors import bot_login
from ghapp.deps import Deps
from ghapp.envelopes import PullRequestEvent
from ghapp.github.reviewing import InstallationReviewGitHub
from ghapp.jobs import ClaimedJob
from ghapp.tenants import note_repository
from review.pipeline import review_pull
from review.records import ReviewTarget

log = logging.getLogger(__name__)


async def on_review(deps: Deps, job: ClaimedJob, event: PullRequestEvent) -> None:
    account_id = await asyncio.to_thread(note_repository, deps.engine, event, deps.clock())
    head = event.pull_request.head
    config = deps.review_config
    if (
        event.installation is None
        or head is None
        or account_id is None
        or deps.github is None
        or config is None
    ):
        log.info("review skipped: nothing to review with", extra={"job": job.id})
        return
    repository = event.repository
    target = ReviewTarget(
        account_id, repository.id, repository.full_name, event.pull_request.number, head.sha
    )
    slug = await deps.github.app_slug(deps.settings.app_slug)
    github = InstallationReviewGitHub(
        deps.github.installation(event.installation.id), bot_login=bot_login(slug)
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
