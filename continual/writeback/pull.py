"""One pull request's write-back decision, from plain values: its threads and every maintainer signal."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from continual.replies import Deferral, Verdict, classify_reply
from continual.stored import StoredSuggestion
from continual.values import Decision, Source
from continual.writeback.applied import RULE as APPLIED_RULE
from continual.writeback.applied import Replacement, applied_suggestions, replacement_lines
from continual.writeback.authors import Author, bot_login, is_bot, is_bot_account, is_maintainer
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
    decide_replies,
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

    `changes` is the comparison a `ReadPlan` asks for, when it asks for one; `read_at` dates
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


class Readings(Mapping[int, Verdict | None]):
    """What the rules read in each reply a person wrote, by reply id: each reply is classified
    once, when a rule first asks for it (a reply no rule reads is never classified)."""

    def __init__(self, replies: Iterable[ThreadComment], *, app_slug: str) -> None:
        self._bodies = {reply.id: reply.body for reply in replies if not is_bot(reply.author)}
        self._app_slug = app_slug
        self._read: dict[int, Verdict | None] = {}

    def __getitem__(self, reply_id: int) -> Verdict | None:
        if reply_id not in self._read:
            body = self._bodies[reply_id]
            self._read[reply_id] = classify_reply(body, app_slug=self._app_slug)
        return self._read[reply_id]

    def __iter__(self) -> Iterator[int]:
        return iter(self._bodies)

    def __len__(self) -> int:
        return len(self._bodies)


@dataclass(frozen=True)
class Analysis:
    """A pull request's threads, read once for a whole write-back: every plan of the door's
    reads, the judge's questions and the decision share it.

    `undos` is each thread's latest maintainer `undo` by suggestion id; `verdicts` what the rules
    read in each reply a person (never a bot) wrote, by reply id.
    """

    threads: tuple[Thread, ...]
    undos: Mapping[str, ThreadComment | None]
    verdicts: Readings

    @cached_property
    def replied(self) -> frozenset[str]:
        """The suggestions whose thread a reply decides, by the rules alone."""
        return frozenset(
            t.suggestion_id
            for t in self.threads
            if decide_replies(t, undo=self.undos[t.suggestion_id], verdicts=self.verdicts)
            is not None
        )


def analyse(state: PullState) -> Analysis:
    """The threads of the state's comments, built once, with their replies to be read once."""
    threads = tuple(
        build_threads(
            state.comments,
            bot_login=state.bot_login,
            known_suggestion_ids={s.id for s in state.known},
        )
    )
    replies = (reply for thread in threads for reply in thread.replies)
    undos = {t.suggestion_id: undo_reply(t, app_slug=state.app_slug) for t in threads}
    return Analysis(threads, undos, Readings(replies, app_slug=state.app_slug))


@dataclass(frozen=True)
class ReadPlan:
    """What the door must read next about a pull request, from what it has read so far.

    `signals`: a thread has no reply decision, so a reaction, the merge or the author's fix could
    decide it, and the reactions and the merge are worth a read. `unknown_actors`: 👍/👎 reactors
    on such threads that no comment vouches for (never bots), most recent first; a permission read
    may find them maintainers. `comparison_base`: the head to compare the current one against, or
    None when no comparison can decide anything; `comparison_if_vouched` the same were every
    unknown actor a maintainer (what the budget keeps a request for).
    """

    signals: bool
    unknown_actors: tuple[str, ...]
    comparison_base: str | None
    comparison_if_vouched: str | None


def plan_reads(state: PullState, analysis: Analysis | None = None) -> ReadPlan:
    """The reads `state` still needs; `analysis` is the state's (`analyse`), built once."""
    analysis = analysis or analyse(state)
    maintainers = _maintainers(state)
    unknown = _unknown_actors(state, analysis, maintainers)
    vouched = maintainers | set(unknown)
    return ReadPlan(
        signals=any(t.suggestion_id not in analysis.replied for t in analysis.threads),
        unknown_actors=unknown,
        comparison_base=_comparison_base(state, analysis, maintainers),
        comparison_if_vouched=_comparison_base(state, analysis, vouched) if unknown else None,
    )


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


def _acceptance(
    state: PullState, analysis: Analysis, thread: Thread
) -> tuple[ThreadComment, str] | None:
    author = state.pr_author
    if author is None:
        return None
    return author_acceptance(
        thread,
        author=author.login,
        undo=analysis.undos[thread.suggestion_id],
        verdicts=analysis.verdicts,
    )


def _author_fixes(state: PullState, analysis: Analysis) -> list[StoredSuggestion]:
    """Suggestions posted on an earlier head of a merged PR whose author answered "fixed"."""
    author = state.pr_author
    if state.merge is None or author is None or is_bot(author):
        return []
    answered = {
        t.suggestion_id for t in analysis.threads if _acceptance(state, analysis, t) is not None
    }
    return [s for s in state.known if s.id in answered and s.head_sha != state.head_sha]


def _comparison_base(state: PullState, analysis: Analysis, maintainers: set[str]) -> str | None:
    """A suggestion with replacement code, posted on an earlier head, of a PR some maintainer took
    part in, can have been applied since; a suggestion of a merged PR whose author answered
    "fixed" can have been fixed since. The oldest such head covers them all. A thread a reply
    decides needs no comparison: a reply outranks what a comparison could find.
    """
    if state.head_sha is None:
        return None
    older = _replacements(state) if maintainers else []
    older += _author_fixes(state, analysis)
    older = [s for s in older if s.id not in analysis.replied]
    if not older:
        return None
    return min(older, key=lambda s: (s.created_ms, s.id)).head_sha


def _unknown_actors(state: PullState, analysis: Analysis, maintainers: set[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    open_threads = [
        t.comment_id for t in analysis.threads if t.suggestion_id not in analysis.replied
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
        if not reaction.is_bot and reaction.login not in maintainers:
            seen.setdefault(reaction.login)
    return tuple(seen)


def _merged_by_maintainer(state: PullState, maintainers: set[str]) -> bool:
    """True when a person merged the PR: GitHub lets only people with write access merge, so a
    merger is a maintainer unless a bot, or seen on this PR's comments as a contributor."""
    merge = state.merge
    if merge is None or merge.by_bot:
        return False
    seen = {c.author.association.upper() for c in state.comments if c.author.login == merge.by}
    return merge.by in maintainers or not seen


def _resolved_by_maintainer(state: PullState, login: str, maintainers: set[str]) -> bool:
    """True when a maintainer resolved a thread: GitHub lets only people with write access and the
    PR's author resolve one, so a resolver is a maintainer when vouched for, or when neither the
    PR's author nor seen on this PR's comments as a contributor. A bot never is."""
    if login in maintainers:
        return True
    author = state.pr_author
    if is_bot_account(login, None) or (author is not None and author.login == login):
        return False
    seen = {c.author.association.upper() for c in state.comments if c.author.login == login}
    return not seen


def _applied(
    state: PullState, changes: ChangesSince, maintainers: set[str]
) -> list[ThreadDecision]:
    """Suggestions a maintainer applied with "Commit suggestion" since they were posted."""
    found = applied_suggestions(
        (
            Replacement(s.id, s.path, replacement_lines(s.replacement or ""))
            for s in _replacements(state)
        ),
        patches=changes.patches,
        commit_authors=changes.commit_authors,
        maintainers=maintainers,
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


@dataclass(frozen=True)
class _Context:
    """What every thread's decision of one PR shares, computed once."""

    state: PullState
    analysis: Analysis
    applied: Mapping[str, ThreadDecision]
    maintainers: set[str]
    merged_by_maintainer: bool
    judged: Mapping[int, Verdict | Deferral] | None


def _decide(context: _Context, thread: Thread) -> ThreadDecision | None:
    """One thread's decision, by precedence: reply, reaction, applied, the author's merged fix."""
    state, analysis = context.state, context.analysis
    undo = analysis.undos[thread.suggestion_id]
    reply = decide_replies(thread, undo=undo, verdicts=analysis.verdicts, judged=context.judged)
    if reply is not None:
        return reply
    reactions = state.reactions.get(thread.comment_id, ())
    reaction = decide_reactions(
        thread.suggestion_id, reactions, maintainers=context.maintainers, undo=undo
    )
    if reaction is not None:
        return reaction
    if undo is None and thread.suggestion_id in context.applied:
        return context.applied[thread.suggestion_id]
    merge, changes = state.merge, state.changes
    if state.pr_author is None or merge is None or changes is None:
        return None
    acceptance = _acceptance(state, analysis, thread)
    suggestion = next((s for s in state.known if s.id == thread.suggestion_id), None)
    if acceptance is None or suggestion is None or suggestion.head_sha == state.head_sha:
        return None
    if not context.merged_by_maintainer:
        return None
    return decide_author_fix(
        thread,
        acceptance,
        merge=merge,
        patch=changes.patches.get(suggestion.path),
        line=suggestion.line,
    )


def decide_pull(
    state: PullState,
    *,
    judged: Mapping[int, Verdict | Deferral] | None = None,
    analysis: Analysis | None = None,
) -> PullDecisions:
    """What maintainers decided on the suggestions of one PR: one decision per thread, the
    strongest signal of each (docs/writeback.md); applied suggestions and fixes only when the
    changes were read.

    `judged` maps reply ids to the judge's grounded verdicts (docs/writeback.md, "The judge"); a
    judged reply stands where it stands in its thread, so a later decision still beats it.
    `analysis` is the state's threads as the door's reads analysed them (`analyse`), built once.
    """
    analysis = analysis or analyse(state)
    threads = analysis.threads
    maintainers = _maintainers(state)
    applied: dict[str, ThreadDecision] = {}
    if state.changes is not None and _comparison_base(state, analysis, maintainers) is not None:
        applied = {d.suggestion_id: d for d in _applied(state, state.changes, maintainers)}
    context = _Context(
        state, analysis, applied, maintainers, _merged_by_maintainer(state, maintainers), judged
    )
    decisions: list[ThreadDecision] = []
    undone: list[str] = []
    for thread in threads:
        decision = _decide(context, thread)
        if decision is not None:
            decisions.append(decision)
        elif analysis.undos[thread.suggestion_id] is not None:
            undone.append(thread.suggestion_id)
    read = {t.suggestion_id for t in threads}
    decisions += [d for sid, d in applied.items() if sid not in read]  # its comment was deleted
    resolved = {
        t.suggestion_id: by
        for t in threads
        if (by := state.resolved.get(t.comment_id))
        and _resolved_by_maintainer(state, by, maintainers)
    }
    return PullDecisions(
        tuple(decisions), tuple(t.suggestion_id for t in threads), tuple(undone), resolved
    )
