"""The write-back at the door: read what a pull request shows now and hand it to the core to record."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime

from continual import store
from continual.maintenance import note_merge
from continual.replies import Deferral, Verdict
from continual.stored import StoredSuggestion
from continual.times import from_ms, parse_iso
from continual.writeback.apply import (
    PullResult,
    WritebackResult,
    fix_pull_suggestion,
    write_back_fix_pull,
    write_back_pull,
)
from continual.writeback.authors import Author
from continual.writeback.pull import Analysis, PullState
from continual.writeback.threads import FixPull
from ghapp.db import reading
from ghapp.deps import Deps
from ghapp.envelopes import Issue, Pull, PullEvent, PullRequestEvent
from ghapp.fixes.closing import fix_closed, fix_closing
from ghapp.jobs import ClaimedJob
from ghapp.tenants import note_repository
from ghapp.writeback.acknowledge import acknowledge
from ghapp.writeback.read import read_pull, thread_comment
from review.config import WritebackSettings
from review.judging import judge_pull
from review.seats import make_seat

log = logging.getLogger(__name__)


def author_of(pull: Pull | Issue) -> Author:
    """Who opened the pull request, with the association and app GitHub reported beside it."""
    login, kind = (pull.user.login, pull.user.type) if pull.user is not None else (None, None)
    return Author(
        login=login or "",
        type=kind or "User",
        association=pull.author_association or "NONE",
        via_app=bool(pull.performed_via_github_app),
    )


def _known(deps: Deps, repo: str, number: int) -> tuple[StoredSuggestion, ...]:
    with reading(deps.engine) as conn:
        repository_id = store.repository_id(conn, repo)
        if repository_id is None:
            return ()
        return tuple(store.suggestions_of_pull(conn, repository_id, number).values())


async def write_back(
    deps: Deps,
    *,
    installation_id: int,
    repo: str,
    number: int,
    head_sha: str | None = None,
    pr_author: Author | None = None,
    closed: bool = False,
) -> PullResult | None:
    """Record what maintainers did with our suggestions on one PR; None when it has none of ours.

    The reads of `read_pull`, within the budget (docs/writeback.md, "What a write-back costs").
    With a judge configured, the replies no rule decides are put to it first (no GitHub request;
    docs/writeback.md, "The judge"). Then the changed decisions are acknowledged.
    """
    assert deps.github is not None, "the write-back needs the GitHub client"
    known = await asyncio.to_thread(_known, deps, repo, number)
    if not known:
        return None
    slug = await deps.github.app_slug(deps.settings.app_slug)
    client = deps.github.installation(installation_id)
    config = deps.review_config
    read = await read_pull(
        client,
        repo=repo,
        number=number,
        app_slug=slug,
        known=known,
        read_at=from_ms(deps.clock()),
        head_sha=head_sha,
        pr_author=pr_author,
        closed=closed,
        judging=config is not None and config.decisions.judge is not None,
    )
    judged = await _judged(deps, read.state, read.analysis)
    result = await asyncio.to_thread(
        write_back_pull,
        deps.engine,
        read.state,
        now=deps.clock(),
        judged=judged,
        analysis=read.analysis,
    )
    settings = config.writeback if config is not None else WritebackSettings()
    acknowledged = await acknowledge(
        client, deps.engine, repo=repo, read=read, result=result, mode=settings.acknowledge
    )
    log.info(
        "write-back read",
        extra={
            "repo": repo,
            "pr": number,
            "requests": read.requests,
            "permission_reads": read.permission_reads,
            "resolved": len(result.decided.resolved),
            "acknowledged": acknowledged.requests,
        },
    )
    return result


async def _judged(
    deps: Deps, state: PullState, analysis: Analysis
) -> Mapping[int, Verdict | Deferral]:
    """The configured judge's grounded readings of the replies the rules leave undecided: an
    acceptance (bound to the code's evidence), a dismissal (bound to the merge or close) or a
    deferral, by reply id; a reply it abstains on is absent (docs/writeback.md, "The judge")."""
    config = deps.review_config
    judge = config.decisions.judge if config is not None else None
    if config is None or judge is None:
        return {}
    # An HTTP judge opens a connection per question: most runs ask none, a few ask several.
    seat = make_seat(config.seat(judge))
    run = await judge_pull(deps.engine, state, seat=seat, now=deps.clock(), analysis=analysis)
    if run.asked or run.waiting:
        log.info(
            "judge asked",
            extra={
                "seat": judge,
                "asked": run.asked,
                "failed": run.failed,
                "kept": run.kept,
                "abstained": run.abstained,
                "waiting": run.waiting,
            },
        )
    return run.verdicts


def fix_pull(event: PullRequestEvent) -> FixPull:
    """A `pull_request` event as the fix PR it may be (its comments are read only if needed)."""
    pull = event.pull_request
    return FixPull(
        number=pull.number,
        repository=event.repository.full_name,
        body=pull.body or "",
        author=author_of(pull),
        merged=bool(pull.merged),
        closed=pull.state == "closed",
        merged_at=_when(pull.merged_at),
        closed_at=_when(pull.closed_at),
        merged_by=pull.merged_by.login if pull.merged_by is not None else None,
        merged_by_type=pull.merged_by.type if pull.merged_by is not None else None,
    )


def _when(value: str | None) -> datetime | None:
    if value is None:
        return None
    return parse_iso(value)


async def write_back_fix(
    deps: Deps, *, installation_id: int, fix: FixPull
) -> WritebackResult | None:
    """A closed fix PR decides its suggestion: merged accepts it, a typed refusal dismisses it."""
    assert deps.github is not None, "the write-back needs the GitHub client"

    def suggestion() -> dict[str, str]:
        with reading(deps.engine) as conn:
            return fix_pull_suggestion(conn, fix)

    repositories = await asyncio.to_thread(suggestion)
    if not repositories:
        return None
    slug = await deps.github.app_slug(deps.settings.app_slug)
    if not fix.merged:  # only a maintainer's typed refusal on it can decide an unmerged fix PR
        client = deps.github.installation(installation_id)
        issue_comments = await client.list_issue_comments(fix.repository, fix.number)
        fix = replace(fix, comments=tuple(thread_comment(c) for c in issue_comments))
    return await asyncio.to_thread(
        write_back_fix_pull,
        deps.engine,
        fix,
        suggestion_repositories=repositories,
        app_slug=slug,
        now=deps.clock(),
    )


def _note_merge(deps: Deps, repo: str, number: int, merge_sha: str) -> None:
    """The merge commit is where the pull request's lessons now stand on the default branch."""
    with deps.engine.begin() as conn:
        repository_id = store.repository_id(conn, repo)
        if repository_id is not None:
            note_merge(conn, repository_id, number, merge_sha, now=deps.clock())


async def on_writeback(deps: Deps, job: ClaimedJob, event: PullEvent) -> None:
    """Any event that may change a verdict: a new head, a close or reopen, a reply, a review."""
    if event.installation is None:
        log.warning("write-back without an installation", extra={"job": job.id})
        return
    installation_id, repo, pull = event.installation.id, event.repository.full_name, event.pull
    number = pull.number
    fields = {"job": job.id, "repo": repo, "pr": number}
    closed = event.action == "closed"
    if closed and isinstance(event, PullRequestEvent):
        fix, ours = await fix_closing(deps, event, fix_pull(event))
        fixed = await write_back_fix(deps, installation_id=installation_id, fix=fix)
        if fixed is not None:
            log.info("fix PR written back", extra={**fields, "changed": fixed.changed})
        if ours is not None:
            await fix_closed(deps, installation_id, event, ours)
    await asyncio.to_thread(note_repository, deps.engine, event, deps.clock())
    head = pull.head if isinstance(pull, Pull) else None
    result = await write_back(
        deps,
        installation_id=installation_id,
        repo=repo,
        number=number,
        head_sha=head.sha if head is not None else None,
        pr_author=author_of(pull),
        closed=pull.state == "closed",
    )
    if closed and isinstance(pull, Pull) and pull.merged and pull.merge_commit_sha is not None:
        await asyncio.to_thread(_note_merge, deps, repo, number, pull.merge_commit_sha)
    if result is None:
        log.info("write-back: no suggestions on this PR", extra=fields)
        return
    log.info(
        "write-back done",
        extra={
            **fields,
            "decisions": result.decisions,
            "changed": result.changed,
            "retracted": result.retracted,
        },
    )
