"""Entry points for pull-request events: the review, the write-back and replies as they arrive."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.orm import Session

from ghapp.deps import Deps
from ghapp.handlers.reviews import on_review
from ghapp.handlers.writeback import on_writeback
from ghapp.jobs import ClaimedJob
from ghapp.router import Payload, Route
from ghapp.tenants import repository_from_event

log = logging.getLogger(__name__)

REVIEW_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})
WRITEBACK_ACTIONS = frozenset({"synchronize", "closed"})


def note_repository(deps: Deps, payload: Payload) -> None:
    with Session(deps.engine) as session, session.begin():
        repository_from_event(session, payload, deps.clock())


def _pull_fields(payload: Payload) -> dict[str, object]:
    repo = payload.get("repository") or {}
    pull = payload.get("pull_request") or payload.get("issue") or {}
    return {
        "repo": repo.get("full_name"),
        "pr": pull.get("number"),
        "action": payload.get("action"),
    }


async def on_review_comment(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
    await asyncio.to_thread(note_repository, deps, payload)
    log.info("review comment noted", extra={"job": job.id, **_pull_fields(payload)})


def _is_pull_request_comment(payload: Payload) -> bool:
    issue = payload.get("issue") or {}
    return bool(issue.get("pull_request"))


def _not_draft(payload: Payload) -> bool:
    return not (payload.get("pull_request") or {}).get("draft", False)


ROUTES = [
    # The write-back for the old head runs before the new head is reviewed (same serial key).
    Route(
        event="pull_request",
        actions=WRITEBACK_ACTIONS,
        kind="pull_request.writeback",
        handler=on_writeback,
    ),
    Route(
        event="pull_request",
        actions=REVIEW_ACTIONS,
        kind="pull_request.review",
        handler=on_review,
        when=_not_draft,
    ),
    Route(
        event="pull_request_review_comment",
        actions=frozenset({"created", "edited", "deleted"}),
        kind="review_comment.note",
        handler=on_review_comment,
    ),
    Route(
        event="issue_comment",
        actions=frozenset({"created", "edited", "deleted"}),
        kind="issue_comment.note",
        handler=on_review_comment,
        when=_is_pull_request_comment,
    ),
]
