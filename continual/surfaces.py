"""The four surfaces (review, recall, brief, context): what is handed, within budgets, with receipts."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from sqlalchemy import Connection, Engine

from continual.injections import (
    Handed,
    HandedLesson,
    SessionRow,
    Target,
    append_injection,
    injections_path,
    record_row,
    recorded_in,
    seen_in,
    session_rows,
    target_named,
    target_of,
)
from continual.memory import handed_key, recall_items, recalled_block
from continual.memory.render import recalled_line
from continual.packing import Budget, Packed, pack
from continual.persons import Preference, Recording
from continual.recall import Card, Snapshot, SnapshotCache, build_snapshot, generation_of
from continual.summary.store import StoredSummary, current_summary
from continual.suppression import (
    DEFAULT_SUPPRESS_DAYS,
    Standing,
    Suppression,
    mechanisms,
    refused_cards,
    render_dismissed,
)
from continual.values import Surface

__all__ = [
    "Handed",
    "HandedLesson",
    "Target",
    "hand_brief",
    "hand_context",
    "hand_recall",
    "hand_review_lessons",
    "injections_path",
    "preview_recall",
    "render_lesson",
    "standing_pack",
    "target_named",
    "target_of",
]

REVIEW_HEADER = "Lessons from earlier reviews of {repo} (each accepted by a maintainer):"
BRIEF_HEADER = "Hindsight lessons for {repo} (each accepted by a maintainer):"
RECALL_HEADER = "Hindsight lessons for {repo}:"
CONTEXT_HEADER = "Hindsight lessons for what this step touches in {repo}:"
LESSON_LINE = "- {text} (lesson {id} r{revision})"
PUSH_MAX_TOKENS = 8_000  # a brief or a context push, framing included (docs/api.md)
REVIEW_LESSON_CAP = 20
SURFACING_LESSONS = 1  # the brief volunteers lessons from this level on
SURFACING_MEMORY = 2  # … and recalled memory
SURFACING_CONTEXT = 3  # context pushes from this level on
PARTS_SEPARATOR = "\n\n"


def render_lesson(card: Card) -> str:
    return LESSON_LINE.format(text=card.text, id=card.id, revision=card.revision)


@contextmanager
def _transaction(conn_or_engine: Connection | Engine) -> Iterator[Connection]:
    if isinstance(conn_or_engine, Engine):
        with conn_or_engine.begin() as conn:
            yield conn
    else:
        yield conn_or_engine


def _handed(surface: Surface, session_id: str, packed: Packed, text: str | None = None) -> Handed:
    final = packed.text if text is None else text
    return Handed(
        surface=surface,
        session_id=session_id,
        text=final,
        lessons=tuple(HandedLesson(c.id, c.key, c.text) for c in packed.cards),
        set_sha256=hashlib.sha256(final.encode("utf-8")).hexdigest(),
        entries=packed.entries,
        omitted=packed.omitted,
        chars=len(final),
        recorded=False,
    )


Compose = Callable[[Connection, Target, Snapshot, set[tuple[str, int]]], Handed]
Locate = Callable[[Connection], Target]


def _deliver(
    conn_or_engine: Connection | Engine,
    store_dir: Path,
    locate: Locate,
    compose: Compose,
    *,
    session_id: str,
    surface: Surface,
    recording: Recording,
    person_id: int | None,
    now: int,
    dedupe_surfaces: Iterable[Surface] | None = None,
    snapshots: SnapshotCache | None = None,
) -> Handed:
    """Snapshot, compose within the session's dedupe and record the row, in one transaction;
    then (after commit, with an Engine) the injections.jsonl line and the log line."""
    with _transaction(conn_or_engine) as conn:
        target = locate(conn)
        snapshot = _snapshot(conn, target.account_id, now=now, snapshots=snapshots)
        rows: list[SessionRow] = []
        if recording is not Recording.OFF:
            rows = session_rows(conn, target.account_id, session_id)
        handed = compose(conn, target, snapshot, seen_in(rows, now=now, surfaces=dedupe_surfaces))
        if not handed.text or recording is Recording.OFF:
            return handed
        if recorded_in(rows, handed):
            return _with_recorded(handed)
        record_row(conn, target, handed, person_id=person_id, recording=recording, now=now)
    handed = _with_recorded(handed)
    if recording is Recording.FULL:
        append_injection(store_dir, target, handed, now=now)
    return handed


def _snapshot(
    conn: Connection, account_id: int, *, now: int, snapshots: SnapshotCache | None
) -> Snapshot:
    if snapshots is None:
        return build_snapshot(conn, account_id, now=now)
    return snapshots.get(conn, account_id, now=now)


def _with_recorded(handed: Handed) -> Handed:
    return replace(handed, recorded=True)


def _query_hand(
    snapshot: Snapshot,
    target: Target,
    seen: set[tuple[str, int]],
    *,
    surface: Surface,
    session_id: str,
    header: str,
    paths: Iterable[str],
    identifiers: Iterable[str],
    words: Iterable[str],
    cap: int,
    budget: Budget | None,
) -> Handed:
    found = snapshot.search(
        paths=paths,
        identifiers=identifiers,
        words=words,
        repository=target.repository,
        limit=cap,
        seen=seen,
    )
    packed = pack(
        found.hits,
        cap=cap,
        budgets=() if budget is None else (budget,),
        render=render_lesson,
        header=header,
        seen=seen,
        total=found.total,
    )
    return _handed(surface, session_id, packed)


def hand_review_lessons(
    conn_or_engine: Connection | Engine,
    store_dir: Path,
    *,
    account_id: int,
    repository_id: int,
    session_id: str,
    paths: Sequence[str],
    identifiers: Sequence[str] = (),
    words: Sequence[str] = (),
    cap: int = REVIEW_LESSON_CAP,
    now: int,
    max_chars: int | None = None,
    snapshots: SnapshotCache | None = None,
    suppress_days: int = DEFAULT_SUPPRESS_DAYS,
) -> Handed:
    """The review surface: the lessons for a review's changed paths and identifiers, then the
    repository's dismissed mechanisms (docs/writeback.md), which the text and entries include.

    ``session_id`` is the review id. Lessons are ranked by the recall index (score, then id),
    at most ``cap`` complete cards (and ``max_chars`` of text when given) are handed, and the text
    ends with ``N more omitted`` when some were left out. Handing the same review the same set
    again (a retried job) returns it again and records it once. A non-empty set is recorded: an
    injections row, the ``injections.jsonl`` line and the log line. With an Engine everything
    runs in one transaction and the file is written after commit; with a Connection the caller
    owns the transaction (it must be able to write). Raises LookupError for a repository that is
    not the account's.
    """

    def locate(conn: Connection) -> Target:
        target = target_of(conn, account_id, repository_id)
        if target is None:
            raise LookupError(f"repository {repository_id} is not in account {account_id}")
        return target

    def compose(
        conn: Connection, target: Target, snapshot: Snapshot, seen: set[tuple[str, int]]
    ) -> Handed:
        found = _suppressions(conn, target, snapshot, now, suppress_days)
        lessons = _query_hand(
            snapshot,
            target,
            seen | refused_cards(found),
            surface=Surface.REVIEW,
            session_id=session_id,
            header=REVIEW_HEADER.format(repo=target.repository),
            paths=paths,
            identifiers=identifiers,
            words=words,
            cap=cap,
            budget=None if max_chars is None else Budget.chars(max_chars),
        )
        handed = _with_dismissed(lessons, found)
        summary = current_summary(conn, target, snapshot, now=now)
        if max_chars is not None and not Budget.chars(max_chars).after(
            handed.text, PARTS_SEPARATOR
        ).fits(summary.text):
            return handed
        return _with_summary(handed, summary)

    # Other surfaces' hands do not count: a review's lessons sit in its shared header, and a
    # retried review is handed the same set again (recorded once).
    return _deliver(
        conn_or_engine,
        store_dir,
        locate,
        compose,
        session_id=session_id,
        surface=Surface.REVIEW,
        recording=Recording.FULL,
        person_id=None,
        now=now,
        snapshots=snapshots,
        dedupe_surfaces=(),
    )


def _suppressions(
    conn: Connection, target: Target, snapshot: Snapshot, now: int, suppress_days: int
) -> tuple[Suppression, ...]:
    """The repository's standing suppressions; its refused mechanisms are read once per store
    generation (a dismissal, demotion or lift changes an entry, so the generation)."""
    standing = snapshot.remembered(
        ("suppressions", target.repository_id, suppress_days),
        lambda: Standing(tuple(mechanisms(conn, target.repository_id)), suppress_days),
        generation=generation_of(conn, target.account_id),
    )
    return standing.at(now)


def _refused(
    conn: Connection, target: Target, snapshot: Snapshot, now: int, suppress_days: int
) -> set[tuple[str, int]]:
    return refused_cards(_suppressions(conn, target, snapshot, now, suppress_days))


def _with_dismissed(handed: Handed, dismissed: Sequence[Suppression]) -> Handed:
    """The lessons handed, then the dismissed block: one text, one set, one receipt."""
    if not dismissed:
        return handed
    text = PARTS_SEPARATOR.join(part for part in (handed.text, render_dismissed(dismissed)) if part)
    entries = list(handed.entries)
    for suppression in dismissed:
        if (suppression.entry_id, suppression.revision) not in entries:
            entries.append((suppression.entry_id, suppression.revision))
    return replace(
        handed,
        text=text,
        set_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        entries=tuple(entries),
        chars=len(text),
        dismissed=tuple(dismissed),
    )


def _with_summary(handed: Handed, summary: StoredSummary) -> Handed:
    """The text handed so far, then the repository's memory summary: one set, one receipt (the
    summary counts among the entries by its id and revision). A cleared or empty summary adds
    nothing."""
    if not summary.text:
        return handed
    text = PARTS_SEPARATOR.join(part for part in (handed.text, summary.text) if part)
    return replace(
        handed,
        text=text,
        set_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        entries=(*handed.entries, (summary.id, summary.revision)),
        chars=len(text),
        summary=summary.text,
    )


def _nothing(surface: Surface, session_id: str) -> Handed:
    empty = hashlib.sha256(b"").hexdigest()
    return Handed(surface, session_id, "", (), empty, (), 0, 0, False)


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
) -> Handed:
    """The brief at an agent's session start: the repository's standing lessons (surfacing ≥ 1),
    then its memory summary (once per session and revision) and the recalled memory the summary
    does not already say (≥ 2), at most ``lesson_cap`` lessons and 8,000 approximate tokens."""
    if preference.surfacing < SURFACING_LESSONS:
        return _nothing(Surface.BRIEF, session_id)

    def compose(
        conn: Connection, target: Target, snapshot: Snapshot, seen: set[tuple[str, int]]
    ) -> Handed:
        budget = Budget.tokens(PUSH_MAX_TOKENS)
        packed = pack(
            snapshot.standing(target.repository),
            cap=preference.lesson_cap,
            budgets=(budget,),
            render=render_lesson,
            header=BRIEF_HEADER.format(repo=target.repository),
            seen=seen | _refused(conn, target, snapshot, now, suppress_days),
        )
        handed = _handed(Surface.BRIEF, session_id, packed)
        if preference.surfacing < SURFACING_MEMORY:
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
        text = PARTS_SEPARATOR.join(part for part in (handed.text, block.text) if part)
        return replace(
            handed,
            text=text,
            set_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
            chars=len(text),
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
) -> Handed:
    """A context push for one agent tool call (surfacing 3): the lessons its paths and names
    retrieve that the session does not hold yet."""
    if preference.surfacing < SURFACING_CONTEXT:
        return _nothing(Surface.CONTEXT, session_id)

    def compose(
        conn: Connection, target: Target, snapshot: Snapshot, seen: set[tuple[str, int]]
    ) -> Handed:
        return _query_hand(
            snapshot,
            target,
            seen | _refused(conn, target, snapshot, now, suppress_days),
            surface=Surface.CONTEXT,
            session_id=session_id,
            header=CONTEXT_HEADER.format(repo=target.repository),
            paths=paths,
            identifiers=identifiers,
            words=words,
            cap=preference.lesson_cap,
            budget=Budget.tokens(PUSH_MAX_TOKENS),
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
        budgets=(Budget.tokens(PUSH_MAX_TOKENS),),
        render=render_lesson,
        header=RECALL_HEADER.format(repo=target.repository),
        seen=seen,
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
    return _handed(Surface.RECALL, "", packed), snapshot


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
        return _handed(Surface.RECALL, session_id, packed)

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
