"""One review of a pull request's head, from the claim to the posted review: the path production runs."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import httpx
from sqlalchemy import Engine

from continual.associations import find_identifiers
from continual.maintenance.anchors import head_side
from continual.memory import memory_enabled, recall_items, write_session_file
from continual.patches import added_texts
from continual.recall import SnapshotCache
from continual.suppression import Withheld, render_dismissed, suppressing, unrefused
from continual.surfaces import Handed, hand_review_lessons
from continual.tables import ReviewState
from continual.times import from_ms
from review import records
from review.compose import Draft, compose
from review.config import ReviewConfig, SeatKind
from review.contract import LessonRef, PullRequestInfo
from review.github import ReviewGitHub
from review.orchestrate import run_review
from review.posting import Poster, post_draft
from review.proof import checkout_dir
from review.records import ReviewTarget
from review.runs import PostedFinding, ReviewJob, ReviewRun
from review.sandbox import Sandbox
from review.seats import make_seat
from review.shards import PullFile

MAX_IDENTIFIERS = 200

log = logging.getLogger(__name__)


class ReviewEnd(StrEnum):
    """How one attempt at reviewing a head ended."""

    SKIPPED = "skipped"  # closed, a draft, or the head moved on
    ALREADY_DONE = "already-done"  # an earlier attempt posted it, or found nothing to post
    EMPTY = "empty"  # the calls ran and found nothing to post
    POSTED = "posted"


@dataclass(frozen=True)
class Reviewer:
    """The collaborators of one review, as ``review_pull`` was handed them."""

    engine: Engine
    store_dir: Path
    config: ReviewConfig
    clock: Callable[[], int]
    snapshots: SnapshotCache
    http: Callable[[], httpx.AsyncClient]
    sandbox: Sandbox | None = None


async def review_pull(
    target: ReviewTarget,
    *,
    github: ReviewGitHub,
    engine: Engine,
    store_dir: Path,
    config: ReviewConfig,
    clock: Callable[[], int],
    snapshots: SnapshotCache,
    http: Callable[[], httpx.AsyncClient],
    log_fields: Mapping[str, object] | None = None,
    sandbox: Sandbox | None = None,
) -> ReviewEnd:
    """Review ``target``'s head once and post ONE review of it (or find that it was done).

    ``clock`` answers milliseconds; ``http`` opens the client the HTTP seats share for the run;
    ``log_fields`` (a job id, say) ride along on every log line of the review; ``sandbox`` is
    where proofs run (None: the machine's, detected once).
    """
    reviewer = Reviewer(engine, store_dir, config, clock, snapshots, http, sandbox)
    fields: dict[str, object] = {**(log_fields or {}), "repo": target.repository, "pr": target.pr}
    # The file list is read while the pull request is checked and the head claimed: the pages
    # are most of the GitHub round trips before the first call (dropped if nothing is reviewed).
    listing = asyncio.create_task(github.list_pull_files(target.repository, target.pr))
    try:
        pull = await github.get_pull(target.repository, target.pr)
        if not pull.open or pull.draft or pull.head_sha != target.head_sha:
            log.info("review skipped: pull request closed, draft or moved on", extra=fields)
            return ReviewEnd.SKIPPED
        claim = await asyncio.to_thread(records.claim_review, engine, target, now=clock())
        fields["review"] = claim.review_id
        poster = Poster(github, engine, clock, fields)
        if claim.state in (ReviewState.POSTED, ReviewState.EMPTY):
            log.info("review already done for this head", extra=fields)
            return ReviewEnd.ALREADY_DONE
        if claim.state is ReviewState.POSTING and claim.draft is not None:
            log.info("review resumes posting", extra=fields)
            await post_draft(poster, target, claim.draft, resume=True)
            return ReviewEnd.POSTED
        files = await listing
    finally:
        listing.cancel()  # a no-op once it is done; gathering retrieves any error it raised
        await asyncio.gather(listing, return_exceptions=True)
    draft = await _review(reviewer, target, claim.review_id, pull.info(), files)
    if draft is None:
        return ReviewEnd.EMPTY
    await post_draft(poster, target, draft, resume=False)
    return ReviewEnd.POSTED


def _lessons(
    reviewer: Reviewer,
    target: ReviewTarget,
    review_id: str,
    info: PullRequestInfo,
    files: Sequence[PullFile],
) -> Handed:
    """The review's lessons: the one place recall is asked for them (and the set recorded)."""
    identifiers: list[str] = []
    for item in files:
        added = "\n".join(added_texts(item.patch))
        identifiers.extend(find_identifiers(added))
        if len(identifiers) >= MAX_IDENTIFIERS:
            break
    return hand_review_lessons(
        reviewer.engine,
        reviewer.store_dir,
        account_id=target.account_id,
        repository_id=target.repository_id,
        session_id=review_id,
        paths=[item.path for item in files],
        identifiers=list(dict.fromkeys(identifiers))[:MAX_IDENTIFIERS],
        words=[info.title],
        cap=reviewer.config.review.lesson_cap,
        now=reviewer.clock(),
        snapshots=reviewer.snapshots,
        suppress_days=reviewer.config.writeback.suppress_days,
    )


def _job(
    reviewer: Reviewer,
    target: ReviewTarget,
    review_id: str,
    info: PullRequestInfo,
    files: Sequence[PullFile],
    handed: Handed,
) -> ReviewJob:
    """What the calls run over, memory of the repository's earlier reviews included (when the
    repository's memory is on)."""
    with reviewer.engine.connect() as conn:
        recalled = (
            recall_items(
                conn,
                account_id=target.account_id,
                repository_id=target.repository_id,
                now_ms=reviewer.clock(),
                exclude_review=review_id,
            )
            if memory_enabled(conn, target.repository_id)
            else []
        )
    recalled = unrefused(recalled, handed.dismissed)
    checkout = checkout_dir(reviewer.store_dir, target.repository)
    return ReviewJob(
        review_id=review_id,
        repository=target.repository,
        pull=info,
        files=tuple(files),
        lessons=tuple(LessonRef(item.id, item.key, item.text) for item in handed.lessons),
        lessons_text=handed.text,
        recalled=tuple(recalled),
        checkout=checkout if checkout.is_dir() else None,
        dismissed_text=render_dismissed(handed.dismissed),
        summary_text=handed.summary,
        sandbox=reviewer.sandbox,
    )


async def _review(
    reviewer: Reviewer,
    target: ReviewTarget,
    review_id: str,
    info: PullRequestInfo,
    files: Sequence[PullFile],
) -> Draft | None:
    """Run the calls, store what they produced, answer the draft to post (None: nothing to post)."""
    handed = await asyncio.to_thread(_lessons, reviewer, target, review_id, info, files)
    job = await asyncio.to_thread(_job, reviewer, target, review_id, info, files, handed)
    config = reviewer.config
    async with contextlib.AsyncExitStack() as stack:
        # The client is for HTTP seats alone: opening one builds a TLS context, tens of ms
        # before the first call that command seats would wait for and never use.
        http = None
        if any(seat.kind is not SeatKind.COMMAND for seat in config.seats):
            http = await stack.enter_async_context(reviewer.http())
        seats = [make_seat(seat, client=http) for seat in config.seats]
        run = await run_review(job, seats=seats, lenses=config.lenses, settings=config.review)
    now = reviewer.clock()
    posted, withheld = withhold(run.findings, handed)
    suggestions = records.new_suggestion_ids(posted)
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
            withheld=len(withheld),
        )
    await asyncio.to_thread(
        _save, reviewer, target, job, run, suggestions, withheld, draft, handed, now
    )
    if withheld:
        log.info(
            "findings withheld: dismissed here before",
            extra={"review": review_id, "repo": target.repository, "withheld": len(withheld)},
        )
    return draft


def withhold(
    findings: Sequence[PostedFinding], handed: Handed
) -> tuple[list[PostedFinding], list[Withheld]]:
    """Split the findings into those to post and those whose mechanism was dismissed here."""
    posted: list[PostedFinding] = []
    withheld: list[Withheld] = []
    for item in findings:
        finding = item.finding
        suppression = suppressing(handed.dismissed, item.key, finding.path)
        if suppression is None:
            posted.append(item)
            continue
        withheld.append(
            Withheld(
                key=item.key,
                path=finding.path,
                line=finding.line,
                seat=item.seat,
                lens=item.lens,
                title=finding.title,
                suppression=suppression,
            )
        )
    return posted, withheld


def _save(
    reviewer: Reviewer,
    target: ReviewTarget,
    job: ReviewJob,
    run: ReviewRun,
    suggestions: Sequence[tuple[str, PostedFinding]],
    withheld: Sequence[Withheld],
    draft: Draft | None,
    handed: Handed,
    now: int,
) -> None:
    """Everything the run produced, in one transaction, then the session's memory file; with
    the repository's memory off, nothing of the run's memory is kept."""
    with reviewer.engine.connect() as conn:
        keep = memory_enabled(conn, target.repository_id)
    learned = run.memory.persistables(from_ms(now)) if keep else []
    learned = records.save_run(
        reviewer.engine,
        target,
        run=run,
        suggestions=suggestions,
        withheld=withheld,
        draft=draft,
        lessons_sha256=handed.set_sha256,
        lessons=len(handed.lessons),
        learned=learned,
        hits=run.hits if keep else (),
        now=now,
        context={item.path: head_side(item.patch) for item in job.files},
    )
    if not keep:
        return
    write_session_file(
        reviewer.store_dir,
        target.repository,
        job.review_id,
        learned=learned,
        recalled=job.recalled,
        hits=run.hits,
        now_ms=now,
    )
