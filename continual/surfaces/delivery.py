"""How a surface hands lessons: snapshot, compose within the session's dedupe, record the receipt;
the dismissed mechanisms and the memory summary it adds."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine

from continual.injections import (
    Handed,
    HandedLesson,
    LessonHanded,
    SessionRow,
    Target,
    append_injection,
    lessons_handed,
    record_row,
    recorded_in,
    seen_in,
    session_rows,
)
from continual.packing import Budget, Packed, pack
from continual.persons import Recording
from continual.recall import Card, Snapshot, SnapshotCache, build_snapshot, generation_of
from continual.summary.store import StoredSummary
from continual.suppression import Standing, Suppression, mechanisms, refused_cards, render_dismissed
from continual.values import Surface

LESSON_LINE = "- {text} (lesson {id} r{revision})"
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
        cards=packed.cards,
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
        if handed.lessons:
            handed = replace(handed, provenance=_provenance(conn, handed))
        if not handed.text or recording is Recording.OFF:
            return handed
        if recorded_in(rows, handed):
            return _with_recorded(handed)
        record_row(conn, target, handed, person_id=person_id, recording=recording, now=now)
    handed = _with_recorded(handed)
    if recording is Recording.FULL:
        append_injection(store_dir, target, handed, now=now)
    return handed


def _provenance(conn: Connection, handed: Handed) -> tuple[LessonHanded, ...]:
    """Where each lesson handed came from, in the order handed: what composing already said (a
    history lesson is no entry), then the store's cards and their receipts (one query)."""
    given = {lesson.id: lesson for lesson in handed.provenance}
    cards = [card for card in handed.cards if card.id not in given]
    given.update((lesson.id, lesson) for lesson in lessons_handed(conn, cards))
    return tuple(given[lesson.id] for lesson in handed.lessons)


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
        distinct_text=True,
        said=snapshot.texts_of(seen),
    )
    return _handed(surface, session_id, packed)


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
    conn: Connection,
    target: Target,
    snapshot: Snapshot,
    now: int,
    suppress_days: int,
    paths: Iterable[str] = (),
) -> set[tuple[str, int]]:
    """Lessons refused repository-wide, and those refused at every one of ``paths``."""
    return refused_cards(_suppressions(conn, target, snapshot, now, suppress_days), paths)


def with_part(handed: Handed, part: str, **changes: Any) -> Handed:
    """``handed`` with ``part`` after its text (an empty part adds nothing) and ``changes``: one
    text, one set, one receipt."""
    text = PARTS_SEPARATOR.join(found for found in (handed.text, part) if found)
    return replace(
        handed,
        text=text,
        set_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        chars=len(text),
        **changes,
    )


def _with_dismissed(handed: Handed, dismissed: Sequence[Suppression]) -> Handed:
    """The lessons handed, then the dismissed block."""
    if not dismissed:
        return handed
    entries = list(handed.entries)
    for suppression in dismissed:
        if (suppression.entry_id, suppression.revision) not in entries:
            entries.append((suppression.entry_id, suppression.revision))
    return with_part(
        handed, render_dismissed(dismissed), entries=tuple(entries), dismissed=tuple(dismissed)
    )


def _with_summary(handed: Handed, summary: StoredSummary) -> Handed:
    """The text handed so far, then the repository's memory summary (it counts among the entries
    by its id and revision). A cleared or empty summary adds nothing."""
    if not summary.text:
        return handed
    return with_part(
        handed,
        summary.text,
        entries=(*handed.entries, (summary.id, summary.revision)),
        summary=summary.text,
    )


def _nothing(surface: Surface, session_id: str) -> Handed:
    empty = hashlib.sha256(b"").hexdigest()
    return Handed(surface, session_id, "", (), empty, (), 0, 0, False)
