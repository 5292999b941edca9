"""`push`: a push to the default branch runs maintenance of the lessons whose code it touched."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from continual.maintenance import Action
from ghapp.deps import Deps
from ghapp.envelopes import PushEvent
from ghapp.jobs import ClaimedJob
from ghapp.maintenance import maintain
from ghapp.router import Payload, Route
from review.seats import TextSeat, make_seat

NO_COMMIT = "0" * 40

log = logging.getLogger(__name__)


def repository_key(payload: Payload) -> str | None:
    """Maintenance runs of one repository run one at a time, in push order."""
    repo = payload.get("repository") or {}
    return f"repo:{repo['id']}" if isinstance(repo, Mapping) and "id" in repo else None


def to_default_branch(event: PushEvent) -> bool:
    """A push that moved the default branch to a commit (not a deletion, not another branch)."""
    branch = event.repository.default_branch if event.repository is not None else None
    return (
        branch is not None
        and event.ref == f"refs/heads/{branch}"
        and not event.deleted
        and event.after is not None
        and event.after != NO_COMMIT
    )


def maintenance_seat(deps: Deps) -> TextSeat | None:
    config = deps.review_config
    name = config.maintenance.seat if config is not None else None
    return make_seat(config.seat(name)) if config is not None and name is not None else None


async def on_push(deps: Deps, job: ClaimedJob, event: PushEvent) -> None:
    assert deps.github is not None, "maintenance needs the GitHub client"
    repo = event.repository.full_name if event.repository is not None else None
    if event.installation is None or repo is None or event.after is None:
        log.warning("push without an installation, repository or head", extra={"job": job.id})
        return
    before = event.before
    run = await maintain(
        deps.github.installation(event.installation.id),
        deps.engine,
        repo=repo,
        head=event.after,
        before=before if before is not None and before != NO_COMMIT else None,
        forced=bool(event.forced),
        seat=maintenance_seat(deps),
        now=deps.clock(),
    )
    log.info(
        "maintenance done",
        extra={
            "job": job.id,
            "repo": repo,
            "head": run.head,
            "requests": run.reads.total,
            **{action.value: run.count(action) for action in Action},
        },
    )


ROUTES = [
    Route(
        event="push",
        actions=None,
        kind="push.maintain",
        handler=on_push,
        shape=PushEvent,
        serial_key=repository_key,
        when=to_default_branch,
    )
]
