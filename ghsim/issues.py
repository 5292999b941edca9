"""Issue comments on pull requests, and reactions to comments of either kind."""

from __future__ import annotations

from ghsim.conversation import check_body, review_comment
from ghsim.model import (
    REACTION_CONTENTS,
    Account,
    ApiError,
    Author,
    IssueComment,
    Reaction,
)
from ghsim.state import World, check_association, node_id


def create_issue_comment(
    world: World, full_name: str, number: int, *, author: Author, body: object
) -> IssueComment:
    check_association(author.association)
    text = check_body(body, "IssueComment")
    with world.lock:
        pull = world.pull(full_name, number)
        comment_id = world.next_id()
        now = world.now()
        comment = IssueComment(
            id=comment_id,
            node_id=node_id("IssueComment", comment_id),
            repo=pull.repo,
            number=number,
            body=text,
            user=author.account,
            author_association=author.association,
            via_app=author.via_app,
            created_at=now,
            updated_at=now,
        )
        world.issue_comments[comment_id] = comment
        return comment


def issue_comment(world: World, full_name: str, comment_id: int) -> IssueComment:
    with world.lock:
        repo = world.repo(full_name)
        found = world.issue_comments.get(comment_id)
        if found is None or found.repo != repo.full_name:
            raise ApiError(404, "Not Found")
        return found


def issue_comments(world: World, full_name: str, number: int) -> list[IssueComment]:
    with world.lock:
        pull = world.pull(full_name, number)
        found = [
            c for c in world.issue_comments.values() if c.repo == pull.repo and c.number == number
        ]
        return sorted(found, key=lambda c: c.id)


def add_reaction(
    world: World, kind: str, full_name: str, comment_id: int, user: Account, content: object
) -> tuple[Reaction, bool]:
    """React to a comment; answers the reaction and whether it is new (201) or existing (200)."""
    if content not in REACTION_CONTENTS:
        raise ApiError(
            422,
            "Validation Failed",
            [
                {
                    "resource": "Reaction",
                    "code": "custom",
                    "field": "content",
                    "message": f"content must be one of {', '.join(REACTION_CONTENTS)}",
                }
            ],
        )
    with world.lock:
        if kind == "pulls":
            review_comment(world, full_name, comment_id)
        else:
            issue_comment(world, full_name, comment_id)
        for existing in world.reactions.values():
            if (
                existing.subject == (kind, comment_id)
                and existing.user.id == user.id
                and existing.content == content
            ):
                return existing, False
        number = world.next_id()
        reaction = Reaction(
            number, node_id("Reaction", number), (kind, comment_id), user, str(content), world.now()
        )
        world.reactions[number] = reaction
        return reaction, True


def reactions(world: World, kind: str, full_name: str, comment_id: int) -> list[Reaction]:
    with world.lock:
        if kind == "pulls":
            review_comment(world, full_name, comment_id)
        else:
            issue_comment(world, full_name, comment_id)
        found = [r for r in world.reactions.values() if r.subject == (kind, comment_id)]
        return sorted(found, key=lambda r: r.id)
