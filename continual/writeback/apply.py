"""Applying maintainers' decisions to the store: one receipt per decision, one entry per mechanism."""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from sqlalchemy import Connection, Engine, select
from sqlalchemy.exc import IntegrityError

from continual import store
from continual.admission import admit
from continual.associations import associate
from continual.consolidation import consolidate_after
from continual.maintenance.anchors import Anchors, context_of
from continual.maintenance.records import record_provenance
from continual.markers import parse_fix_marker
from continual.replies import Deferral, Verdict
from continual.secrets import redact
from continual.stored import StoredReceipt, StoredSuggestion
from continual.tables import Receipt
from continual.times import to_ms
from continual.tombstones import is_tombstoned_source
from continual.values import Decision, Source
from continual.writeback.authors import bot_login
from continual.writeback.binding import Claim
from continual.writeback.pull import Analysis, PullDecisions, PullState, decide_pull
from continual.writeback.threads import FixPull, ThreadDecision, decide_fix_pr

log = logging.getLogger(__name__)

MAX_CAS_RETRIES = 8
# The signals of a pull request's own thread: one of them is the thread's decision at a time.
THREAD_SOURCES = (Source.REPLY, Source.REACTION, Source.APPLIED, Source.MERGED_AUTHOR_FIX)
# A suggestion's decisions, strongest first: its fix PR, then its thread's own signals (SPEC §5).
# A merged fix PR outranks every thread signal; a fix PR's refusal and a thread signal: the latest.
RANKED_SOURCES = (Source.FIX_PR, *THREAD_SOURCES)
# Read in full at every write-back, so a thread without them has lost them.
CONVERSATION_SOURCES = (Source.REPLY, Source.REACTION)


@dataclass(frozen=True, slots=True)
class WritebackResult:
    decisions: int = 0
    changed: int = 0
    retracted: int = 0
    tombstoned: int = 0
    conflicts: int = 0
    resolved: int = 0  # threads whose resolution (evidence, not a decision) changed


@dataclass(frozen=True, slots=True)
class PullResult:
    """One PR's write-back: the counts, the decisions that changed, the threads whose decision was
    cleared, and what was decided (for the acknowledgement)."""

    counts: WritebackResult
    changes: tuple[ThreadDecision, ...]
    cleared: tuple[str, ...]
    decided: PullDecisions

    @property
    def decisions(self) -> int:
        return self.counts.decisions

    @property
    def changed(self) -> int:
        return self.counts.changed

    @property
    def retracted(self) -> int:
        return self.counts.retracted


def _ms(decision: ThreadDecision) -> int:
    return to_ms(decision.at)


def new_entry_for(suggestion: StoredSuggestion) -> store.NewEntry:
    """The entry a suggestion's mechanism starts: its lesson, admitted or not, and associations."""
    links = associate(
        path=suggestion.path, title=suggestion.title, lesson=suggestion.lesson, body=suggestion.body
    )
    # The lesson is anchored to what its context held at the head, never to its own words.
    paths, names = context_of(Anchors.from_json(suggestion.anchors), suggestion.path)
    admission = admit(
        title=suggestion.title,
        text=suggestion.lesson,
        context_paths=paths,
        context_identifiers=names,
    )
    return store.NewEntry(
        account_id=suggestion.account_id,
        repository_id=suggestion.repository_id,
        key=suggestion.entry_key,
        lens=suggestion.lens,
        title=suggestion.title,
        text=suggestion.lesson,
        admission=admission.stage,
        associations={key: list(value) for key, value in asdict(links).items()},
    )


def _apply_one(conn: Connection, decision: ThreadDecision, *, now: int) -> bool | None:
    """One decision in the caller's transaction, for its suggestion and every suggestion its
    comment carries: True changed, False no change, None refused (a deleted entry's source)."""
    outcomes = [
        _apply_to(conn, replace(decision, suggestion_id=sid), now=now)
        for sid in store.carried_by_comment(conn, decision.suggestion_id)
    ]
    if any(outcome is True for outcome in outcomes):
        return True
    return None if all(outcome is None for outcome in outcomes) else False


def _apply_to(conn: Connection, decision: ThreadDecision, *, now: int) -> bool | None:
    suggestion = store.suggestion(conn, decision.suggestion_id)
    if suggestion is None:
        return False
    if is_tombstoned_source(conn, suggestion.id):
        return None  # its entry was deleted: it never comes back, whatever the key holds now
    current = store.entry_for_key(conn, suggestion.repository_id, suggestion.entry_key)
    if current is None:
        entry_id = store.create_entry(conn, new_entry_for(suggestion), now=now)
        record_provenance(conn, entry_id, suggestion, now=now)
        current = store.live_entry(conn, suggestion.repository_id, suggestion.entry_key)
        assert current is not None
    receipt = store.NewReceipt(
        suggestion_id=suggestion.id,
        decision=decision.decision,
        source=decision.source,
        at_ms=_ms(decision),
        reason=decision.reason,
        rule=decision.rule,
        span=decision.span,
        actor=decision.actor,
        evidence=decision.evidence,
        evidence_commit=decision.commit,
    )
    if not store.set_receipt(conn, current.id, suggestion.account_id, receipt, suggestion):
        return False
    extra: dict[str, Any] = {}
    if decision.decision is Decision.ACCEPTED and current.admission is not None:
        better = new_entry_for(suggestion)
        if better.admission is None:  # a later acceptance brings an admissible lesson
            extra = {"text": better.text, "title": better.title, "admission": None}
    store.refresh(conn, current.id, current.revision, now=now, **extra)
    return True


def _retry(engine: Engine, action: Any, what: str) -> tuple[Any, int]:
    """Run `action(conn)` in a transaction, re-reading and retrying on revision conflicts."""
    for attempt in range(MAX_CAS_RETRIES):
        try:
            with engine.begin() as conn:
                return action(conn), attempt
        except (store.RevisionConflict, IntegrityError):
            log.info("write-back conflict, retrying", extra={"what": what, "attempt": attempt})
    raise store.RevisionConflict(what, -1)


def apply_decisions(
    engine: Engine,
    decisions: Iterable[ThreadDecision],
    *,
    retract_missing: Iterable[str] = (),
    source: Source = Source.REPLY,
    now: int,
) -> WritebackResult:
    """Apply each decision in its own transaction; supersede receipts whose decision is gone.

    `retract_missing` lists suggestions whose threads were read and now carry no decision of
    `source` (a reply deleted or edited into discussion): their current receipts of that source
    are superseded.
    """
    decided: set[str] = set()
    changed = tombstoned = conflicts = count = retracted = 0
    for decision in decisions:
        count += 1
        decided.add(decision.suggestion_id)
        outcome, attempts = _retry(
            engine, lambda conn, d=decision: _apply_one(conn, d, now=now), decision.suggestion_id
        )
        conflicts += attempts
        changed += outcome is True
        tombstoned += outcome is None
    for suggestion_id in retract_missing:
        if suggestion_id in decided:
            continue

        def undo(conn: Connection, sid: str = suggestion_id) -> bool:
            return _retract(conn, sid, source, now=now) is not None

        outcome, attempts = _retry(engine, undo, suggestion_id)
        conflicts += attempts
        retracted += bool(outcome)
    if changed:
        consolidate_after(engine, decided, now=now)
    return WritebackResult(count, changed, retracted, tombstoned, conflicts)


def _retract(
    conn: Connection, suggestion_id: str, sources: Source | Collection[Source], *, now: int
) -> str | None:
    """Supersede the current receipts from `sources` of the suggestion (and of those its comment
    carries) and refresh the entries they belonged to (state and expiry follow); answers the
    first such entry's id, None when none changed."""
    changed: str | None = None
    for sid in store.carried_by_comment(conn, suggestion_id):
        entry_id = store.retract(conn, sid, sources)
        if entry_id is None:
            continue
        current = store.entry(conn, entry_id)
        assert current is not None
        store.refresh(conn, entry_id, current.revision, now=now)
        changed = changed or entry_id
    return changed


def current_receipts(conn: Connection, suggestion_id: str) -> list[StoredReceipt]:
    rows = conn.execute(
        select(Receipt).where(Receipt.suggestion_id == suggestion_id, Receipt.superseded.is_(False))
    ).all()
    return [StoredReceipt.of(row) for row in rows]


def _outranked(conn: Connection, decision: ThreadDecision) -> bool:
    """Whether the suggestion's fix PR decided more strongly than this thread signal: a merged
    fix PR always does; a refusal on it does when it is not older than the signal."""
    fix = next(
        (r for r in current_receipts(conn, decision.suggestion_id) if r.source == Source.FIX_PR),
        None,
    )
    if fix is None:
        return False
    return fix.decision == Decision.ACCEPTED.value or fix.at_ms >= _ms(decision)


def _apply_thread(conn: Connection, decision: ThreadDecision, *, now: int) -> bool | None:
    """A thread's one decision: recorded, and the suggestion's other receipts superseded; nothing
    when its fix PR outranks it."""
    if _outranked(conn, decision):
        return False
    outcome = _apply_one(conn, decision, now=now)
    if outcome is None:
        return None
    others = [s for s in RANKED_SOURCES if s is not decision.source]
    entry_id = _retract(conn, decision.suggestion_id, others, now=now)
    return outcome or entry_id is not None


def _apply_fix(conn: Connection, decision: ThreadDecision, *, now: int) -> bool | None:
    """A fix PR's decision: recorded, and the thread's own signals superseded (a merged fix PR
    outranks them all; a refusal on it is the latest word)."""
    outcome = _apply_one(conn, decision, now=now)
    if outcome is None:
        return None
    entry_id = _retract(conn, decision.suggestion_id, THREAD_SOURCES, now=now)
    return outcome or entry_id is not None


def write_back_pull(
    engine: Engine,
    state: PullState,
    *,
    now: int,
    judged: Mapping[int, Verdict | Deferral] | None = None,
    analysis: Analysis | None = None,
) -> PullResult:
    """Decide one PR's threads and record one decision per thread (docs/writeback.md).

    A thread read without a decision loses the receipts its replies and reactions made; an
    `undo` also clears an applied suggestion's or an author's fix's. What changed is returned so
    that the door can acknowledge it. `judged`: the judge's grounded verdicts by reply id;
    `analysis`: the state's threads as the door's reads analysed them.
    """
    decided = decide_pull(state, judged=judged, analysis=analysis)
    changed: list[ThreadDecision] = []
    cleared: list[str] = []
    conflicts = tombstoned = 0
    for decision in decided.decisions:
        outcome, attempts = _retry(
            engine, lambda conn, d=decision: _apply_thread(conn, d, now=now), decision.suggestion_id
        )
        conflicts += attempts
        tombstoned += outcome is None
        if outcome is True:
            changed.append(decision)
    decided_ids = {d.suggestion_id for d in decided.decisions}
    undone = set(decided.undone)
    for suggestion_id in decided.threads:
        if suggestion_id in decided_ids:
            continue
        if suggestion_id in undone:
            sources: tuple[Source, ...] = THREAD_SOURCES
        else:
            sources = CONVERSATION_SOURCES if state.reactions_read else (Source.REPLY,)

        def clear(conn: Connection, sid: str = suggestion_id, which: Any = sources) -> bool:
            return _retract(conn, sid, which, now=now) is not None

        outcome, attempts = _retry(engine, clear, suggestion_id)
        conflicts += attempts
        if outcome:
            cleared.append(suggestion_id)
    if changed:
        consolidate_after(engine, [d.suggestion_id for d in changed], now=now)
    resolved = 0
    claims = {sid: stored_claim(claim) for sid, claim in decided.claims.items()}
    with engine.begin() as conn:
        store.note_claims(conn, decided.threads, claims)
        if state.reactions_read:  # read with the reactions; unknown when that read failed
            resolved = store.note_resolved(conn, decided.threads, decided.resolved, now=now)
    result = WritebackResult(
        len(decided.decisions), len(changed), len(cleared), tombstoned, conflicts, resolved
    )
    return PullResult(result, tuple(changed), tuple(cleared), decided)


def stored_claim(claim: Claim) -> str:
    """A claim as the suggestion keeps it: JSON, the reply's words redacted."""
    return replace(claim, span=redact(claim.span)).to_json()


def fix_pull_suggestion(conn: Connection, fix: FixPull) -> dict[str, str]:
    """The suggestion a fix PR's marker names, with its repository, when the store knows it: the
    PR decides nothing otherwise, so nothing more about it is worth reading."""
    suggestion_id = parse_fix_marker(fix.body)
    if suggestion_id is None:
        return {}
    repository = store.suggestion_repository(conn, suggestion_id)
    return {suggestion_id: repository} if repository is not None else {}


def write_back_fix_pull(
    engine: Engine,
    fix: FixPull,
    *,
    suggestion_repositories: Mapping[str, str],
    app_slug: str,
    now: int,
) -> WritebackResult | None:
    """Record what a closed fix PR decided about its suggestion; None when it decided nothing."""
    decision = decide_fix_pr(
        fix,
        bot_login=bot_login(app_slug),
        app_slug=app_slug,
        suggestion_repositories=suggestion_repositories,
    )
    if decision is None:
        return None
    outcome, conflicts = _retry(
        engine, lambda conn: _apply_fix(conn, decision, now=now), decision.suggestion_id
    )
    if outcome is True:
        consolidate_after(engine, [decision.suggestion_id], now=now)
    return WritebackResult(1, int(outcome is True), 0, int(outcome is None), conflicts)


def thread_receipts(engine: Engine, suggestion_ids: Iterable[str]) -> dict[str, StoredReceipt]:
    """Each suggestion's current thread decision (the strongest signal's receipt, if several)."""
    ids = list(suggestion_ids)
    if not ids:
        return {}
    rank = {source.value: index for index, source in enumerate(RANKED_SOURCES)}
    with engine.connect() as conn:
        rows = conn.execute(
            select(Receipt).where(
                Receipt.suggestion_id.in_(ids),
                Receipt.superseded.is_(False),
                Receipt.source.in_(list(rank)),
            )
        ).all()
    found: dict[str, StoredReceipt] = {}
    for receipt in sorted((StoredReceipt.of(r) for r in rows), key=lambda r: -rank[r.source]):
        found[receipt.suggestion_id] = receipt
    return found
