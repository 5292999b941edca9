"""`pull_request` opened / synchronize / reopened: review the new head and post one review."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
from sqlalchemy.orm import Session

from continual.associations import find_identifiers
from continual.markers import parse_suggestion_marker
from continual.memory import MemoryItem, recall_items, write_session_file
from continual.surfaces import Handed, hand_review_lessons
from continual.tables import ReviewState
from continual.values import Source
from continual.writeback import apply_decisions
from ghapp.deps import Deps
from ghapp.github.client import DraftComment, InstallationClient, Rejected, Review
from ghapp.github.errors import Gone
from ghapp.github.values import DiffEntry, ReviewComment
from ghapp.jobs import ClaimedJob
from ghapp.router import Payload
from ghapp.tenants import repository_from_event
from review import records
from review.compose import Draft, compose, fold_comments, marked_review_id
from review.config import ReviewConfig
from review.contract import LessonRef, PullRequestInfo
from review.orchestrate import ReviewJob, run_review
from review.proof import checkout_dir
from review.records import ReviewTarget
from review.seats import make_seat
from review.shards import PullFile

MAX_IDENTIFIERS = 200
UNPROCESSABLE = 422

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


def _note_repository(deps: Deps, payload: Payload) -> int | None:
    with Session(deps.engine) as session, session.begin():
        row = repository_from_event(session, payload, deps.clock())
        return row.account_id if row is not None else None


async def on_review(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
    account_id = await asyncio.to_thread(_note_repository, deps, payload)
    event = _event(payload)
    config = deps.review_config
    if event is None or account_id is None or deps.github is None or config is None:
        log.info("review skipped: nothing to review with", extra={"job": job.id})
        return
    fields = {"job": job.id, "repo": event.repository, "pr": event.pr}
    client = deps.github.installation(event.installation_id)
    pull = await client.get_pull(event.repository, event.pr)
    if pull.state != "open" or pull.draft or pull.head_sha != event.head_sha:
        log.info("review skipped: pull request closed, draft or moved on", extra=fields)
        return
    target = ReviewTarget(
        account_id, event.repository_id, event.repository, event.pr, pull.head_sha
    )
    claim = await asyncio.to_thread(records.claim_review, deps.engine, target, now=deps.clock())
    fields["review"] = claim.review_id
    if claim.state in (ReviewState.POSTED, ReviewState.EMPTY):
        log.info("review already done for this head", extra=fields)
        return
    if claim.state is ReviewState.POSTING and claim.draft is not None:
        log.info("review resumes posting", extra=fields)
        await _post(deps, client, target, claim.draft, resume=True)
        return
    info = PullRequestInfo(pull.number, pull.title, pull.body, pull.head_sha, pull.base_sha)
    files = [_file(item) for item in await client.list_pull_files(event.repository, event.pr)]
    draft = await _review(deps, config, target, claim.review_id, info, files)
    if draft is not None:
        await _post(deps, client, target, draft, resume=False)


def _file(item: DiffEntry) -> PullFile:
    return PullFile(path=item.filename, status=item.status, patch=item.patch or "")


def _lessons(
    deps: Deps,
    target: ReviewTarget,
    review_id: str,
    info: PullRequestInfo,
    files: Sequence[PullFile],
) -> Handed:
    """The review's lessons: the one place recall is asked for them (and the set recorded)."""
    identifiers: list[str] = []
    for item in files:
        added = "\n".join(line[1:] for line in item.patch.splitlines() if line.startswith("+"))
        identifiers.extend(find_identifiers(added))
        if len(identifiers) >= MAX_IDENTIFIERS:
            break
    cap = deps.review_config.review.lesson_cap if deps.review_config else 0
    return hand_review_lessons(
        deps.engine,
        deps.settings.store_dir,
        account_id=target.account_id,
        repository_id=target.repository_id,
        session_id=review_id,
        paths=[item.path for item in files],
        identifiers=list(dict.fromkeys(identifiers))[:MAX_IDENTIFIERS],
        words=[info.title],
        cap=cap,
        now=deps.clock(),
        snapshots=deps.snapshots,
    )


def _recall(deps: Deps, target: ReviewTarget, review_id: str) -> list[MemoryItem]:
    with deps.engine.connect() as conn:
        return recall_items(
            conn,
            account_id=target.account_id,
            repository_id=target.repository_id,
            now_ms=deps.clock(),
            exclude_review=review_id,
        )


async def _review(
    deps: Deps,
    config: ReviewConfig,
    target: ReviewTarget,
    review_id: str,
    info: PullRequestInfo,
    files: list[PullFile],
) -> Draft | None:
    """Run the calls, store what they produced, answer the draft to post (None: nothing to post)."""
    handed = await asyncio.to_thread(_lessons, deps, target, review_id, info, files)
    recalled = await asyncio.to_thread(_recall, deps, target, review_id)
    checkout = checkout_dir(deps.settings.store_dir, target.repository)
    job = ReviewJob(
        review_id=review_id,
        repository=target.repository,
        pull=info,
        files=tuple(files),
        lessons=tuple(LessonRef(item.id, item.key, item.text) for item in handed.lessons),
        lessons_text=handed.text,
        recalled=tuple(recalled),
        checkout=checkout if checkout.is_dir() else None,
    )
    async with httpx.AsyncClient() as http:
        seats = [make_seat(seat, client=http) for seat in config.seats]
        run = await run_review(job, seats=seats, lenses=config.lenses, settings=config.review)
    now = deps.clock()
    suggestions = records.new_suggestion_ids(run.findings)
    draft = None
    if suggestions:
        draft = compose(
            review_id=review_id,
            commit_id=info.head_sha,
            findings=suggestions,
            files=files,
            calls=run.calls,
            seats=[seat.name for seat in config.seats],
            lenses=[lens.name for lens in config.lenses],
        )
    learned = run.memory.persistables(datetime.fromtimestamp(now / 1000, UTC))
    await asyncio.to_thread(
        records.save_run,
        deps.engine,
        target,
        run=run,
        suggestions=suggestions,
        draft=draft,
        lessons_sha256=handed.set_sha256,
        lessons=len(handed.lessons),
        learned=learned,
        hits=run.hits,
        now=now,
    )
    await asyncio.to_thread(
        write_session_file,
        deps.settings.store_dir,
        target.repository,
        review_id,
        learned=learned,
        recalled=recalled,
        hits=run.hits,
        now_ms=now,
    )
    return draft


async def _find_posted(
    client: InstallationClient, target: ReviewTarget, review_id: str
) -> Review | None:
    """A review of ours already on GitHub for this run (posted before an interruption)."""
    for review in await client.list_reviews(target.repository, target.pr):
        if review.user.is_bot and marked_review_id(review.body) == review_id:
            return review
    return None


async def _create(client: InstallationClient, target: ReviewTarget, draft: Draft) -> Review:
    """ONE request for the review and all its comments; a refused placement folds them in."""
    try:
        return await client.create_review(
            target.repository,
            target.pr,
            commit_id=draft.commit_id,
            body=draft.body,
            comments=[DraftComment(c.path, c.line, c.body) for c in draft.comments],
        )
    except Rejected as exc:
        if exc.status != UNPROCESSABLE or not draft.comments:
            raise
        log.warning(
            "review comments refused; posting them in the body",
            extra={"repo": target.repository, "pr": target.pr, "review": draft.review_id},
        )
        folded = fold_comments(draft)
        return await client.create_review(
            target.repository, target.pr, commit_id=folded.commit_id, body=folded.body
        )


async def _post(
    deps: Deps, client: InstallationClient, target: ReviewTarget, draft: Draft, *, resume: bool
) -> None:
    fields = {"repo": target.repository, "pr": target.pr, "review": draft.review_id}
    posted = await _find_posted(client, target, draft.review_id) if resume else None
    if posted is None:
        posted = await _create(client, target, draft)
        log.info("review posted", extra={**fields, "comments": len(draft.comments)})
    else:
        log.info("review found already posted", extra=fields)
    engine = deps.engine
    # Everything that follows the post is idempotent; the review counts as posted only once all
    # of it is recorded, so a crash in between is finished by the retry (which finds the review).
    comments: list[ReviewComment] = []
    if draft.comments:
        try:
            comments = await client.list_review_comments_of_review(
                target.repository, target.pr, posted.id
            )
        except Gone:  # deleted before we could read them back: nothing left to link
            log.info("posted comments gone before they were read back", extra=fields)
        pairs = []
        for comment in comments:
            marker = parse_suggestion_marker(comment.body)
            if marker is not None:
                pairs.append((marker.suggestion_id, comment.id))
        await asyncio.to_thread(records.set_comment_ids, engine, pairs)
    decisions = await asyncio.to_thread(
        records.proven_decisions, engine, draft.review_id, now=deps.clock()
    )
    if decisions:
        await asyncio.to_thread(
            apply_decisions, engine, decisions, source=Source.PROVEN, now=deps.clock()
        )
        log.info("proven findings written back", extra={**fields, "proven": len(decisions)})
    await asyncio.to_thread(
        records.mark_posted, engine, draft.review_id, posted.id, now=deps.clock()
    )
