"""What one merged pull request costs to read and what it holds: its review comments (pages),
who merged it, and one comparison from its earliest commented commit to its head; the
maintainers' comments judged against it and other bots' suggestions refused."""

from __future__ import annotations

from dataclasses import dataclass

from continual.history.evidence import Kept, PastComment, PastPull, base_commit, counted, judge
from continual.history.refusals import BotRefusal, bot_threads, refusals
from continual.writeback.authors import Author
from ghapp.github.errors import Gone
from ghapp.github.installation import InstallationClient
from ghapp.github.values import PullRequest, ReviewComment


@dataclass(frozen=True, slots=True)
class Read:
    """One pull request as read: the pull, its counted comments with their evidence, the bots'
    refused suggestions, and why evidence is missing (None: compared)."""

    pull: PastPull
    kept: list[Kept]
    refusals: list[BotRefusal]
    missing: str | None


def past_comment(comment: ReviewComment) -> PastComment | None:
    """A review comment as the core reads it; its author's association is the one GitHub
    reports on the comment (what it was when they wrote it), whatever it is now."""
    if comment.created_at is None:
        return None
    author = Author(
        login=comment.user.login,
        type=comment.user.type,
        association=comment.author_association,
        via_app=comment.via_app is not None,
    )
    return PastComment(
        id=comment.id,
        author=author,
        path=comment.path,
        line=comment.line,
        commit_sha=comment.commit_id,
        body=comment.body,
        in_reply_to=comment.in_reply_to_id,
        created_at=comment.created_at,
        url=comment.html_url,
    )


async def _merged(client: InstallationClient, name: str, past: PastPull) -> PastPull:
    """``past`` with who merged it and its final head, when GitHub still has it."""
    try:
        merged = await client.get_pull(name, past.number)
    except Gone:
        return past
    if merged.merged_by is None:
        return past
    return PastPull(
        past.number,
        past.author,
        merged.head_sha or past.head_sha,
        past.merged_at,
        merged.merged_by.login,
        merged.merged_by.is_bot,
    )


async def read_pull(
    client: InstallationClient, name: str, pull: PullRequest, *, app_slug: str | None
) -> Read:
    """Read one merged pull request: at most its comments' pages, who merged it and one
    comparison, and only the first when nothing in it counts."""
    assert pull.merged_at is not None
    try:
        found = await client.list_review_comments(name, pull.number)
    except Gone:
        found = []
    comments = [c for c in map(past_comment, found) if c is not None]
    past = PastPull(pull.number, pull.user.login, pull.head_sha, pull.merged_at)
    counting = counted(past, comments)
    bots = [opener for opener, _ in bot_threads(past, comments, app_slug=app_slug)]
    if not counting and not bots:
        return Read(past, [], [], None)
    past = await _merged(client, name, past)
    starts = sorted([*counting, *bots], key=lambda comment: (comment.created_at, comment.id))
    base = base_commit(starts)
    patches: dict[str, str | None] | None = None
    first: str | None = None
    missing: str | None = None
    if base is None or not past.head_sha:
        missing = "no-head"
    elif base == past.head_sha:
        patches = {}
    else:
        try:
            comparison = await client.compare(name, base, past.head_sha)
        except Gone:
            missing = "force-pushed"
        else:
            patches = {entry.filename: entry.patch for entry in comparison.files}
            first = comparison.commits[0].sha if comparison.commits else None
    kept = judge(past, comments, patches=patches, first_commit=first)
    refused = refusals(past, comments, app_slug=app_slug, patches=patches)
    return Read(past, kept, refused, missing)
