"""What counts in a repository's review history: maintainers' review comments on merged pull
requests, each with its evidence (did the commented lines change after it, before the merge),
and the cited fact an addressed one becomes. Plain values in and out (docs/history.md)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from continual.secrets import redact
from continual.writeback.authors import Author, is_bot, is_maintainer
from continual.writeback.signals import touches

GIST_CHARS = 240
REPLY_CHARS = 280
SHORT_SHA = 7
IDENTIFIER = re.compile(r"`([A-Za-z_][A-Za-z0-9_.]{1,80})`")


class Outcome(StrEnum):
    """What became of a maintainer's review comment before the merge."""

    ADDRESSED = "addressed"  # the commented lines changed after it: a history receipt
    UNCHANGED = "unchanged"  # they did not: context, never a verdict
    NO_EVIDENCE = "no-evidence"  # the commented commit is gone (a force-push): nothing to compare


@dataclass(frozen=True, slots=True)
class PastComment:
    """One review comment of a merged pull request, as GitHub reports it."""

    id: int
    author: Author
    path: str
    line: int | None
    commit_sha: str
    body: str
    in_reply_to: int | None
    created_at: datetime
    url: str = ""


@dataclass(frozen=True, slots=True)
class PastPull:
    """A merged pull request: who opened it, its final head, and who merged it."""

    number: int
    author: str
    head_sha: str
    merged_at: datetime
    merged_by: str | None = None
    merged_by_bot: bool = False


@dataclass(frozen=True, slots=True)
class Kept:
    """A maintainer's comment with its evidence, ready to store."""

    comment: PastComment
    outcome: Outcome
    addressed_sha: str | None
    author_reply: str | None


def counted(pull: PastPull, comments: Iterable[PastComment]) -> list[PastComment]:
    """The comments that count: each thread's first comment, written by a maintainer (the one
    maintainer rule: never a bot) who is not the pull request's author; oldest first."""
    found = [
        comment
        for comment in comments
        if comment.in_reply_to is None
        and is_maintainer(comment.author)
        and comment.author.login.lower() != pull.author.lower()
    ]
    return sorted(found, key=lambda comment: (comment.created_at, comment.id))


def base_commit(kept: Sequence[PastComment]) -> str | None:
    """The one commit a pull request's comparison starts from: its earliest commented commit."""
    for comment in kept:
        if comment.commit_sha:
            return comment.commit_sha
    return None


def author_reply(comment: PastComment, comments: Iterable[PastComment], author: str) -> str | None:
    """The pull request author's latest reply in the comment's thread, redacted and bounded."""
    replies = [
        c
        for c in comments
        if c.in_reply_to == comment.id
        and c.author.login.lower() == author.lower()
        and not is_bot(c.author)
    ]
    if not replies:
        return None
    latest = max(replies, key=lambda c: (c.created_at, c.id))
    return gist(latest.body, REPLY_CHARS)


def judge(
    pull: PastPull,
    comments: Sequence[PastComment],
    *,
    patches: Mapping[str, str | None] | None,
    first_commit: str | None,
) -> list[Kept]:
    """Every counted comment with its outcome. ``patches`` is the comparison from the earliest
    commented commit to the head (path → patch), None when it could not be made; ``first_commit``
    the first commit after the commented one (what addressed it), else the head."""
    out = []
    for comment in counted(pull, comments):
        if patches is None:
            outcome = Outcome.NO_EVIDENCE
        elif touches(patches.get(comment.path), comment.line):
            outcome = Outcome.ADDRESSED
        else:
            outcome = Outcome.UNCHANGED
        addressed = (first_commit or pull.head_sha) if outcome is Outcome.ADDRESSED else None
        out.append(Kept(comment, outcome, addressed, author_reply(comment, comments, pull.author)))
    return out


def gist(body: str, limit: int = GIST_CHARS) -> str:
    """A comment's words as one line: secrets redacted, whitespace collapsed, at most ``limit``
    characters (cut at a word, with an ellipsis)."""
    flat = " ".join(redact(body).split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1].rsplit(" ", 1)[0] or flat[: limit - 1]
    return cut + "…"


def identifiers(body: str) -> tuple[str, ...]:
    """The code names a comment quotes in backticks, in order, once each."""
    return tuple(dict.fromkeys(IDENTIFIER.findall(body)))


@dataclass(frozen=True, slots=True)
class Receipt:
    """A stored history receipt: an addressed maintainer comment, and where it came from."""

    comment_id: int
    pr: int
    author: str
    path: str
    body: str
    addressed_sha: str
    merged_by: str | None
    created_at: datetime
    url: str = ""


def fact_text(receipt: Receipt) -> str:
    """``@alice asked in #123 on `src/db.py`: …; addressed in abc1234``."""
    return (
        f"@{receipt.author} asked in #{receipt.pr} on `{receipt.path}`: "
        f"{gist(receipt.body).rstrip('.;')}; "
        f"addressed in {receipt.addressed_sha[:SHORT_SHA]}"
    )


def ranked(receipts: Sequence[Receipt], cap: int) -> list[Receipt]:
    """At most ``cap`` receipts: the most recurrent first (addressed comments on the same file),
    then the most recent."""
    per_path = Counter(receipt.path for receipt in receipts)
    ordered = sorted(
        receipts,
        key=lambda r: (-per_path[r.path], -r.created_at.timestamp(), -r.comment_id),
    )
    return ordered[: max(cap, 0)]
