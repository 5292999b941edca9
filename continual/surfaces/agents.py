"""The agents' surfaces: the brief at session start, context pushes and explicit recall."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import Connection, Engine

from continual.injections import Handed, Target
from continual.memory import handed_key, memory_enabled, recall_items, recalled_block
from continual.memory.render import recalled_line
from continual.packing import Budget, Packed, pack
from continual.persons import Preference
from continual.recall import Snapshot, SnapshotCache
from continual.summary.store import current_summary
from continual.suppression import DEFAULT_SUPPRESS_DAYS
from continual.surfaces.delivery import (
    PARTS_SEPARATOR,
    _deliver,
    _handed,
    _nothing,
    _query_hand,
    _refused,
    _snapshot,
    _with_summary,
    render_lesson,
    with_part,
)
from continual.surfaces.history import with_history
from continual.values import Surface

BRIEF_HEADER = "Hindsight lessons for {repo} (each accepted by a maintainer):"
RECALL_HEADER = "Hindsight lessons for {repo}:"
CONTEXT_HEADER = "Hindsight lessons for what this step touches in {repo}:"
PUSH_MAX_TOKENS = 8_000  # a brief or a context push by default, framing included (docs/api.md)
MAX_INJECTION_TOKENS = 64_000  # the most either budget may be set to (at least 1)
SURFACING_LESSONS = 1  # the brief volunteers lessons from this level on
SURFACING_MEMORY = 2  # … and recalled memory
SURFACING_CONTEXT = 3  # context pushes from this level on
_RECALL_BUDGET = Budget.tokens(PUSH_MAX_TOKENS)


def check_budget(max_tokens: int) -> int:
    """``max_tokens`` if it is a budget a hand-out may have (1 to 64,000); ValueError otherwise."""
    if isinstance(max_tokens, bool) or not 1 <= max_tokens <= MAX_INJECTION_TOKENS:
        raise ValueError(
            f"an injection budget is 1 to {MAX_INJECTION_TOKENS:,} tokens, got {max_tokens!r}"
        )
    return max_tokens


def hand_brief(
    engine: Engine,
    store_dir: Path,
    target: Target,
    *,
    session_id: str,
    preference: Preference,
    person_id: int | None,
    now: int,
    snapshots: SnapshotCache | None = None,
    suppress_days: int = DEFAULT_SUPPRESS_DAYS,
    max_tokens: int = PUSH_MAX_TOKENS,
) -> Handed:
    """The brief at an agent's session start: the repository's standing lessons (surfacing ≥ 1),
    then its memory summary (once per session and revision) and the recalled memory the summary
    does not already say (≥ 2), at most ``lesson_cap`` lessons and ``max_tokens`` approximate
    tokens (the per-call budget, 1 to 64,000)."""
    check_budget(max_tokens)
    if preference.surfacing < SURFACING_LESSONS:
        return _nothing(Surface.BRIEF, session_id)

    def compose(
        conn: Connection, target: Target, snapshot: Snapshot, seen: set[tuple[str, int]]
    ) -> Handed:
        budget = Budget.tokens(max_tokens)
        packed = pack(
            snapshot.standing(target.repository),
            cap=preference.lesson_cap,
            budgets=(budget,),
            render=render_lesson,
            header=BRIEF_HEADER.format(repo=target.repository),
            seen=seen | _refused(conn, target, snapshot, now, suppress_days),
            distinct_text=True,
            said=snapshot.texts_of(seen),
        )
        handed = with_history(
            conn, target, _handed(Surface.BRIEF, session_id, packed), seen=seen, budget=budget
        )
        if preference.surfacing < SURFACING_MEMORY:
            return handed
        if not memory_enabled(conn, target.repository_id):
            return handed
        summary = current_summary(conn, target, snapshot, now=now)
        fresh_summary = (summary.id, summary.revision) not in seen
        if fresh_summary and budget.after(handed.text, PARTS_SEPARATOR).fits(summary.text):
            handed = _with_summary(handed, summary)
        items = recall_items(
            conn, account_id=target.account_id, repository_id=target.repository_id, now_ms=now
        )
        # A line the summary handed counts as handed, like a line of the memory block.
        summarised = [item for item in items if recalled_line(item) in handed.summary]
        fresh = [
            item
            for item in items
            if (handed_key(item), 0) not in seen and recalled_line(item) not in handed.summary
        ]
        block = recalled_block(fresh, budget.after(handed.text, PARTS_SEPARATOR))
        return with_part(
            handed,
            block.text,
            recalled=tuple(handed_key(i) for i in [*summarised, *fresh[: block.included]]),
        )

    return _deliver(
        engine,
        store_dir,
        lambda _conn: target,
        compose,
        session_id=session_id,
        surface=Surface.BRIEF,
        recording=preference.recording,
        person_id=person_id,
        now=now,
        snapshots=snapshots,
    )


def hand_context(
    engine: Engine,
    store_dir: Path,
    target: Target,
    *,
    session_id: str,
    paths: Sequence[str],
    identifiers: Sequence[str] = (),
    words: Sequence[str] = (),
    preference: Preference,
    person_id: int | None,
    now: int,
    snapshots: SnapshotCache | None = None,
    suppress_days: int = DEFAULT_SUPPRESS_DAYS,
    max_tokens: int = PUSH_MAX_TOKENS,
) -> Handed:
    """A context push for one agent tool call (surfacing 3): the lessons its paths and names
    retrieve that the session does not hold yet, within ``max_tokens`` approximate tokens (the
    per-hook budget, 1 to 64,000)."""
    check_budget(max_tokens)
    if preference.surfacing < SURFACING_CONTEXT:
        return _nothing(Surface.CONTEXT, session_id)

    def compose(
        conn: Connection, target: Target, snapshot: Snapshot, seen: set[tuple[str, int]]
    ) -> Handed:
        budget = Budget.tokens(max_tokens)
        handed = _query_hand(
            snapshot,
            target,
            seen | _refused(conn, target, snapshot, now, suppress_days, paths),
            surface=Surface.CONTEXT,
            session_id=session_id,
            header=CONTEXT_HEADER.format(repo=target.repository),
            paths=paths,
            identifiers=identifiers,
            words=words,
            cap=preference.lesson_cap,
            budget=budget,
        )
        # A push names only the history lessons about what the step touches.
        return with_history(
            conn, target, handed, seen=seen, budget=budget, paths=paths, only_about=True
        )

    return _deliver(
        engine,
        store_dir,
        lambda _conn: target,
        compose,
        session_id=session_id,
        surface=Surface.CONTEXT,
        recording=preference.recording,
        person_id=person_id,
        now=now,
        snapshots=snapshots,
    )


def standing_pack(
    snapshot: Snapshot, target: Target, *, cap: int, seen: set[tuple[str, int]]
) -> Packed:
    """What the next session in the repository is handed, in brief order, within the budgets."""
    return pack(
        snapshot.standing(target.repository),
        cap=cap,
        budgets=(_RECALL_BUDGET,),
        render=render_lesson,
        header=RECALL_HEADER.format(repo=target.repository),
        seen=seen,
        distinct_text=True,
        said=snapshot.texts_of(seen),
    )


def preview_recall(
    conn: Connection,
    target: Target,
    *,
    preference: Preference,
    now: int,
    snapshots: SnapshotCache | None = None,
    suppress_days: int = DEFAULT_SUPPRESS_DAYS,
) -> tuple[Handed, Snapshot]:
    """What the next session in the repository would be handed; nothing is recorded."""
    snapshot = _snapshot(conn, target.account_id, now=now, snapshots=snapshots)
    refused = _refused(conn, target, snapshot, now, suppress_days)
    packed = standing_pack(snapshot, target, cap=preference.lesson_cap, seen=refused)
    handed = with_history(
        conn, target, _handed(Surface.RECALL, "", packed), seen=set(), budget=_RECALL_BUDGET
    )
    return handed, snapshot


def hand_recall(
    engine: Engine,
    store_dir: Path,
    target: Target,
    *,
    session_id: str,
    preference: Preference,
    person_id: int | None,
    now: int,
    snapshots: SnapshotCache | None = None,
    suppress_days: int = DEFAULT_SUPPRESS_DAYS,
) -> Handed:
    """The recall surface: an explicit ask for the repository's lessons within a session.

    Surfacing does not apply (explicit queries always answer); the cap and dedupe do."""

    def compose(
        conn: Connection, target: Target, snapshot: Snapshot, seen: set[tuple[str, int]]
    ) -> Handed:
        refused = _refused(conn, target, snapshot, now, suppress_days)
        packed = standing_pack(snapshot, target, cap=preference.lesson_cap, seen=seen | refused)
        handed = _handed(Surface.RECALL, session_id, packed)
        return with_history(conn, target, handed, seen=seen, budget=_RECALL_BUDGET)

    return _deliver(
        engine,
        store_dir,
        lambda _conn: target,
        compose,
        session_id=session_id,
        surface=Surface.RECALL,
        recording=preference.recording,
        person_id=person_id,
        now=now,
        snapshots=snapshots,
    )
