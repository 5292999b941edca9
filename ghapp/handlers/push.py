"""`push`: a push to the default branch runs maintenance of the lessons whose code it touched."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from continual.maintenance import Action
from ghapp.deps import Deps
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


def to_default_branch(payload: Payload) -> bool:
    """A push that moved the default branch to a commit (not a deletion, not another branch)."""
    repo = payload.get("repository") or {}
    branch = repo.get("default_branch") if isinstance(repo, Mapping) else None
    after = payload.get("after")
    return (
        isinstance(branch, str)
        and payload.get("ref") == f"refs/heads/{branch}"
        and not payload.get("deleted", False)
        and isinstance(after, str)
        and after != NO_COMMIT
    )


def maintenance_seat(deps: Deps) -> TextSeat | None:
    config = deps.review_config
    name = config.maintenance.seat if config is not None else None
    return make_seat(config.seat(name)) if config is not None and name is not None else None


async def on_push(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
    assert deps.github is not None, "maintenance needs the GitHub client"
    installation = payload.get("installation") or {}
    repository = payload.get("repository") or {}
    installation_id = installation.get("id") if isinstance(installation, Mapping) else None
    repo = repository.get("full_name") if isinstance(repository, Mapping) else None
    if not isinstance(installation_id, int) or not isinstance(repo, str):
        log.warning("push without an installation or repository", extra={"job": job.id})
        return
    before = payload.get("before")
    run = await maintain(
        deps.github.installation(installation_id),
        deps.engine,
        repo=repo,
        head=str(payload["after"]),
        before=before if isinstance(before, str) and before != NO_COMMIT else None,
        forced=bool(payload.get("forced")),
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
        serial_key=repository_key,
        when=to_default_branch,
    )
]
