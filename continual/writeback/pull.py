"""One pull request's write-back decision, from plain values: its threads and every maintainer signal."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from continual.replies import Verdict
from continual.stored import StoredSuggestion
from continual.values import Decision, Source
from continual.writeback.applied import RULE as APPLIED_RULE
from continual.writeback.applied import Replacement, applied_suggestions, replacement_lines
from continual.writeback.authors import Author, bot_login, is_bot, is_maintainer
from continual.writeback.signals import (
    REACTION_RULES,
    Merge,
    Reaction,
    author_acceptance,
    decide_author_fix,
    decide_reactions,
)
from continual.writeback.threads import (
    Thread,
    ThreadComment,
    ThreadDecision,
    build_threads,
    decide_thread,
    undo_reply,
)


@dataclass(frozen=True)
class ChangesSince:
    """What landed on the pull request between an older head and its current one."""

    patches: Mapping[str, str]  # unified diff by path
    commit_authors: tuple[str, ...]  # logins of the commits' authors, oldest first


@dataclass(frozen=True)
class PullState:
    """What a pull request shows now, as far as the write-back reads it.

    `changes` is the comparison `comparison_base` asks for, when it asks for one; `read_at` dates
    what is seen only now (an applied suggestion has no reply to date it). `reactions` and
    `resolved` are keyed by the suggestion comment's id; `maintainers` are logins a permission
    read found to be maintainers (reactions and merges carry no association).
    """

    app_slug: str
    comments: tuple[ThreadComment, ...]
    known: tuple[StoredSuggestion, ...]
    read_at: datetime
    head_sha: str | None = None
    pr_author: Author | None = None
    changes: ChangesSince | None = None
    reactions: Mapping[int, tuple[Reaction, ...]] = field(default_factory=dict)
    resolved: Mapping[int, str] = field(default_factory=dict)
    merge: Merge | None = None
    maintainers: frozenset[str] = frozenset()
    reactions_read: bool = True  # False when GitHub would not answer the reactions read

    @property
    def bot_login(self) -> str:
        return bot_login(self.app_slug)


@dataclass(frozen=True)
class PullDecisions:
    """Every decision on one PR, and the suggestions whose threads were read (a thread read with
    no decision of its own has lost the one it had: a reply deleted, or edited into discussion).

    `undone` are threads a maintainer's `undo` cleared with no signal since; `resolved` maps the
    suggestions whose thread is resolved to who resolved it (evidence, never a decision).
    """

    decisions: tuple[ThreadDecision, ...]
    threads: tuple[str, ...]
    undone: tuple[str, ...] = ()
    resolved: Mapping[str, str] = field(default_factory=dict)


def _maintainers(state: PullState) -> set[str]:
    """Who counts as a maintainer here: maintainers who commented, the PR's author if one, and
    logins a permission read vouched for."""
    logins = {c.author.login for c in state.comments if is_maintainer(c.author)}
    if state.pr_author is not None and is_maintainer(state.pr_author):
        logins.add(state.pr_author.login)
    return logins | set(state.maintainers)


def _replacements(state: PullState) -> list[StoredSuggestion]:
    """Suggestions with replacement code posted on an earlier head, oldest first."""
    return sorted(
        (s for s in state.known if s.replacement and s.head_sha != state.head_sha),
        key=lambda s: (s.created_ms, s.id),
    )


def _threads(state: PullState) -> list[Thread]:
    return build_threads(
        state.comments, bot_login=state.bot_login, known_suggestion_ids={s.id for s in state.known}
    )


def _author_fixes(state: PullState) -> list[StoredSuggestion]:
    """Suggestions posted on an earlier head of a merged PR whose author answered "fixed"."""
    author = state.pr_author
    if state.merge is None or author is None or is_bot(author):
        return []
    answered = {
        t.suggestion_id
        for t in _threads(state)
        if author_acceptance(
            t,
            author=author.login,
            app_slug=state.app_slug,
            undo=undo_reply(t, app_slug=state.app_slug),
        )
        is not None
    }
    return [s for s in state.known if s.id in answered and s.head_sha != state.head_sha]


def comparison_base(state: PullState) -> str | None:
    """The head to compare the current one against, or None when no comparison can decide anything.

    A suggestion with replacement code, posted on an earlier head, of a PR some maintainer took
    part in, can have been applied since; a suggestion of a merged PR whose author answered
    "fixed" can have been fixed since. The oldest such head covers them all. A thread a reply
    decides needs no comparison: a reply outranks what a comparison could find.
    """
    if state.head_sha is None:
        return None
    replied = {
        t.suggestion_id
        for t in _threads(state)
        if decide_thread(t, app_slug=state.app_slug) is not None
    }
    older = _replacements(state) if _maintainers(state) else []
    older += _author_fixes(state)
    older = [s for s in older if s.id not in replied]
    if not older:
        return None
    return min(older, key=lambda s: (s.created_ms, s.id)).head_sha


def needs_signals(state: PullState) -> bool:
    """True when a thread has no reply decision, so a reaction, the merge or the author's fix
    could decide it: only then are reactions and the merge worth a read."""
    return any(decide_thread(t, app_slug=state.app_slug) is None for t in _threads(state))


def unknown_actors(state: PullState) -> tuple[str, ...]:
    """Logins whose maintainer standing could decide a thread but that no comment vouches for:
    👍/👎 reactors on our threads that no reply decides (never bots), most recent first."""
    known = _maintainers(state)
    seen: dict[str, None] = {}
    open_threads = [
        t.comment_id for t in _threads(state) if decide_thread(t, app_slug=state.app_slug) is None
    ]
    reactions = sorted(
        (
            r
            for comment_id in open_threads
            for r in state.reactions.get(comment_id, ())
            if r.content in REACTION_RULES
        ),
        key=lambda r: r.at,
        reverse=True,
    )
    for reaction in reactions:
        if not reaction.is_bot and reaction.login not in known:
            seen.setdefault(reaction.login)
    return tuple(seen)


def merged_by_maintainer(state: PullState) -> bool:
    """True when a person merged the PR: GitHub lets only people with write access merge, so a
    merger is a maintainer unless a bot, or seen on this PR's comments as a contributor."""
    merge = state.merge
    if merge is None or merge.by_bot:
        return False
    seen = {c.author.association.upper() for c in state.comments if c.author.login == merge.by}
    return merge.by in _maintainers(state) or not seen


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


def _decide(
    state: PullState,
    thread: Thread,
    applied: Mapping[str, ThreadDecision],
    maintainers: set[str],
    judged: Mapping[int, Verdict] | None,
) -> ThreadDecision | None:
    """One thread's decision, by precedence: reply, reaction, applied, the author's merged fix."""
    slug = state.app_slug
    undo = undo_reply(thread, app_slug=slug)
    reply = decide_thread(thread, app_slug=slug, judged=judged)
    if reply is not None:
        return reply
    reactions = state.reactions.get(thread.comment_id, ())
    reaction = decide_reactions(thread.suggestion_id, reactions, maintainers=maintainers, undo=undo)
    if reaction is not None:
        return reaction
    if undo is None and thread.suggestion_id in applied:
        return applied[thread.suggestion_id]
    author, merge, changes = state.pr_author, state.merge, state.changes
    if author is None or merge is None or changes is None:
        return None
    acceptance = author_acceptance(thread, author=author.login, app_slug=slug, undo=undo)
    suggestion = next((s for s in state.known if s.id == thread.suggestion_id), None)
    if acceptance is None or suggestion is None or suggestion.head_sha == state.head_sha:
        return None
    if not merged_by_maintainer(state):
        return None
    return decide_author_fix(
        thread,
        acceptance,
        merge=merge,
        patch=changes.patches.get(suggestion.path),
        line=suggestion.line,
    )


def decide_pull(state: PullState, *, judged: Mapping[int, Verdict] | None = None) -> PullDecisions:
    """What maintainers decided on the suggestions of one PR: one decision per thread, the
    strongest signal of each (docs/writeback.md); applied suggestions and fixes only when the
    changes were read.

    `judged` maps reply ids to the judge's grounded verdicts (docs/writeback.md, "The judge"); a
    judged reply stands where it stands in its thread, so a later decision still beats it.
    """
    threads = _threads(state)
    maintainers = _maintainers(state)
    applied: dict[str, ThreadDecision] = {}
    if state.changes is not None and comparison_base(state) is not None:
        applied = {d.suggestion_id: d for d in _applied(state, state.changes)}
    decisions: list[ThreadDecision] = []
    undone: list[str] = []
    for thread in threads:
        decision = _decide(state, thread, applied, maintainers, judged)
        if decision is not None:
            decisions.append(decision)
        elif undo_reply(thread, app_slug=state.app_slug) is not None:
            undone.append(thread.suggestion_id)
    read = {t.suggestion_id for t in threads}
    decisions += [d for sid, d in applied.items() if sid not in read]  # its comment was deleted
    resolved = {
        t.suggestion_id: state.resolved[t.comment_id]
        for t in threads
        if t.comment_id in state.resolved
    }
    return PullDecisions(
        tuple(decisions), tuple(t.suggestion_id for t in threads), tuple(undone), resolved
    )
