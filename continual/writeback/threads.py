"""The write-back decision: from a pull request's review threads and fix PRs to what maintainers decided."""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from continual.markers import parse_fix_marker, parse_suggestion_marker
from continual.replies import (
    AGREEMENT_RULE,
    Binding,
    Deferral,
    Verdict,
    classify_typed,
    is_undo,
    read_deferral,
    read_reply,
)
from continual.values import Decision, Reason, Source
from continual.writeback.authors import Author, is_app_bot, is_bot, is_bot_account, is_maintainer


@dataclass(frozen=True)
class ThreadComment:
    """One pull-request review comment as it reads now (edited bodies as edited)."""

    id: int
    body: str
    author: Author
    in_reply_to_id: int | None
    created_at: datetime
    updated_at: datetime | None = None
    path: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class Thread:
    """A suggestion comment of the app's bot and the replies to it, oldest first."""

    suggestion_id: str
    entry_key: str
    comment_id: int
    replies: tuple[ThreadComment, ...]


@dataclass(frozen=True)
class ThreadDecision:
    """What was decided about one suggestion, by whom, when, and which rule read it."""

    suggestion_id: str
    decision: Decision
    reason: Reason | None
    source: Source
    rule: str
    span: str
    actor: str
    at: datetime
    reply_id: int | None
    # The evidence that bound it (continual.writeback.evidence.Bound), and the commit showing it.
    evidence: str | None = None
    commit: str | None = None


@dataclass(frozen=True)
class FixPull:
    """A pull request that may fix a suggestion: its body marker decides which one."""

    number: int
    repository: str  # owner/name of the base repository
    body: str
    author: Author
    merged: bool
    closed: bool
    merged_at: datetime | None = None
    closed_at: datetime | None = None
    merged_by: str | None = None
    comments: tuple[ThreadComment, ...] = ()
    merged_by_type: str | None = None  # "User", "Bot"…: a bot's merge decides nothing
    edited_by_others: bool = False  # commits not the app's were pushed to it before it closed


def build_threads(
    comments: Iterable[ThreadComment], *, bot_login: str, known_suggestion_ids: Container[str]
) -> list[Thread]:
    """Suggestion threads of one PR: the bot's marked comments the store knows, with their replies."""
    ordered = sorted(comments, key=lambda comment: comment.id)
    heads: dict[int, tuple[str, str]] = {}
    seen: set[str] = set()
    for comment in ordered:
        if comment.in_reply_to_id is not None or not is_app_bot(
            comment.author, bot_login=bot_login
        ):
            continue
        marker = parse_suggestion_marker(comment.body)
        if marker is None or marker.suggestion_id in seen:
            continue
        if marker.suggestion_id not in known_suggestion_ids:
            continue
        seen.add(marker.suggestion_id)
        heads[comment.id] = (marker.suggestion_id, marker.entry_key)
    replies: dict[int, list[ThreadComment]] = {head: [] for head in heads}
    for comment in ordered:
        if comment.in_reply_to_id in replies:
            replies[comment.in_reply_to_id].append(comment)
    threads = []
    for head, (suggestion_id, entry_key) in heads.items():
        thread_replies = sorted(replies[head], key=lambda reply: (reply.created_at, reply.id))
        threads.append(Thread(suggestion_id, entry_key, head, tuple(thread_replies)))
    return threads


def _latest(
    suggestion_id: str, verdicts: Iterable[tuple[ThreadComment, Verdict]], source: Source
) -> ThreadDecision | None:
    best: tuple[ThreadComment, Verdict] | None = None
    for reply, verdict in verdicts:
        if best is None or (reply.created_at, reply.id) >= (best[0].created_at, best[0].id):
            best = (reply, verdict)
    if best is None:
        return None
    reply, verdict = best
    return ThreadDecision(
        suggestion_id=suggestion_id,
        decision=verdict.decision,
        reason=verdict.reason,
        source=source,
        rule=verdict.rule,
        span=verdict.span,
        actor=reply.author.login,
        at=reply.updated_at or reply.created_at,
        reply_id=reply.id,
    )


def _order(comment: ThreadComment) -> tuple[datetime, int]:
    return (comment.created_at, comment.id)


def undo_reply(thread: Thread, *, app_slug: str) -> ThreadComment | None:
    """The latest maintainer reply that is the typed `undo`; a contributor's or bot's is ignored."""
    undos = [
        reply
        for reply in thread.replies
        if is_maintainer(reply.author) and is_undo(reply.body, app_slug=app_slug)
    ]
    return max(undos, key=_order, default=None)


Reading = tuple[ThreadComment, Verdict | Deferral]
# Typed words that report a change rather than command a decision: "fixed", "applied" say the
# code changed, so the code is asked (docs/writeback.md, "Verdicts bound to evidence").
_REPORTS = ("fixed", "applied")


def binding_of(verdict: Verdict) -> Binding:
    """When a verdict may decide: as it was read, except that a typed `fixed` or `applied` is a
    report of a change and binds on the evidence, as a natural acceptance does."""
    word = verdict.span.lower().rstrip(" .!:;,").rsplit(maxsplit=1)[-1:]
    if verdict.rule == "grammar.accept" and word and word[0].lstrip("/") in _REPORTS:
        return Binding.EVIDENCE
    return verdict.binding


def decide_thread(
    thread: Thread, *, app_slug: str, judged: Mapping[int, Verdict | Deferral] | None = None
) -> ThreadDecision | None:
    """The thread's decision by its replies alone, when the latest reply that says something
    decides at once (a typed command, an unambiguous refusal); None while it is discussion, or
    while what it says waits for evidence (`continual.writeback.binding`).

    Latest means by creation time, then id: an edit changes what a reply says (bodies are read as
    they are now), not where it stands in the thread. The decision's `at` is the edit time, if any.
    Replies before a maintainer's `undo` no longer count. `judged` holds the judge's grounded
    verdicts by reply id, for replies the rules leave undecided.
    """
    verdicts = {
        reply.id: read_reply(reply.body, app_slug=app_slug)
        for reply in thread.replies
        if is_maintainer(reply.author)
    }
    undo = undo_reply(thread, app_slug=app_slug)
    return decide_replies(thread, undo=undo, verdicts=verdicts, judged=judged)


def decide_replies(
    thread: Thread,
    *,
    undo: ThreadComment | None,
    verdicts: Mapping[int, Verdict | None],
    judged: Mapping[int, Verdict | Deferral] | None = None,
    deferrals: Mapping[int, Deferral | None] | None = None,
) -> ThreadDecision | None:
    """`decide_thread` from what was read once: the thread's `undo` and what the rules read in
    each maintainer reply (`verdicts`, by reply id)."""
    reading = latest_reading(
        thread, undo=undo, verdicts=verdicts, judged=judged, deferrals=deferrals
    )
    if reading is None:
        return None
    reply, verdict = reading
    if not isinstance(verdict, Verdict) or binding_of(verdict) is not Binding.AT_ONCE:
        return None
    return _latest(thread.suggestion_id, [(reply, verdict)], Source.REPLY)


def latest_reading(
    thread: Thread,
    *,
    undo: ThreadComment | None,
    verdicts: Mapping[int, Verdict | None],
    judged: Mapping[int, Verdict | Deferral] | None = None,
    deferrals: Mapping[int, Deferral | None] | None = None,
) -> Reading | None:
    """The latest maintainer reply after the thread's `undo` that says something — a verdict or
    a deferral — with what it says. A verdict that does not bind at once yields to a deferral
    the same reply states ("good point, let's do it in a follow-up"); the judge is read for a
    reply the rules leave undecided. `deferrals` is what `read_deferral` reads, by reply id
    (read here when not given)."""
    found: Reading | None = None
    for reply in thread.replies:
        if not is_maintainer(reply.author):
            continue
        if undo is not None and _order(reply) <= _order(undo):
            continue
        verdict: Verdict | Deferral | None = verdicts.get(reply.id)
        if (
            isinstance(verdict, Verdict)
            and verdict.rule == AGREEMENT_RULE
            and _answers_someone(thread, reply)
        ):
            verdict = None
        if verdict is None and judged:
            verdict = judged.get(reply.id)
        if verdict is None or (
            isinstance(verdict, Verdict) and binding_of(verdict) is not Binding.AT_ONCE
        ):
            deferral = (
                deferrals.get(reply.id) if deferrals is not None else read_deferral(reply.body)
            )
            verdict = deferral or verdict
        if verdict is not None and (found is None or _order(reply) >= _order(found[0])):
            found = (reply, verdict)
    return found


def _answers_someone(thread: Thread, reply: ThreadComment) -> bool:
    """Whether a person other than the replier spoke in the thread before the reply: "Makes sense"
    after a colleague's "won't fix, the API is frozen" agrees with the colleague, not the finding."""
    return any(
        earlier.author.login != reply.author.login and not is_bot(earlier.author)
        for earlier in thread.replies
        if _order(earlier) < _order(reply)
    )


def decide_fix_pr(
    pull: FixPull,
    *,
    bot_login: str,
    app_slug: str,
    suggestion_repositories: Mapping[str, str],
) -> ThreadDecision | None:
    """A fix PR's decision (docs/writeback.md, "Other sources of a decision"): merged by a person →
    accepted, actor the merger (a fix PR edited by others still decides by its merge; the span
    says so); closed with a typed refusal → dismissed; closed without one → no decision.

    `suggestion_repositories` maps each suggestion id the store knows to its repository; a fix PR in
    another repository, or opened by someone who is neither the app's bot nor a maintainer, decides
    nothing.
    """
    suggestion_id = parse_fix_marker(pull.body)
    if suggestion_id is None:
        return None
    repository = suggestion_repositories.get(suggestion_id)
    if repository is None or repository.lower() != pull.repository.lower():
        return None
    if not (is_app_bot(pull.author, bot_login=bot_login) or is_maintainer(pull.author)):
        return None
    if pull.merged:
        at = pull.merged_at or pull.closed_at
        merger = pull.merged_by or pull.author.login
        if at is None or is_bot_account(merger, pull.merged_by_type):
            return None
        edited = " (edited by others before the merge)" if pull.edited_by_others else ""
        return ThreadDecision(
            suggestion_id=suggestion_id,
            decision=Decision.ACCEPTED,
            reason=None,
            source=Source.FIX_PR,
            rule="fix_pr.merged",
            span=f"#{pull.number}{edited}",
            actor=merger,
            at=at,
            reply_id=None,
        )
    if not pull.closed:
        return None
    verdicts = []
    for comment in pull.comments:
        if not is_maintainer(comment.author):
            continue
        verdict = classify_typed(comment.body, app_slug=app_slug)
        if verdict is not None:
            verdicts.append((comment, verdict))
    decision = _latest(suggestion_id, verdicts, Source.FIX_PR)
    if decision is None or decision.decision is not Decision.DISMISSED:
        return None
    return decision
