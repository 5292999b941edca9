"""The pull-request routes: which events review a head and which write back what maintainers did."""

from __future__ import annotations

from continual.writeback.authors import is_bot_account
from ghapp.envelopes import (
    Comment,
    IssueCommentEvent,
    PullRequestEvent,
    ReviewCommentEvent,
    ReviewEvent,
    ReviewThreadEvent,
)
from ghapp.handlers.reviews import on_review
from ghapp.router import Route
from ghapp.writeback.pipeline import on_writeback

REVIEW_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})
WRITEBACK_ACTIONS = frozenset({"synchronize", "closed", "reopened"})
COMMENT_ACTIONS = frozenset({"created", "edited", "deleted"})
REVIEW_EVENT_ACTIONS = frozenset({"submitted", "edited", "dismissed"})
THREAD_ACTIONS = frozenset({"resolved", "unresolved"})
# Every job kind that runs the write-back of one pull request; they stand in for each other.
WRITEBACK_KINDS = frozenset(
    {
        "pull_request.writeback",
        "review_comment.writeback",
        "review.writeback",
        "issue_comment.writeback",
        "review_thread.writeback",
    }
)
COALESCE_MS = 2_000


def _not_draft(event: PullRequestEvent) -> bool:
    return not event.pull_request.draft


def _by_a_person(action: str, item: Comment) -> bool:
    """A comment or review that a bot wrote or edited decides nothing (a deleted one may: it can
    be the app's own suggestion, or a maintainer's reply, going away)."""
    user = item.user
    if action == "deleted" or user is None:
        return True
    via_app = bool(item.performed_via_github_app)
    return not is_bot_account(user.login or "", user.type, via_app=via_app)


def _comment_may_decide(event: ReviewCommentEvent) -> bool:
    return _by_a_person(event.action, event.comment)


def _review_may_decide(event: ReviewEvent) -> bool:
    return _by_a_person(event.action, event.review)


def _thread_by_a_person(event: ReviewThreadEvent) -> bool:
    """A bot resolving a thread is no evidence; a person's resolution (or its undoing) is read,
    and counts only if a maintainer's (docs/writeback.md)."""
    sender = event.sender
    return sender is None or not is_bot_account(sender.login or "", sender.type)


def _comment_on_pull_request(event: IssueCommentEvent) -> bool:
    return bool(event.issue.pull_request) and _by_a_person(event.action, event.comment)


def routes(*, coalesce_ms: int = COALESCE_MS) -> list[Route]:
    """The pull-request routes. Every event that can change what maintainers decided runs the
    write-back, also long after the merge; a burst of them on one pull request is one run."""
    return [
        # The write-back for the old head runs before the new head is reviewed (same serial key).
        Route(
            event="pull_request",
            actions=WRITEBACK_ACTIONS,
            kind="pull_request.writeback",
            handler=on_writeback,
            shape=PullRequestEvent,
        ),
        Route(
            event="pull_request",
            actions=REVIEW_ACTIONS,
            kind="pull_request.review",
            handler=on_review,
            shape=PullRequestEvent,
            when=_not_draft,
        ),
        Route(
            event="pull_request_review_comment",
            actions=COMMENT_ACTIONS,
            kind="review_comment.writeback",
            handler=on_writeback,
            shape=ReviewCommentEvent,
            when=_comment_may_decide,
            coalesce_with=WRITEBACK_KINDS,
            delay_ms=coalesce_ms,
        ),
        Route(
            event="pull_request_review",
            actions=REVIEW_EVENT_ACTIONS,
            kind="review.writeback",
            handler=on_writeback,
            shape=ReviewEvent,
            when=_review_may_decide,
            coalesce_with=WRITEBACK_KINDS,
            delay_ms=coalesce_ms,
        ),
        Route(
            event="pull_request_review_thread",
            actions=THREAD_ACTIONS,
            kind="review_thread.writeback",
            handler=on_writeback,
            shape=ReviewThreadEvent,
            when=_thread_by_a_person,
            coalesce_with=WRITEBACK_KINDS,
            delay_ms=coalesce_ms,
        ),
        Route(
            event="issue_comment",
            actions=COMMENT_ACTIONS,
            kind="issue_comment.writeback",
            handler=on_writeback,
            shape=IssueCommentEvent,
            when=_comment_on_pull_request,
            coalesce_with=WRITEBACK_KINDS,
            delay_ms=coalesce_ms,
        ),
    ]
