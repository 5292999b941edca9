"""`POST /graphql`, for the one query the app sends: a pull request's review threads with the
first comment of each, its reactions and whether the thread is resolved, and the pull request's
head, author and merge.

Not a GraphQL engine: a query that does not ask for `reviewThreads` of a `pullRequest` is answered
the way GitHub answers a query it cannot run — 200 with `"data": null` and an `errors` list.

Answers hold only what GitHub's schema allows: a comment's id as `fullDatabaseId`, a `BigInt`
serialized as a string (`databaseId`, deprecated, is null once the id passes 32 bits); a reaction's
`user` and a thread's `resolvedBy` are `User`, so a bot there is null; an `author` or `mergedBy` is
an `Actor` (`User`, `Bot`, `Organization`…).
"""

from __future__ import annotations

import base64
from typing import Any

from starlette.responses import Response

from ghsim import conversation
from ghsim.endpoint import Call, Context, json_response
from ghsim.model import ApiError, PullRequest, Reaction, ReviewComment
from ghsim.shapes import iso
from ghsim.state import World

Json = dict[str, Any]

PAGE_MAX = 100
INT_MAX = 2**31 - 1  # GraphQL's Int is signed 32-bit
ACTOR_TYPES = frozenset({"User", "Bot", "Organization", "Mannequin", "EnterpriseUserAccount"})
# REST reaction contents as GraphQL's ReactionContent enum names them.
GRAPHQL_CONTENT = {
    "+1": "THUMBS_UP",
    "-1": "THUMBS_DOWN",
    "laugh": "LAUGH",
    "hooray": "HOORAY",
    "confused": "CONFUSED",
    "heart": "HEART",
    "rocket": "ROCKET",
    "eyes": "EYES",
}


def _failed(message: str, kind: str = "INVALID") -> Response:
    return json_response({"data": None, "errors": [{"type": kind, "message": message}]})


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def _offset(cursor: object) -> int | None:
    if cursor is None:
        return 0
    try:
        kind, _, number = base64.b64decode(str(cursor)).decode().rpartition(":")
        return int(number) + 1 if kind == "cursor:v2" else None
    except ValueError:
        return None


def _actor(login: str, user_type: str) -> Json:
    """An `Actor`: the account's own type."""
    return {"__typename": user_type if user_type in ACTOR_TYPES else "User", "login": login}


def _user(login: str, user_type: str) -> Json | None:
    """A field typed `User`: any other kind of account cannot be one, and is null."""
    return {"__typename": "User", "login": login} if user_type == "User" else None


def _reactions(world: World, comment: ReviewComment) -> list[Json]:
    found: list[Reaction] = sorted(
        (r for r in world.reactions.values() if r.subject == ("pulls", comment.id)),
        key=lambda r: r.id,
    )
    return [
        {
            "content": GRAPHQL_CONTENT[r.content],
            "createdAt": iso(r.created_at),
            "user": _user(r.user.login, r.user.type),
        }
        for r in found
    ]


def _thread(world: World, root: ReviewComment) -> Json:
    resolver = world.resolved_threads.get(root.id)
    return {
        "id": f"PRRT_{root.node_id}",
        "isResolved": resolver is not None,
        "resolvedBy": None if resolver is None else _user(resolver.login, resolver.type),
        "comments": {
            "nodes": [
                {
                    "databaseId": root.id if root.id <= INT_MAX else None,
                    "fullDatabaseId": str(root.id),
                    "author": _actor(root.user.login, root.user.type),
                    "reactions": {"nodes": _reactions(world, root)},
                }
            ]
        },
    }


def _pull(pull: PullRequest) -> Json:
    return {
        "headRefOid": pull.head_sha,
        "authorAssociation": pull.author_association,
        "author": _actor(pull.user.login, pull.user.type),
        "merged": pull.merged,
        "mergedAt": iso(pull.merged_at) if pull.merged_at else None,
        "mergedBy": _actor(pull.merged_by.login, pull.merged_by.type) if pull.merged_by else None,
    }


def review_threads(ctx: Context, call: Call) -> Response:
    installation = ctx.require_installation(call)
    query = str(call.field("query") or "")
    variables = call.field("variables") or {}
    if "reviewThreads" not in query or "pullRequest" not in query:
        return _failed("this stand-in answers only a pull request's reviewThreads")
    if not isinstance(variables, dict):
        return _failed("variables must be an object")
    owner, name, number = variables.get("owner"), variables.get("name"), variables.get("number")
    first = variables.get("first", PAGE_MAX)
    offset = _offset(variables.get("cursor"))
    if not isinstance(number, int) or not isinstance(first, int) or offset is None:
        return _failed("owner, name, number (Int) and first (Int) are required; cursor is opaque")
    if not 1 <= first <= PAGE_MAX:
        return _failed(f"first must be between 1 and {PAGE_MAX}", "EXCESSIVE_PAGINATION")
    world = ctx.world
    with world.lock:
        try:
            repo = world.repo(f"{owner}/{name}")
            if repo.installation_id != installation.id:
                raise ApiError(404, "Not Found")
            comments = conversation.pull_review_comments(world, repo.full_name, number)
            pull = world.pull(repo.full_name, number)
        except ApiError:
            return _failed(
                f"Could not resolve to a PullRequest with the number of {number}.", "NOT_FOUND"
            )
        roots = [c for c in comments if c.in_reply_to_id is None]
        page = roots[offset : offset + first]
        nodes = [_thread(world, root) for root in page]
        facts = _pull(pull)
    last = offset + len(page) - 1
    info = {
        "hasNextPage": offset + first < len(roots),
        "endCursor": _cursor(last) if page else None,
    }
    threads = {"pageInfo": info, "nodes": nodes}
    pull_request = {**facts, "reviewThreads": threads}
    return json_response({"data": {"repository": {"pullRequest": pull_request}}})
