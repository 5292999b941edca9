"""Review comments, replies and reviews on a pull request, placed on the diff as GitHub places them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ghsim.model import ApiError, Author, PullRequest, Review, ReviewComment
from ghsim.patches import diff_hunk, find_line, parse_patch, position_of
from ghsim.state import World, check_association, node_id

MAX_BODY = 65536
REVIEW_STATES = {
    "APPROVE": "APPROVED",
    "REQUEST_CHANGES": "CHANGES_REQUESTED",
    "COMMENT": "COMMENTED",
    None: "PENDING",
}


@dataclass(frozen=True)
class Anchor:
    path: str
    line: int
    side: str
    start_line: int | None
    start_side: str | None
    position: int
    hunk: str


def _unresolved(field: str, single: bool) -> ApiError:
    if single:
        return ApiError(
            422,
            "Validation Failed",
            [
                {
                    "resource": "PullRequestReviewComment",
                    "code": "custom",
                    "field": f"pull_request_review_thread.{field}",
                    "message": f"pull_request_review_thread.{field} must be part of the diff",
                }
            ],
        )
    return ApiError(422, "Unprocessable Entity", [f"{field.capitalize()} could not be resolved"])


def check_body(body: object, resource: str) -> str:
    if not isinstance(body, str) or not body.strip():
        raise ApiError(
            422,
            "Validation Failed",
            [{"resource": resource, "code": "missing_field", "field": "body"}],
        )
    if len(body) > MAX_BODY:
        raise ApiError(
            422,
            "Validation Failed",
            [
                {
                    "resource": resource,
                    "code": "custom",
                    "field": "body",
                    "message": f"body is too long (maximum is {MAX_BODY} characters)",
                }
            ],
        )
    return body


def anchor(pull: PullRequest, commit_id: str, spec: Mapping[str, Any], *, single: bool) -> Anchor:
    """Where a new comment sits in the diff at ``commit_id``; 422 as GitHub answers if nowhere."""
    files = pull.files_by_sha.get(commit_id)
    if files is None:
        raise ApiError(
            422,
            "Validation Failed",
            [
                {
                    "resource": "PullRequestReviewComment",
                    "code": "custom",
                    "field": "commit_id",
                    "message": "commit_id is not part of the pull request",
                }
            ],
        )
    path = spec.get("path")
    change = next((item for item in files if item.filename == path), None)
    if change is None or not isinstance(path, str):
        raise _unresolved("path", single)
    side = str(spec.get("side") or "RIGHT")
    line = spec.get("line")
    if line is None and isinstance(spec.get("position"), int):
        entries = [e for e in parse_patch(change.patch) if e.kind != "@"]
        by_position = [e for e in entries if position_of(change.patch, e) == spec["position"]]
        if by_position:
            entry = by_position[0]
            line = entry.new if entry.new is not None else entry.old
            side = "RIGHT" if entry.new is not None else "LEFT"
    if not isinstance(line, int) or side not in ("LEFT", "RIGHT"):
        raise _unresolved("line", single)
    target = find_line(change.patch, line, side)
    if target is None:
        raise _unresolved("line", single)
    start_line = spec.get("start_line")
    start_side = spec.get("start_side") or (side if start_line is not None else None)
    if start_line is not None:
        start = find_line(change.patch, start_line, str(start_side))
        if start is None or start.hunk != target.hunk or start.index > target.index:
            raise _unresolved("start_line", single)
    return Anchor(
        path=path,
        line=line,
        side=side,
        start_line=start_line,
        start_side=start_side,
        position=position_of(change.patch, target),
        hunk=diff_hunk(change.patch, target),
    )


def _new_comment(
    world: World,
    pull: PullRequest,
    where: Anchor,
    *,
    author: Author,
    body: str,
    commit_id: str,
    review_id: int,
    in_reply_to: int | None,
) -> ReviewComment:
    number = world.next_id()
    now = world.now()
    comment = ReviewComment(
        id=number,
        node_id=node_id("PullRequestReviewComment", number),
        repo=pull.repo,
        pull_number=pull.number,
        review_id=review_id,
        body=body,
        path=where.path,
        line=where.line,
        side=where.side,
        start_line=where.start_line,
        start_side=where.start_side,
        commit_id=commit_id,
        original_commit_id=commit_id,
        position=where.position,
        diff_hunk=where.hunk,
        user=author.account,
        author_association=author.association,
        via_app=author.via_app,
        in_reply_to_id=in_reply_to,
        created_at=now,
        updated_at=now,
    )
    world.review_comments[number] = comment
    return comment


def _new_review(
    world: World, pull: PullRequest, author: Author, body: str, state: str, commit_id: str
) -> Review:
    number = world.next_id()
    review = Review(
        id=number,
        node_id=node_id("PullRequestReview", number),
        repo=pull.repo,
        pull_number=pull.number,
        user=author.account,
        author_association=author.association,
        body=body,
        state=state,
        commit_id=commit_id,
        submitted_at=None if state == "PENDING" else world.now(),
    )
    world.reviews[number] = review
    return review


def create_review(
    world: World,
    full_name: str,
    number: int,
    *,
    author: Author,
    body: str | None,
    event: str | None,
    commit_id: str | None,
    comments: Sequence[Mapping[str, Any]],
) -> tuple[Review, list[ReviewComment]]:
    """One review and all its comments, or nothing at all when any comment cannot be placed."""
    if event not in REVIEW_STATES:
        raise ApiError(422, "Unprocessable Entity", [f"Event {event!r} is not valid"])
    with world.lock:
        pull = world.pull(full_name, number)
        commit = commit_id or pull.head_sha
        anchors = []
        for spec in comments:
            comment_body = check_body(spec.get("body"), "PullRequestReviewComment")
            anchors.append((anchor(pull, commit, spec, single=False), comment_body))
        if event == "REQUEST_CHANGES" and not body:
            raise ApiError(422, "Unprocessable Entity", ["Review body can't be blank"])
        if event == "COMMENT" and not body and not comments:
            raise ApiError(422, "Unprocessable Entity", ["Review body can't be blank"])
        if body and len(body) > MAX_BODY:
            raise ApiError(422, "Unprocessable Entity", ["Body is too long"])
        review = _new_review(world, pull, author, body or "", REVIEW_STATES[event], commit)
        created = [
            _new_comment(
                world,
                pull,
                where,
                author=author,
                body=text,
                commit_id=commit,
                review_id=review.id,
                in_reply_to=None,
            )
            for where, text in anchors
        ]
        return review, created


def create_review_comment(
    world: World,
    full_name: str,
    number: int,
    *,
    author: Author,
    spec: Mapping[str, Any],
) -> ReviewComment:
    """A single review comment (its own COMMENTED review), or a reply when ``in_reply_to`` is set."""
    check_association(author.association)
    body = check_body(spec.get("body"), "PullRequestReviewComment")
    with world.lock:
        pull = world.pull(full_name, number)
        if spec.get("in_reply_to") is not None:
            return reply(
                world, full_name, number, int(spec["in_reply_to"]), author=author, body=body
            )
        commit_id = spec.get("commit_id")
        if not isinstance(commit_id, str):
            raise ApiError(
                422,
                "Validation Failed",
                [
                    {
                        "resource": "PullRequestReviewComment",
                        "code": "missing_field",
                        "field": "commit_id",
                    }
                ],
            )
        where = anchor(pull, commit_id, spec, single=True)
        review = _new_review(world, pull, author, "", "COMMENTED", commit_id)
        return _new_comment(
            world,
            pull,
            where,
            author=author,
            body=body,
            commit_id=commit_id,
            review_id=review.id,
            in_reply_to=None,
        )


def reply(
    world: World, full_name: str, number: int, comment_id: int, *, author: Author, body: str
) -> ReviewComment:
    """A reply joins the thread of ``comment_id``; GitHub points it at the thread's first comment."""
    check_association(author.association)
    body = check_body(body, "PullRequestReviewComment")
    with world.lock:
        pull = world.pull(full_name, number)
        parent = world.review_comments.get(comment_id)
        if parent is None or parent.repo != pull.repo or parent.pull_number != number:
            raise ApiError(404, "Not Found")
        root_id = parent.in_reply_to_id or parent.id
        where = Anchor(
            parent.path,
            parent.line or 0,
            parent.side,
            parent.start_line,
            parent.start_side,
            parent.position or 0,
            parent.diff_hunk,
        )
        review = _new_review(world, pull, author, "", "COMMENTED", parent.commit_id)
        return _new_comment(
            world,
            pull,
            where,
            author=author,
            body=body,
            commit_id=parent.commit_id,
            review_id=review.id,
            in_reply_to=root_id,
        )


def review_comment(world: World, full_name: str, comment_id: int) -> ReviewComment:
    with world.lock:
        repo = world.repo(full_name)
        found = world.review_comments.get(comment_id)
        if found is None or found.repo != repo.full_name:
            raise ApiError(404, "Not Found")
        return found


def edit_review_comment(
    world: World, full_name: str, comment_id: int, body: str
) -> tuple[ReviewComment, str]:
    """Change a comment's body; answers the comment and its previous body."""
    body = check_body(body, "PullRequestReviewComment")
    with world.lock:
        found = review_comment(world, full_name, comment_id)
        previous = found.body
        found.body = body
        found.updated_at = world.now()
        return found, previous


def delete_review_comment(world: World, full_name: str, comment_id: int) -> ReviewComment:
    with world.lock:
        found = review_comment(world, full_name, comment_id)
        del world.review_comments[comment_id]
        return found


def pull_review_comments(world: World, full_name: str, number: int) -> list[ReviewComment]:
    with world.lock:
        pull = world.pull(full_name, number)
        found = [
            c
            for c in world.review_comments.values()
            if c.repo == pull.repo and c.pull_number == number
        ]
        return sorted(found, key=lambda c: c.id)


def pull_reviews(world: World, full_name: str, number: int) -> list[Review]:
    with world.lock:
        pull = world.pull(full_name, number)
        found = [
            r for r in world.reviews.values() if r.repo == pull.repo and r.pull_number == number
        ]
        return sorted(found, key=lambda r: r.id)
