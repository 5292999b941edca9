"""`/fix` in a suggestion's thread: the route, and who may ask (maintainers only, never bots)."""

from __future__ import annotations

import asyncio
import logging

from continual import store
from continual.fixes import is_fix_command
from continual.store import fixes as fix_store
from continual.stored import StoredSuggestion
from continual.writeback.authors import Author, is_bot_account, is_maintainer
from ghapp.db import reading
from ghapp.deps import Deps
from ghapp.envelopes import Pull, ReviewCommentEvent
from ghapp.fixes.opening import FixOutcome, PullSnapshot, request_fix
from ghapp.jobs import ClaimedJob
from ghapp.router import Route

log = logging.getLogger(__name__)


def _may_ask(event: ReviewCommentEvent) -> bool:
    """The router's cheap filter: a person's reply in a thread whose first line is `/fix`."""
    comment, user = event.comment, event.comment.user
    if user is None or comment.in_reply_to_id is None:
        return False
    via_app = bool(comment.performed_via_github_app)
    if is_bot_account(user.login or "", user.type, via_app=via_app):
        return False
    return is_fix_command(comment.body)


def asker(event: ReviewCommentEvent) -> Author:
    comment = event.comment
    user = comment.user
    return Author(
        login=(user.login if user is not None else None) or "",
        type=(user.type if user is not None else None) or "User",
        association=comment.author_association or "NONE",
        via_app=bool(comment.performed_via_github_app),
    )


def snapshot(repo: str, pull: Pull) -> PullSnapshot | None:
    """The pull request as the event carries it; None when it lacks its branches."""
    head, base = pull.head, pull.base
    if head is None or base is None or head.ref is None or base.ref is None:
        return None
    return PullSnapshot(
        repo=repo,
        number=pull.number,
        state=pull.state or "open",
        merged=bool(pull.merged) or pull.merged_at is not None,
        head_ref=head.ref,
        head_repository=head.repo.full_name if head.repo is not None else None,
        base_ref=base.ref,
    )


def _suggestion(deps: Deps, repo: str, number: int, comment_id: int) -> StoredSuggestion | None:
    with reading(deps.engine) as conn:
        repository_id = store.repository_id(conn, repo)
        if repository_id is None:
            return None
        found = fix_store.suggestion_of_comment(conn, repository_id, comment_id)
    return found if found is not None and found.pr == number else None


async def on_fix_command(deps: Deps, job: ClaimedJob, event: ReviewCommentEvent) -> None:
    """A maintainer's `/fix` (or `@<slug> fix`) under one of the app's suggestions opens its fix
    PR; anyone else's, or one under a comment that is not the app's, is ignored unanswered."""
    assert deps.github is not None, "a fix PR needs the GitHub client"
    comment = event.comment
    repo = event.repository.full_name
    fields = {"job": job.id, "repo": repo, "pr": event.pull_request.number}
    who = asker(event)
    if comment.id is None or comment.in_reply_to_id is None or not is_maintainer(who):
        log.info("fix request ignored: not a maintainer's", extra=fields)
        return
    slug = await deps.github.app_slug(deps.settings.app_slug)
    if not is_fix_command(comment.body, app_slug=slug) or event.installation is None:
        return
    suggestion = await asyncio.to_thread(
        _suggestion, deps, repo, event.pull_request.number, comment.in_reply_to_id
    )
    pull = snapshot(repo, event.pull_request)
    if suggestion is None or pull is None:
        log.info("fix request ignored: not under a suggestion of the app", extra=fields)
        return
    client = deps.github.installation(event.installation.id)
    outcome: FixOutcome = await request_fix(
        deps, client, suggestion, pull, asked_by=who.login, comment_id=comment.id
    )
    log.info(
        "fix request handled",
        extra={
            **fields,
            "fix": outcome.number,
            "linked": outcome.linked,
            "requests": outcome.requests,
        },
    )


ROUTES = [
    Route(
        event="pull_request_review_comment",
        actions=frozenset({"created"}),
        kind="review_comment.fix",
        handler=on_fix_command,
        shape=ReviewCommentEvent,
        when=_may_ask,
    ),
]
