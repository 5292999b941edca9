"""One pull request's write-back decision, from plain values: its threads and every maintainer signal."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from continual.replies import Deferral, Verdict
from continual.stored import StoredSuggestion
from continual.values import Decision, Source
from continual.writeback.applied import RULE as APPLIED_RULE
from continual.writeback.applied import Replacement, applied_suggestions, replacement_lines
from continual.writeback.authors import Author, bot_login, is_bot, is_bot_account, is_maintainer
from continual.writeback.binding import Claim, bind
from continual.writeback.evidence import Bound, ChangesSince, Evidence, Lines, evidence_of
from continual.writeback.readings import Analysis, Readings
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
    undo_reply,
)

__all__ = ["Analysis", "ChangesSince", "PullDecisions", "PullState", "ReadPlan", "analyse"]


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
    closed: bool = False  # the pull request is merged or closed
    judging: bool = False  # a judge reads the replies the rules leave undecided

    @property
    def bot_login(self) -> str:
        return bot_login(self.app_slug)


@dataclass(frozen=True)
class PullDecisions:
    """Every decision on one PR, and the suggestions whose threads were read (a thread read with
    no decision of its own has lost the one it had: a reply deleted, or edited into discussion).

    `undone` are threads a maintainer's `undo` cleared with no signal since; `resolved` maps the
    suggestions whose thread is resolved to who resolved it (evidence, never a decision);
    `claims` the threads with no decision whose latest reply said something that has not bound
    (claimed, argued, deferred, dropped: continual.writeback.binding).
    """

    decisions: tuple[ThreadDecision, ...]
    threads: tuple[str, ...]
    undone: tuple[str, ...] = ()
    resolved: Mapping[str, str] = field(default_factory=dict)
    claims: Mapping[str, Claim] = field(default_factory=dict)


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
    settled = _settled(state, analysis)
    return ReadPlan(
        signals=any(t.suggestion_id not in settled for t in analysis.threads),
        unknown_actors=unknown,
        comparison_base=_comparison_base(state, analysis, maintainers),
        comparison_if_vouched=_comparison_base(state, analysis, vouched) if unknown else None,
    )


def _settled(state: PullState, analysis: Analysis) -> set[str]:
    """Threads a reply decides: at once, or bound to the evidence read so far."""
    settled = set(analysis.replied)
    if state.changes is None and not state.closed:
        return settled
    base = state.changes.base if state.changes is not None else None
    known = {s.id: s for s in state.known}
    for thread in analysis.threads:
        suggestion, reading = known.get(thread.suggestion_id), analysis.reading(thread)
        if thread.suggestion_id in settled or suggestion is None or reading is None:
            continue
        evidence = evidence_of(
            suggestion,
            head_sha=state.head_sha,
            base=base,
            changes=state.changes,
            closed=state.closed,
        )
        if bind(thread.suggestion_id, *reading, evidence).decision is not None:
            settled.add(thread.suggestion_id)
    return settled


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
    "fixed" can have been fixed since; a reply waiting for evidence needs to know whether the
    lines changed. The oldest such head covers them all. A thread a reply decides at once needs
    no comparison: a reply outranks what a comparison could find.
    """
    if state.head_sha is None:
        return None
    older = _replacements(state) if maintainers else []
    older += _author_fixes(state, analysis) + analysis.waiting(
        state.known, head_sha=state.head_sha, judging=state.judging
    )
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
            evidence=Bound.LANDED,
            commit=changes.commits[-1] if changes.commits else None,
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
    base: str | None  # the head the comparison started from, if one was read
    resolved: Mapping[str, str]  # suggestion id -> the maintainer who resolved its thread

    def evidence(self, suggestion: StoredSuggestion | None) -> Evidence:
        """The thread's evidence, once per thread and write-back."""
        state = self.state
        if suggestion is None:  # the store no longer holds it: nothing binds
            return Evidence(Lines.UNKNOWN, closed=state.closed)
        return evidence_of(
            suggestion,
            head_sha=state.head_sha,
            base=self.base,
            changes=state.changes,
            closed=state.closed,
            resolved_by=self.resolved.get(suggestion.id),
        )


def _decide(context: _Context, thread: Thread) -> tuple[ThreadDecision | None, Claim | None]:
    """One thread's decision, by precedence: reply (bound to its evidence), reaction, applied,
    the author's merged fix; and the reply's claim when it did not bind and nothing else decided."""
    state, analysis = context.state, context.analysis
    suggestion = next((s for s in state.known if s.id == thread.suggestion_id), None)
    reading = analysis.reading(thread, context.judged)
    claim = None
    if reading is not None:
        bound = bind(thread.suggestion_id, *reading, context.evidence(suggestion))
        if bound.decision is not None:
            return bound.decision, None
        claim = bound.claim
    return _signal(context, thread, suggestion), claim


def _signal(
    context: _Context, thread: Thread, suggestion: StoredSuggestion | None
) -> ThreadDecision | None:
    """A thread's decision by the signals beside replies: reaction, applied, the author's fix."""
    state, analysis = context.state, context.analysis
    undo = analysis.undos[thread.suggestion_id]
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
    if acceptance is None or suggestion is None or suggestion.head_sha == state.head_sha:
        return None
    if not context.merged_by_maintainer:
        return None
    fixed = decide_author_fix(
        thread,
        acceptance,
        merge=merge,
        patch=changes.patches.get(suggestion.path),
        line=suggestion.line,
    )
    if fixed is None:
        return None
    commit = changes.commits[-1] if changes.commits else None
    return replace(fixed, evidence=Bound.CHANGED, commit=commit)


def decide_pull(
    state: PullState,
    *,
    judged: Mapping[int, Verdict | Deferral] | None = None,
    analysis: Analysis | None = None,
) -> PullDecisions:
    """What maintainers decided on the suggestions of one PR: one decision per thread, the
    strongest signal of each (docs/writeback.md); applied suggestions and fixes only when the
    changes were read. A reply's reading is bound to the thread's evidence
    (continual.writeback.binding); one that does not bind is kept as the thread's claim.

    `judged` maps reply ids to the judge's grounded verdicts or deferrals (docs/writeback.md,
    "The judge"); a judged reply stands where it stands in its thread, so a later decision still
    beats it, and it binds as a rule's reading does. `analysis` is the state's threads as the
    door's reads analysed them (`analyse`), built once.
    """
    analysis = analysis or analyse(state)
    threads = analysis.threads
    maintainers = _maintainers(state)
    base = _comparison_base(state, analysis, maintainers)
    applied: dict[str, ThreadDecision] = {}
    if state.changes is not None and base is not None:
        applied = {d.suggestion_id: d for d in _applied(state, state.changes, maintainers)}
    if state.changes is not None and state.changes.base is not None:
        base = state.changes.base
    resolved = {
        t.suggestion_id: by
        for t in threads
        if (by := state.resolved.get(t.comment_id))
        and _resolved_by_maintainer(state, by, maintainers)
    }
    context = _Context(
        state,
        analysis,
        applied,
        maintainers,
        _merged_by_maintainer(state, maintainers),
        judged,
        base,
        resolved,
    )
    decisions: list[ThreadDecision] = []
    undone: list[str] = []
    claims: dict[str, Claim] = {}
    for thread in threads:
        decision, claim = _decide(context, thread)
        if decision is not None:
            decisions.append(decision)
            continue
        if claim is not None:
            claims[thread.suggestion_id] = claim
        if analysis.undos[thread.suggestion_id] is not None:
            undone.append(thread.suggestion_id)
    read = {t.suggestion_id for t in threads}
    decisions += [d for sid, d in applied.items() if sid not in read]  # its comment was deleted
    return PullDecisions(
        tuple(decisions), tuple(t.suggestion_id for t in threads), tuple(undone), resolved, claims
    )
