"""Maintainer signals beside replies: 👍/👎 on the suggestion comment, and an author's fix a
maintainer merged (docs/writeback.md, "Every maintainer signal")."""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from continual.patches import changed_new_lines
from continual.replies import Verdict
from continual.values import Decision, Reason, Source
from continual.writeback.authors import is_bot
from continual.writeback.threads import Thread, ThreadComment, ThreadDecision

THUMBS_UP = "+1"
THUMBS_DOWN = "-1"
REACTION_RULES = {THUMBS_UP: "reaction.thumbs-up", THUMBS_DOWN: "reaction.thumbs-down"}
AUTHOR_FIX_RULE = "merged_author_fix"
# How far from the commented line a change still counts as a change of the commented lines.
NEAR_LINES = 3


@dataclass(frozen=True)
class Reaction:
    """One reaction on a suggestion comment: who, which (REST names: `+1`, `-1`, `eyes`…), when."""

    login: str
    is_bot: bool
    content: str
    at: datetime


@dataclass(frozen=True)
class Merge:
    """Who merged the pull request, and when."""

    by: str
    by_bot: bool
    at: datetime


def after(at: datetime, mark: ThreadComment | None) -> bool:
    """True when something at `at` happened after the reply `mark` (None: no mark, always)."""
    return mark is None or at > mark.created_at


def decide_reactions(
    suggestion_id: str,
    reactions: Iterable[Reaction],
    *,
    maintainers: Container[str],
    undo: ThreadComment | None,
) -> ThreadDecision | None:
    """The latest 👍 (accepted) or 👎 (dismissed, reason `unspecified`) of a maintainer, after
    the thread's last `undo`; bots and contributors never decide."""
    counted = [
        r
        for r in reactions
        if r.content in REACTION_RULES
        and not r.is_bot
        and r.login in maintainers
        and after(r.at, undo)
    ]
    if not counted:
        return None
    latest = max(counted, key=lambda r: (r.at, r.login))
    accepted = latest.content == THUMBS_UP
    return ThreadDecision(
        suggestion_id=suggestion_id,
        decision=Decision.ACCEPTED if accepted else Decision.DISMISSED,
        reason=None if accepted else Reason.UNSPECIFIED,
        source=Source.REACTION,
        rule=REACTION_RULES[latest.content],
        span="👍" if accepted else "👎",
        actor=latest.login,
        at=latest.at,
        reply_id=None,
    )


def touches(patch: str | None, line: int | None) -> bool:
    """True when a diff of a path changes the commented line or one within NEAR_LINES of it (a
    comment on the whole file: any change)."""
    if not patch:
        return False
    changed = changed_new_lines(patch)
    if line is None:
        return bool(changed)
    return any(abs(number - line) <= NEAR_LINES for number in changed)


def author_acceptance(
    thread: Thread,
    *,
    author: str,
    undo: ThreadComment | None,
    verdicts: Mapping[int, Verdict | None],
) -> tuple[ThreadComment, str] | None:
    """The PR author's latest reply that reads as an acceptance (after any `undo`), with its span;
    `verdicts` is what the rules read in each reply, by reply id."""
    found: tuple[ThreadComment, str] | None = None
    for reply in thread.replies:
        if reply.author.login != author or is_bot(reply.author):
            continue
        if not after(reply.created_at, undo):
            continue
        verdict = verdicts.get(reply.id)
        if verdict is not None and verdict.decision is Decision.ACCEPTED:
            found = (reply, verdict.span)
        elif verdict is not None:
            found = None  # the author took it back: a later refusal of their own
    return found


def decide_author_fix(
    thread: Thread,
    acceptance: tuple[ThreadComment, str],
    *,
    merge: Merge,
    patch: str | None,
    line: int | None,
) -> ThreadDecision | None:
    """Accepted when the author said it is fixed and the commented lines changed since the
    suggestion, for a PR a maintainer merged (the caller checks who merged; never a bot)."""
    if merge.by_bot or not touches(patch, line):
        return None
    reply, span = acceptance
    return ThreadDecision(
        suggestion_id=thread.suggestion_id,
        decision=Decision.ACCEPTED,
        reason=None,
        source=Source.MERGED_AUTHOR_FIX,
        rule=AUTHOR_FIX_RULE,
        span=span,
        actor=merge.by,
        at=merge.at,
        reply_id=reply.id,
    )
