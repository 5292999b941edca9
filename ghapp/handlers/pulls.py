"""The pull-request routes: which events review a head and which write back what maintainers did."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from continual.writeback.authors import is_bot_account
from ghapp.envelopes import (
    IssueCommentEvent,
    PullRequestEvent,
    ReviewCommentEvent,
    ReviewEvent,
)
from ghapp.handlers.reviews import on_review
from ghapp.router import Payload, Route
from ghapp.writeback.pipeline import on_writeback

REVIEW_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})
WRITEBACK_ACTIONS = frozenset({"synchronize", "closed", "reopened"})
COMMENT_ACTIONS = frozenset({"created", "edited", "deleted"})
REVIEW_EVENT_ACTIONS = frozenset({"submitted", "edited", "dismissed"})
# Every job kind that runs the write-back of one pull request; they stand in for each other.
WRITEBACK_KINDS = frozenset(
    {
        "pull_request.writeback",
        "review_comment.writeback",
        "review.writeback",
        "issue_comment.writeback",
    }
)
COALESCE_MS = 2_000


def _is_pull_request_comment(payload: Payload) -> bool:
    issue = payload.get("issue") or {}
    return isinstance(issue, Mapping) and bool(issue.get("pull_request"))


def _not_draft(payload: Payload) -> bool:
    pull = payload.get("pull_request") or {}
    return not (isinstance(pull, Mapping) and pull.get("draft", False))


def _may_decide(subject: str) -> Callable[[Payload], bool]:
    """A comment or review that a bot wrote or edited decides nothing (a deleted one may: it can
    be the app's own suggestion, or a maintainer's reply, going away)."""

    def check(payload: Payload) -> bool:
        item = payload.get(subject) or {}
        user = item.get("user") if isinstance(item, Mapping) else None
        if payload.get("action") == "deleted" or not isinstance(user, Mapping):
            return True
        via_app = bool(item.get("performed_via_github_app"))
        return not is_bot_account(str(user.get("login", "")), user.get("type"), via_app=via_app)

    return check


def _comment_on_pull_request(payload: Payload) -> bool:
    return _is_pull_request_comment(payload) and _may_decide("comment")(payload)


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
            when=_may_decide("comment"),
            coalesce_with=WRITEBACK_KINDS,
            delay_ms=coalesce_ms,
        ),
        Route(
            event="pull_request_review",
            actions=REVIEW_EVENT_ACTIONS,
            kind="review.writeback",
            handler=on_writeback,
            shape=ReviewEvent,
            when=_may_decide("review"),
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
