"""Posting a review's stored draft exactly once, then tying its comments back to the store."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sqlalchemy import Engine

from continual.markers import parse_review_marker, parse_suggestion_marker
from review import records
from review.compose import Draft, fold_comments
from review.github import PlacementRefused, PostedComment, PostedReview, ReviewGitHub, ReviewGone
from review.records import ReviewTarget

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Poster:
    """What posting needs: GitHub, the store, a clock (ms) and the fields every log line carries."""

    github: ReviewGitHub
    engine: Engine
    clock: Callable[[], int]
    fields: Mapping[str, object]


async def post_draft(poster: Poster, target: ReviewTarget, draft: Draft, *, resume: bool) -> int:
    """Post ``draft`` (or, when resuming, adopt the review an earlier attempt posted); its id.

    Everything after the post is idempotent, and the head counts as reviewed only once all of it
    is recorded, so a crash in between is finished by the retry (which finds the review).
    """
    fields = {**poster.fields, "review": draft.review_id}
    posted = await _find_posted(poster.github, target, draft.review_id) if resume else None
    if posted is None:
        posted = await _create(poster.github, target, draft, fields)
        log.info("review posted", extra={**fields, "comments": len(draft.comments)})
    else:
        log.info("review found already posted", extra=fields)
    if draft.comments:
        comments = await _comments_of(poster.github, target, posted.id, fields)
        pairs = []
        for comment in comments:
            marker = parse_suggestion_marker(comment.body)
            if marker is not None:
                pairs.append((marker.suggestion_id, comment.id))
        await asyncio.to_thread(records.set_comment_ids, poster.engine, pairs)
    await asyncio.to_thread(
        records.mark_posted, poster.engine, draft.review_id, posted.id, now=poster.clock()
    )
    return posted.id


async def _find_posted(
    github: ReviewGitHub, target: ReviewTarget, review_id: str
) -> PostedReview | None:
    """A review of ours already on GitHub for this run (posted before an interruption).

    Only the app's own reviews are read, and in each only its last review marker counts.
    """
    for review in await github.list_reviews(target.repository, target.pr):
        if review.ours and parse_review_marker(review.body) == review_id:
            return review
    return None


async def _create(
    github: ReviewGitHub, target: ReviewTarget, draft: Draft, fields: Mapping[str, object]
) -> PostedReview:
    """ONE request for the review and all its comments; a refused placement folds them in."""
    try:
        return await github.create_review(
            target.repository,
            target.pr,
            commit_id=draft.commit_id,
            body=draft.body,
            comments=draft.comments,
        )
    except PlacementRefused:
        if not draft.comments:
            raise
        log.warning("review comments refused; posting them in the body", extra=fields)
        folded = fold_comments(draft)
        return await github.create_review(
            target.repository, target.pr, commit_id=folded.commit_id, body=folded.body
        )


async def _comments_of(
    github: ReviewGitHub, target: ReviewTarget, review_id: int, fields: Mapping[str, object]
) -> list[PostedComment]:
    try:
        return await github.list_review_comments(target.repository, target.pr, review_id)
    except ReviewGone:  # deleted before we could read them back: nothing left to link
        log.info("posted comments gone before they were read back", extra=fields)
        return []
