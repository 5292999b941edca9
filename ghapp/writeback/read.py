"""Reading what a pull request shows now for the write-back: threads, reactions, merge, maintainers."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, replace
from datetime import datetime

from continual.stored import StoredSuggestion
from continual.writeback.authors import Author
from continual.writeback.pull import Analysis, ChangesSince, PullState, analyse, plan_reads
from continual.writeback.signals import Merge, Reaction
from continual.writeback.threads import ThreadComment
from ghapp.github.errors import Forbidden, Gone, Rejected
from ghapp.github.installation import MAINTAINER_PERMISSIONS, InstallationClient
from ghapp.github.threads import PullThreads
from ghapp.github.values import IssueComment, ReviewComment

log = logging.getLogger(__name__)

# GraphQL's ReactionContent as the REST names the core reads.
REACTION_NAMES = {"THUMBS_UP": "+1", "THUMBS_DOWN": "-1", "EYES": "eyes"}
PAGE = 100


@dataclass(frozen=True)
class Read:
    """A pull request as read, its threads analysed once, and how many requests the reading cost."""

    state: PullState
    analysis: Analysis
    requests: int
    permission_reads: int
    # Threads GraphQL showed without a readable comment id: their reactions and resolution unread.
    unreadable_threads: int = 0


def thread_comment(comment: ReviewComment | IssueComment) -> ThreadComment:
    """GitHub's comment as the plain value the decision rules read (edited bodies as they read now)."""
    created = comment.created_at or comment.updated_at
    assert created is not None, "GitHub always sends created_at"
    return ThreadComment(
        id=comment.id,
        body=comment.body,
        author=Author(
            login=comment.user.login,
            type=comment.user.type,
            association=comment.author_association,
            via_app=bool(comment.via_app),
        ),
        in_reply_to_id=getattr(comment, "in_reply_to_id", None),
        created_at=created,
        updated_at=comment.updated_at,
        path=getattr(comment, "path", None),
        line=getattr(comment, "line", None),
    )


def _reactions(read: PullThreads) -> dict[int, tuple[Reaction, ...]]:
    return {
        thread.comment_id: tuple(
            Reaction(
                r.login, r.is_bot, REACTION_NAMES.get(r.content, r.content.lower()), r.created_at
            )
            for r in thread.reactions
        )
        for thread in read.threads
        if thread.reactions
    }


def _merge(read: PullThreads) -> Merge | None:
    if read.merged_by is None or read.merged_at is None:
        return None
    return Merge(read.merged_by.login, read.merged_by.is_bot, read.merged_at)


def budget(comments: int) -> int:
    """What one write-back may spend: ⌈(suggestions + replies) / 100⌉ + 2 requests."""
    return math.ceil(max(comments, 1) / PAGE) + 2


async def _maintainers(
    client: InstallationClient, repo: str, logins: tuple[str, ...], allowed: int
) -> frozenset[str]:
    """The logins a permission read finds to be maintainers, at most `allowed` reads (most recent
    reactors first); the others count as contributors this run."""
    found = set()
    for login in logins[: max(allowed, 0)]:
        try:
            permission = await client.collaborator_permission(repo, login)
        except (Forbidden, Rejected) as exc:  # unknown standing counts as a contributor's
            log.warning("permission read refused", extra={"repo": repo, "error": str(exc)})
            continue
        if permission in MAINTAINER_PERMISSIONS:
            found.add(login)
    if len(logins) > allowed:
        log.info(
            "permission reads over budget", extra={"repo": repo, "skipped": len(logins) - allowed}
        )
    return frozenset(found)


async def _changes(
    client: InstallationClient, repo: str, base: str, head: str
) -> ChangesSince | None:
    try:
        comparison = await client.compare(repo, base, head)
    except Gone:  # the old head is no longer reachable (force-push): nothing to compare
        return None
    gone = {f.filename for f in comparison.files if f.status == "removed"}
    gone |= {f.previous_filename for f in comparison.files if f.previous_filename}
    return ChangesSince(
        patches={f.filename: f.patch or "" for f in comparison.files},
        commit_authors=tuple(c.author.login for c in comparison.commits if c.author is not None),
        commits=tuple(c.sha for c in comparison.commits if c.sha),
        gone=frozenset(gone),
        base=base,
    )


def _facts(state: PullState, read: PullThreads) -> PullState:
    """The state with what the GraphQL read adds: reactions, resolutions, the merge, and the head
    and author as they are now."""
    author = state.pr_author
    if read.author is not None:
        kind = "Bot" if read.author.is_bot else "User"
        author = Author(read.author.login, kind, read.author_association)
    return replace(
        state,
        head_sha=read.head_sha or state.head_sha,
        pr_author=author,
        reactions=_reactions(read),
        resolved={t.comment_id: t.resolved_by for t in read.threads if t.resolved_by},
        merge=_merge(read),
    )


async def read_pull(
    client: InstallationClient,
    *,
    repo: str,
    number: int,
    app_slug: str,
    known: tuple[StoredSuggestion, ...],
    read_at: datetime,
    head_sha: str | None,
    pr_author: Author | None,
    closed: bool = False,
    judging: bool = False,
) -> Read:
    """The review comments (one request per 100); the threads' reactions, resolutions and the
    merge with one GraphQL request per 100 threads unless every thread is decided by a reply;
    a permission read per unknown reactor while the budget allows; and one compare when the core
    asks for one — applied suggestions, authors' fixes, replies waiting for evidence
    (docs/writeback.md, "What a write-back costs"). `closed`: the PR is merged or closed;
    `judging`: a judge will read the replies the rules leave undecided."""
    comments = await client.list_review_comments(repo, number)
    requests = math.ceil(max(len(comments), 1) / PAGE)
    state = PullState(
        app_slug=app_slug,
        comments=tuple(thread_comment(c) for c in comments),
        known=known,
        read_at=read_at,
        head_sha=head_sha,
        pr_author=pr_author,
        closed=closed,
        judging=judging,
    )
    analysis = analyse(state)  # the threads, built once; each plan below reads them
    permission_reads = 0
    early = plan_reads(state, analysis).comparison_base if head_sha is not None else None
    if early is not None and head_sha is not None:
        # The head is known: compare first, so that replies the evidence binds need no more reads.
        state = replace(state, changes=await _changes(client, repo, early, head_sha))
        requests += 1
    if plan_reads(state, analysis).signals:
        try:
            read = await client.pull_threads(repo, number)
        except Rejected as exc:  # GraphQL errors, a malformed answer: replies still decide
            log.warning(
                "review threads not read", extra={"repo": repo, "pr": number, "error": str(exc)}
            )
            state = replace(state, reactions_read=False)
            return await _finish(client, repo, state, analysis, requests + 1, 0, early)
        requests += max(1, math.ceil((len(read.threads) + read.unreadable) / PAGE))
        if read.unreadable:
            log.warning(
                "review threads without a readable comment id",
                extra={"repo": repo, "pr": number, "threads": read.unreadable},
            )
        state = _facts(state, read)
        plan = plan_reads(state, analysis)
        unknown = plan.unknown_actors
        if unknown:
            known_ids = {s.comment_id for s in known if s.comment_id is not None}
            ours = sum(1 for c in comments if {c.id, c.in_reply_to_id} & known_ids)
            compare = plan.comparison_if_vouched is not None and early is None
            allowed = max(budget(ours) - requests - compare, 0)
            state = replace(state, maintainers=await _maintainers(client, repo, unknown, allowed))
            permission_reads = min(len(unknown), allowed)
            requests += permission_reads
        finished = await _finish(client, repo, state, analysis, requests, permission_reads, early)
        return replace(finished, unreadable_threads=read.unreadable)
    return await _finish(client, repo, state, analysis, requests, permission_reads, early)


async def _finish(
    client: InstallationClient,
    repo: str,
    state: PullState,
    analysis: Analysis,
    requests: int,
    permission_reads: int,
    compared: str | None,
) -> Read:
    """The one comparison the core asks for, if any and not made yet (`compared`: the base of
    the one made before the threads read)."""
    base = plan_reads(state, analysis).comparison_base
    if base is not None and state.head_sha is not None and compared is None:
        state = replace(state, changes=await _changes(client, repo, base, state.head_sha))
        requests += 1
    return Read(state, analysis, requests, permission_reads)
