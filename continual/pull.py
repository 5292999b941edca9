"""One pull request's write-back decision, from plain values: its threads and applied suggestions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from continual.applied import RULE as APPLIED_RULE
from continual.applied import Replacement, applied_suggestions, replacement_lines
from continual.decide import (
    Author,
    ThreadComment,
    ThreadDecision,
    build_threads,
    decide_thread,
    is_maintainer,
)
from continual.replies import Verdict
from continual.stored import StoredSuggestion
from continual.values import Decision, Source


@dataclass(frozen=True)
class ChangesSince:
    """What landed on the pull request between an older head and its current one."""

    patches: Mapping[str, str]  # unified diff by path
    commit_authors: tuple[str, ...]  # logins of the commits' authors, oldest first


@dataclass(frozen=True)
class PullState:
    """What a pull request shows now, as far as the write-back reads it.

    `changes` is the comparison `comparison_base` asks for, when it asks for one; `read_at` dates
    what is seen only now (an applied suggestion has no reply to date it).
    """

    app_slug: str
    comments: tuple[ThreadComment, ...]
    known: tuple[StoredSuggestion, ...]
    read_at: datetime
    head_sha: str | None = None
    pr_author: Author | None = None
    changes: ChangesSince | None = None

    @property
    def bot_login(self) -> str:
        return f"{self.app_slug}[bot]"


@dataclass(frozen=True)
class PullDecisions:
    """Every decision on one PR, and the suggestions whose threads were read (a thread read with
    no decision of its own has lost the one it had: a reply deleted, or edited into discussion)."""

    decisions: tuple[ThreadDecision, ...]
    threads: tuple[str, ...]


def _maintainers(state: PullState) -> set[str]:
    """Who counts as a maintainer here: maintainers who commented, and the PR's author if one."""
    logins = {c.author.login for c in state.comments if is_maintainer(c.author)}
    if state.pr_author is not None and is_maintainer(state.pr_author):
        logins.add(state.pr_author.login)
    return logins


def _replacements(state: PullState) -> list[StoredSuggestion]:
    """Suggestions with replacement code posted on an earlier head, oldest first."""
    return sorted(
        (s for s in state.known if s.replacement and s.head_sha != state.head_sha),
        key=lambda s: (s.created_ms, s.id),
    )


def comparison_base(state: PullState) -> str | None:
    """The head to compare the current one against, or None when no comparison can decide anything.

    Only a suggestion with replacement code, posted on an earlier head, of a PR some maintainer
    took part in, can have been applied since; the oldest such head covers them all.
    """
    if state.head_sha is None or not _maintainers(state):
        return None
    older = _replacements(state)
    return older[0].head_sha if older else None


def _applied(state: PullState, changes: ChangesSince) -> list[ThreadDecision]:
    """Suggestions a maintainer applied with "Commit suggestion" since they were posted."""
    found = applied_suggestions(
        (
            Replacement(s.id, s.path, replacement_lines(s.replacement or ""))
            for s in _replacements(state)
        ),
        patches=changes.patches,
        commit_authors=changes.commit_authors,
        maintainers=_maintainers(state),
    )
    return [
        ThreadDecision(
            suggestion_id=hit.suggestion_id,
            decision=Decision.ACCEPTED,
            reason=None,
            source=Source.APPLIED,
            rule=APPLIED_RULE,
            span=hit.span,
            actor=hit.actor,
            at=state.read_at,
            reply_id=None,
        )
        for hit in found
    ]


def decide_pull(state: PullState, *, judged: Mapping[int, Verdict] | None = None) -> PullDecisions:
    """What maintainers decided on the suggestions of one PR: replies in suggestion-comment order,
    then suggestions applied since the comparison base (when the changes were read).

    `judged` maps reply ids to the judge's grounded verdicts (docs/writeback.md, "The judge"); a
    judged reply stands where it stands in its thread, so a later decision still beats it.
    """
    threads = build_threads(
        state.comments,
        bot_login=state.bot_login,
        known_suggestion_ids={s.id for s in state.known},
    )
    decisions = [
        d
        for t in threads
        if (d := decide_thread(t, app_slug=state.app_slug, judged=judged)) is not None
    ]
    if state.changes is not None and comparison_base(state) is not None:
        decisions += _applied(state, state.changes)
    return PullDecisions(tuple(decisions), tuple(t.suggestion_id for t in threads))
