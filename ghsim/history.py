"""A repository's past, made at once: merged pull requests spread over time, each with review
comments by maintainers, its author, contributors and bots, some of them addressed by a later
push before the merge, some force-pushed away. No webhook is sent: it is history."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from ghsim import conversation, pulls
from ghsim.model import Author, ReviewComment
from ghsim.patches import addition_patch
from ghsim.state import World

FILE_LINES = 40
SPACING = 8  # lines between two comments: farther than a change "near" a commented line
MAINTAINERS = ("octocat", "hubot-maintainer", "mona")


@dataclass(frozen=True)
class PastPull:
    """What a seeded pull request holds: its number, its comments by kind, and whether its
    commented commit is gone (force-pushed)."""

    number: int
    path: str
    addressed: tuple[int, ...] = ()
    unaddressed: tuple[int, ...] = ()
    others: tuple[int, ...] = ()  # the author's own, contributors', bots' and replies
    refused: tuple[int, ...] = ()  # bots' suggestions a maintainer refused ("Won't fix")
    force_pushed: bool = False
    merged_by: str = ""


@dataclass
class History:
    pulls: list[PastPull] = field(default_factory=list)

    @property
    def addressed(self) -> int:
        return sum(len(pull.addressed) for pull in self.pulls if not pull.force_pushed)


def _edit_patch(lines: list[int]) -> str:
    """A push that rewrites each of ``lines`` of the file."""
    hunks = [f"@@ -{line},1 +{line},1 @@\n-line {line}\n+line {line} fixed" for line in lines]
    return "\n".join(hunks)


def _refuse(
    world: World, repo: str, number: int, made: ReviewComment, maintainer: str, author: str
) -> None:
    """A maintainer's typed refusal of a bot's comment; the author's and a bot's count for nothing."""
    replies = (
        (Author(world.account(author), "CONTRIBUTOR", False), "wontfix"),
        (Author(world.account("ci-helper[bot]", "Bot"), "NONE", True), "false positive"),
        (Author(world.account(maintainer), "MEMBER", False), "Won't fix: it matches the API."),
    )
    for offset, (who, body) in enumerate(replies, start=1):
        reply = conversation.reply(world, repo, number, made.id, author=who, body=body)
        reply.created_at = reply.updated_at = made.created_at + timedelta(seconds=offset)


def seed_history(
    world: World,
    repo: str,
    *,
    pulls_count: int,
    comments_per_pull: int,
    hours_apart: float = 6.0,
    force_push_every: int = 0,
    silent_every: int = 0,
    refuse_bots: bool = False,
) -> History:
    """``pulls_count`` merged pull requests of ``repo``, the last merged now, each
    ``hours_apart`` after the one before. Of each one's ``comments_per_pull`` comments, about
    half are maintainers' thread openers (two in three of those addressed by a later push), the
    rest the author's own, a contributor's, a bot's and the author's replies. Every
    ``force_push_every``-th pull request loses its commented commit; every ``silent_every``-th
    has no review comment at all. With ``refuse_bots`` a maintainer answers each bot's comment
    "Won't fix", and the author and the bot itself refuse it too (which count for nothing)."""
    history = History()
    end = world.now()
    for index in range(pulls_count):
        merged_at = end - timedelta(hours=hours_apart * (pulls_count - 1 - index))
        opened_at = merged_at - timedelta(hours=hours_apart / 2)
        path = f"src/module_{index % 17}.py"
        author = f"dev{index % 5}"
        size = max(FILE_LINES, SPACING * comments_per_pull)
        patch = addition_patch([f"line {n}" for n in range(1, size + 1)])
        pull = pulls.open_pull(
            world,
            repo,
            title=f"Change {index}",
            body="",
            author=author,
            author_association="CONTRIBUTOR",
            files={path: patch},
            head_ref=None,
            base_ref=None,
            draft=False,
            head_sha=None,
        )
        commented = pull.head_sha
        silent = silent_every > 0 and index % silent_every == silent_every - 1
        addressed: list[int] = []
        unaddressed: list[int] = []
        others: list[int] = []
        lines_fixed: list[int] = []
        refused: list[int] = []
        for number in range(0 if silent else comments_per_pull):
            line = 1 + number * SPACING
            kind = number % 4
            maintainer = MAINTAINERS[(index + number) % len(MAINTAINERS)]
            if kind in (0, 1):
                who = Author(world.account(maintainer), "MEMBER", False)
                body = f"Please use `pool.acquire` here instead of `connect` (note {number})."
            elif kind == 2:
                who = Author(world.account("ci-helper[bot]", "Bot"), "NONE", True)
                body = "Consider renaming this variable."
            else:
                who = Author(world.account(author), "CONTRIBUTOR", False)
                body = "Note to self: tidy this up."
            spec = {"body": body, "path": path, "line": line, "side": "RIGHT"}
            spec["commit_id"] = commented
            made = conversation.create_review_comment(
                world, repo, pull.number, author=who, spec=spec
            )
            made.created_at = made.updated_at = opened_at + timedelta(minutes=number + 1)
            if kind in (0, 1):
                fixed = (number // 2) % 3 != 2
                (addressed if fixed else unaddressed).append(made.id)
                if fixed:
                    lines_fixed.append(line)
                    reply = conversation.reply(
                        world,
                        repo,
                        pull.number,
                        made.id,
                        author=Author(world.account(author), "CONTRIBUTOR", False),
                        body="Done, thanks.",
                    )
                    reply.created_at = reply.updated_at = made.created_at + timedelta(seconds=30)
                    others.append(reply.id)
            else:
                others.append(made.id)
            if kind == 2 and refuse_bots:
                refused.append(made.id)
                _refuse(world, repo, pull.number, made, maintainer, author)
        force_pushed = force_push_every > 0 and index % force_push_every == force_push_every - 1
        if lines_fixed:
            fix = _edit_patch(sorted(set(lines_fixed)))
            pulls.synchronize(world, repo, pull.number, {path: fix}, None, author)
        if force_pushed:
            with world.lock:
                world.commits.pop(commented, None)
        merger = MAINTAINERS[index % len(MAINTAINERS)]
        pulls.close(world, repo, pull.number, merged=True, by=merger)
        with world.lock:
            stored = world.pulls[(repo, pull.number)]
            stored.created_at = opened_at
            stored.updated_at = stored.closed_at = stored.merged_at = merged_at
        history.pulls.append(
            PastPull(
                number=pull.number,
                path=path,
                addressed=tuple(addressed),
                unaddressed=tuple(unaddressed),
                others=tuple(others),
                refused=tuple(refused),
                force_pushed=force_pushed,
                merged_by=merger,
            )
        )
    return history
