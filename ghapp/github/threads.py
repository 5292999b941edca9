"""A pull request's review threads through GraphQL: who reacted to each thread's first comment,
whether it is resolved, and the pull request's head, author and merge (reactions send no webhook,
so they are read; one request per 100 threads). Comments are named by `fullDatabaseId`, a
`BigInt` GitHub serializes as a string: `databaseId` is deprecated and cannot hold the 64-bit ids
the REST comments carry."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from continual.times import parse_iso
from continual.writeback.authors import is_bot_account
from ghapp.github.errors import RATE_LIMIT_FALLBACK, Rejected, RetryAt, Transient

# One page of at most 100 threads: the first comment of each with up to 100 reactions.
REVIEW_THREADS_QUERY = """
query($owner: String!, $name: String!, $number: Int!, $first: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      headRefOid
      authorAssociation
      author { __typename login }
      merged
      mergedAt
      mergedBy { __typename login }
      reviewThreads(first: $first, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes {
          isResolved
          resolvedBy { login }
          comments(first: 1) {
            nodes {
              fullDatabaseId
              reactions(first: 100) { nodes { content createdAt user { __typename login } } }
            }
          }
        }
      }
    }
  }
}
"""
RATE_LIMITED = frozenset({"RATE_LIMIT", "RATE_LIMITED"})
_REST_SUFFIX = re.compile(r"/api/v3/?$")
_DIGITS = re.compile(r"[0-9]{1,19}")
ID_MAX = 2**63 - 1  # GitHub's ids are signed 64-bit


@dataclass(frozen=True, slots=True)
class ThreadReaction:
    login: str
    is_bot: bool
    content: str  # GraphQL's ReactionContent: THUMBS_UP, THUMBS_DOWN, EYES…
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ReviewThread:
    """One thread, named by the database id of its first comment."""

    comment_id: int
    resolved_by: str | None
    reactions: tuple[ThreadReaction, ...]


@dataclass(frozen=True, slots=True)
class Actor:
    login: str
    is_bot: bool


@dataclass(frozen=True, slots=True)
class PullThreads:
    """What one read of a pull request's threads shows: its threads, head, author and merge."""

    threads: tuple[ReviewThread, ...]
    # Threads whose first comment had no readable id: left out, and reported by the reader.
    unreadable: int = 0
    head_sha: str | None = None
    author: Actor | None = None
    author_association: str = "NONE"
    merged_at: datetime | None = None
    merged_by: Actor | None = None


def graphql_url(rest_base_url: str) -> str:
    """GitHub's GraphQL endpoint beside a REST base URL (Enterprise: `/api/v3` -> `/api/graphql`)."""
    base = rest_base_url.rstrip("/")
    if _REST_SUFFIX.search(base):
        return _REST_SUFFIX.sub("/api/graphql", base)
    return f"{base}/graphql"


def _actor(value: object) -> Actor | None:
    if not isinstance(value, dict) or not value.get("login"):
        return None  # a deleted account ("ghost")
    login = str(value["login"])
    return Actor(login, is_bot_account(login, value.get("__typename")))


def full_database_id(value: object) -> int | None:
    """A `BigInt` id as GitHub serializes it (a string of digits), or None when it is not one:
    absent, a number, signed, zero, or beyond 64 bits."""
    if not isinstance(value, str) or not _DIGITS.fullmatch(value):
        return None
    number = int(value)
    return number if 0 < number <= ID_MAX else None


def _thread(node: dict[str, Any]) -> ReviewThread | None:
    comments = ((node.get("comments") or {}).get("nodes")) or []
    first = comments[0] if comments and isinstance(comments[0], dict) else {}
    comment_id = full_database_id(first.get("fullDatabaseId"))
    if comment_id is None:
        return None
    reactions = []
    for item in (first.get("reactions") or {}).get("nodes") or []:
        actor = _actor(item.get("user"))
        if actor is None:
            continue  # a deleted account decides nothing
        reactions.append(
            ThreadReaction(
                login=actor.login,
                is_bot=actor.is_bot,
                content=str(item.get("content")),
                created_at=parse_iso(str(item.get("createdAt"))),
            )
        )
    resolver = node.get("resolvedBy") or {}
    resolved = bool(node.get("isResolved"))
    return ReviewThread(
        comment_id=comment_id,
        resolved_by=str(resolver.get("login") or "") if resolved else None,
        reactions=tuple(reactions),
    )


def parse_page(data: Any, what: str, now: datetime) -> tuple[PullThreads, str | None]:
    """One answer: its threads and the pull request's facts, and the cursor of the next page
    (None: the last page)."""
    if not isinstance(data, dict):
        raise Transient(f"GitHub answered {what} with no JSON object")
    errors = data.get("errors") or []
    if errors:
        kinds = {str(error.get("type")) for error in errors if isinstance(error, dict)}
        if kinds & RATE_LIMITED:
            raise RetryAt(now + RATE_LIMIT_FALLBACK, f"GraphQL rate limit on {what}")
        raise Rejected(200, what, "GraphQL errors", errors)
    pull = ((data.get("data") or {}).get("repository") or {}).get("pullRequest")
    if not isinstance(pull, dict):
        raise Rejected(200, what, "no such pull request")
    try:
        return _page(pull)
    except (AttributeError, TypeError, ValueError, KeyError) as exc:
        raise Rejected(200, what, "a malformed answer", [str(exc)]) from exc


def _page(pull: dict[str, Any]) -> tuple[PullThreads, str | None]:
    threads = pull.get("reviewThreads") or {}
    nodes = [node for node in threads.get("nodes") or [] if isinstance(node, dict)]
    read = [_thread(node) for node in nodes]
    found = [t for t in read if t is not None]
    info = threads.get("pageInfo") or {}
    head = pull.get("headRefOid")
    merged_at = pull.get("mergedAt")
    page = PullThreads(
        threads=tuple(found),
        unreadable=len(read) - len(found),
        head_sha=head if isinstance(head, str) and head else None,
        author=_actor(pull.get("author")),
        author_association=str(pull.get("authorAssociation") or "NONE"),
        merged_at=parse_iso(merged_at)
        if pull.get("merged") and isinstance(merged_at, str)
        else None,
        merged_by=_actor(pull.get("mergedBy")) if pull.get("merged") else None,
    )
    return page, (
        str(info["endCursor"]) if info.get("hasNextPage") and info.get("endCursor") else None
    )
