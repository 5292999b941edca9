"""`pull_request` synchronize / closed: read what maintainers did with our suggestions, record it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row, select
from sqlalchemy.orm import Session

from continual import decide
from continual.applied import RULE as APPLIED_RULE
from continual.applied import Replacement, applied_suggestions, replacement_lines
from continual.markers import parse_fix_marker
from continual.store import suggestions_of_pull
from continual.tables import Repository, Suggestion
from continual.values import Decision, Source
from continual.writeback import WritebackResult, apply_decisions
from ghapp.db import reading
from ghapp.deps import Deps
from ghapp.github.errors import Gone
from ghapp.github.installation import InstallationClient
from ghapp.github.values import IssueComment, ReviewComment
from ghapp.jobs import ClaimedJob
from ghapp.router import Payload
from ghapp.tenants import repository_from_event

log = logging.getLogger(__name__)


def author(login: str, user_type: str, association: str, via_app: object) -> decide.Author:
    return decide.Author(
        login=login, type=user_type, association=association, via_app=bool(via_app)
    )


def to_review_comment(comment: ReviewComment | IssueComment) -> decide.ThreadComment:
    """GitHub's comment as the plain value the decision rules read (edited bodies as they read now)."""
    created = comment.created_at or comment.updated_at
    assert created is not None, "GitHub always sends created_at"
    return decide.ThreadComment(
        id=comment.id,
        body=comment.body,
        author=author(
            comment.user.login, comment.user.type, comment.author_association, comment.via_app
        ),
        in_reply_to_id=getattr(comment, "in_reply_to_id", None),
        created_at=created,
        updated_at=comment.updated_at,
        path=getattr(comment, "path", None),
        line=getattr(comment, "line", None),
    )


def _known(deps: Deps, payload: Payload) -> tuple[int | None, dict[str, Row[Any]]]:
    with Session(deps.engine) as session, session.begin():
        repository = repository_from_event(session, payload, deps.clock())
        repository_id = repository.id if repository is not None else None
    if repository_id is None:
        return None, {}
    with reading(deps.engine) as conn:
        return repository_id, suggestions_of_pull(conn, repository_id, payload["number"])


def _suggestion_repositories(deps: Deps, suggestion_id: str) -> dict[str, str]:
    with reading(deps.engine) as conn:
        row = conn.execute(
            select(Repository.full_name)
            .join(Suggestion, Suggestion.repository_id == Repository.id)
            .where(Suggestion.id == suggestion_id)
        ).first()
    return {suggestion_id: row.full_name} if row is not None else {}


async def write_back_pull(
    deps: Deps,
    *,
    installation_id: int,
    repo: str,
    number: int,
    known: Mapping[str, Row[Any]],
    head_sha: str | None = None,
    pr_author: decide.Author | None = None,
) -> WritebackResult:
    """Decide every thread of one PR's suggestions and apply the decisions: one list request per
    100 comments, plus one compare when a suggestion with replacement code predates the head."""
    assert deps.github is not None, "the write-back needs the GitHub client"
    slug = await deps.github.app_slug(deps.settings.app_slug)
    client = deps.github.installation(installation_id)
    comments = [to_review_comment(c) for c in await client.list_review_comments(repo, number)]
    threads = decide.build_threads(comments, bot_login=f"{slug}[bot]", known_suggestion_ids=known)
    decisions = [d for t in threads if (d := decide.decide_thread(t, app_slug=slug)) is not None]
    maintainers = {c.author.login for c in comments if decide.is_maintainer(c.author)}
    if pr_author is not None and decide.is_maintainer(pr_author):
        maintainers.add(pr_author.login)
    decisions += await _applied(deps, client, repo, known, head_sha, maintainers)
    return await asyncio.to_thread(
        apply_decisions,
        deps.engine,
        decisions,
        retract_missing=[thread.suggestion_id for thread in threads],
        now=deps.clock(),
    )


async def _applied(
    deps: Deps,
    client: InstallationClient,
    repo: str,
    known: Mapping[str, Row[Any]],
    head_sha: str | None,
    maintainers: set[str],
) -> list[decide.ThreadDecision]:
    """Suggestions a maintainer applied with "Commit suggestion" since they were posted."""
    rows = sorted(
        (row for row in known.values() if row.replacement and row.head_sha != head_sha),
        key=lambda row: (row.created_ms, row.id),
    )
    if head_sha is None or not rows or not maintainers:
        return []
    try:
        comparison = await client.compare(repo, rows[0].head_sha, head_sha)
    except Gone:  # the old head is no longer reachable (force-push): nothing to compare
        return []
    found = applied_suggestions(
        (Replacement(r.id, r.path, replacement_lines(r.replacement)) for r in rows),
        patches={f.filename: f.patch or "" for f in comparison.files},
        commit_authors=[c.author.login for c in comparison.commits if c.author is not None],
        maintainers=maintainers,
    )
    at = datetime.fromtimestamp(deps.clock() / 1000, UTC)
    return [
        decide.ThreadDecision(
            suggestion_id=hit.suggestion_id,
            decision=Decision.ACCEPTED,
            reason=None,
            source=Source.APPLIED,
            rule=APPLIED_RULE,
            span=hit.span,
            actor=hit.actor,
            at=at,
            reply_id=None,
        )
        for hit in found
    ]


async def write_back_fix_pr(
    deps: Deps, *, installation_id: int, payload: Payload
) -> WritebackResult | None:
    """A closed fix PR decides its suggestion: merged accepts it, a typed refusal dismisses it."""
    assert deps.github is not None, "the write-back needs the GitHub client"
    pull = payload["pull_request"]
    suggestion_id = parse_fix_marker(pull.get("body"))
    if suggestion_id is None:
        return None
    repositories = await asyncio.to_thread(_suggestion_repositories, deps, suggestion_id)
    if not repositories:
        return None
    slug = await deps.github.app_slug(deps.settings.app_slug)
    repo = payload["repository"]["full_name"]
    comments: Iterable[IssueComment] = ()
    if not pull.get("merged"):
        comments = await deps.github.installation(installation_id).list_issue_comments(
            repo, pull["number"]
        )
    user = pull.get("user") or {}
    fix = decide.FixPull(
        number=pull["number"],
        repository=repo,
        body=pull.get("body") or "",
        author=author(
            user.get("login", ""),
            user.get("type", "User"),
            pull.get("author_association", "NONE"),
            pull.get("performed_via_github_app"),
        ),
        merged=bool(pull.get("merged")),
        closed=pull.get("state") == "closed",
        merged_at=_when(pull.get("merged_at")),
        closed_at=_when(pull.get("closed_at")),
        merged_by=(pull.get("merged_by") or {}).get("login"),
        comments=tuple(to_review_comment(c) for c in comments),
    )
    decision = decide.decide_fix_pr(
        fix, bot_login=f"{slug}[bot]", app_slug=slug, suggestion_repositories=repositories
    )
    if decision is None:
        return None
    return await asyncio.to_thread(
        apply_decisions, deps.engine, [decision], source=Source.FIX_PR, now=deps.clock()
    )


def _when(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


async def on_writeback(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
    installation_id = (payload.get("installation") or {}).get("id")
    if installation_id is None:
        log.warning("write-back without an installation", extra={"job": job.id})
        return
    repo = payload["repository"]["full_name"]
    fields = {"job": job.id, "repo": repo, "pr": payload["number"]}
    if payload.get("action") == "closed":
        fixed = await write_back_fix_pr(deps, installation_id=installation_id, payload=payload)
        if fixed is not None:
            log.info("fix PR written back", extra={**fields, "changed": fixed.changed})
    _, known = await asyncio.to_thread(_known, deps, payload)
    if not known:
        log.info("write-back: no suggestions on this PR", extra=fields)
        return
    pull = payload.get("pull_request") or {}
    user = pull.get("user") or {}
    pr_author = author(
        user.get("login", ""),
        user.get("type", "User"),
        pull.get("author_association", "NONE"),
        pull.get("performed_via_github_app"),
    )
    result = await write_back_pull(
        deps,
        installation_id=installation_id,
        repo=repo,
        number=payload["number"],
        known=known,
        head_sha=(pull.get("head") or {}).get("sha"),
        pr_author=pr_author,
    )
    log.info(
        "write-back done",
        extra={
            **fields,
            "suggestions": len(known),
            "decisions": result.decisions,
            "changed": result.changed,
            "retracted": result.retracted,
        },
    )
