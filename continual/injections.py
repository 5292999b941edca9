"""The record of what was handed: injection rows, the injections.jsonl line and the log line."""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy import Connection, bindparam, delete, insert, select

from continual.persons import Recording
from continual.prepared import Prepared
from continual.suppression import Suppression
from continual.tables import Account, Injection, Receipt, Repository, Suggestion
from continual.values import Surface

if TYPE_CHECKING:
    from continual.recall import Card

log = logging.getLogger(__name__)

INJECTION_LOG = "[hindsight continual] %s -> %s %d entries set %s %d chars"
INJECTIONS_FILE = "injections.jsonl"
INCOGNITO_TTL_MS = 12 * 3_600_000  # how long an incognito session's dedupe rows live
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


class HandedLesson(NamedTuple):
    """One lesson as handed: unpacks as ``(id, key, text)``."""

    id: str
    key: str
    text: str


@dataclass(frozen=True, slots=True)
class Target:
    """Where a session works: the account (tenant) and one of its repositories."""

    account_id: int
    account_login: str
    repository_id: int
    repository: str


class LessonHanded(NamedTuple):
    """Where one handed lesson came from: its lens and kind (scope), the seat that first
    suggested it, and the sessions (reviews) whose suggestions it was made from."""

    id: str
    lens: str
    kind: str
    seat: str
    sessions: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "lens": self.lens,
            "kind": self.kind,
            "seat": self.seat,
            "sessions": list(self.sessions),
        }


@functools.lru_cache(maxsize=32)
def _provenance(count: int) -> Prepared:
    """The receipts of ``count`` entries with their suggestions' seat and review, oldest first:
    one statement per count of lessons handed, built once (a context push asks it before every
    tool call). The entry's lens and kind come with its card, so the entries are not read."""
    return Prepared(
        select(Receipt.entry_id, Suggestion.seat, Suggestion.review_id)
        .join(Suggestion, Suggestion.id == Receipt.suggestion_id)
        .where(Receipt.entry_id.in_([bindparam(f"id{n}") for n in range(count)]))
        .order_by(Receipt.at_ms, Receipt.id)
    )


def lessons_handed(conn: Connection, cards: Sequence[Card]) -> tuple[LessonHanded, ...]:
    """The provenance of each handed lesson's card, in the order handed (one query): its lens
    and kind as the card says them (the kind is the scope recall gave it), the seat of its
    earliest receipt and the reviews of all of them."""
    if not cards:
        return ()
    ids = {f"id{n}": card.id for n, card in enumerate(cards)}
    rows = _provenance(len(cards)).rows(conn, ids)
    found: dict[str, tuple[str, list[str]]] = {}
    for entry_id, seat, review_id in rows:
        _, sessions = found.setdefault(entry_id, (seat, []))
        if review_id and review_id not in sessions:
            sessions.append(review_id)
    handed = []
    for card in cards:
        seat, sessions = found.get(card.id, ("", []))
        handed.append(LessonHanded(card.id, card.lens, card.scope, seat, tuple(sorted(sessions))))
    return tuple(handed)


@dataclass(frozen=True, slots=True)
class Handed:
    """Exactly what one surface handed one session, and whether it was recorded."""

    surface: Surface
    session_id: str
    text: str
    lessons: tuple[HandedLesson, ...]
    set_sha256: str
    entries: tuple[tuple[str, int], ...]
    omitted: int
    chars: int
    recorded: bool
    # The review surface also hands the repository's dismissed mechanisms (in `text` and `entries`).
    dismissed: tuple[Suppression, ...] = ()
    # The repository's memory summary as handed (in `text`, and in `entries` by its id).
    summary: str = ""
    # A brief's recalled memory lines (their ``handed_key``): recorded with the entries at
    # revision 0 so the session is not handed them again.
    recalled: tuple[str, ...] = ()
    # Where each lesson handed came from (``lessons_handed``), in the order handed.
    provenance: tuple[LessonHanded, ...] = ()
    # The store's lessons handed, as their cards (what their provenance is read for).
    cards: tuple[Card, ...] = field(default=(), repr=False, compare=False)

    def as_json(self) -> dict[str, Any]:
        return {
            "surface": self.surface.value,
            "session": self.session_id,
            "text": self.text,
            "lessons": [lesson._asdict() for lesson in self.lessons],
            "entries": [{"id": i, "revision": r} for i, r in self.entries],
            "set_sha256": self.set_sha256,
            "omitted": self.omitted,
            "chars": self.chars,
            "recorded": self.recorded,
            "lessons_handed": [lesson.as_json() for lesson in self.provenance],
        }


def target_of(conn: Connection, account_id: int, repository_id: int) -> Target | None:
    """The target of a repository id inside the account; None when it is not the account's."""
    row = conn.execute(
        select(Repository.full_name, Account.login)
        .join(Account, Account.id == Repository.account_id)
        .where(Repository.id == repository_id, Repository.account_id == account_id)
    ).one_or_none()
    return None if row is None else Target(account_id, row.login, repository_id, row.full_name)


def target_named(conn: Connection, account_id: int, full_name: str) -> Target | None:
    """The target of ``owner/name`` inside the account; None when it is not the account's."""
    row = conn.execute(
        select(Repository.id, Repository.full_name, Account.login)
        .join(Account, Account.id == Repository.account_id)
        .where(Repository.account_id == account_id, Repository.full_name == full_name)
    ).one_or_none()
    return None if row is None else Target(account_id, row.login, row.id, row.full_name)


def _safe(part: str) -> str:
    cleaned = _UNSAFE.sub("_", part)
    return cleaned if cleaned.strip(".") else cleaned.replace(".", "_") or "_"


def injections_path(store_dir: Path, account_login: str, repository: str) -> Path:
    """``<store_dir>/<account>/<repo>/injections.jsonl``; the repository is named without owner."""
    name = repository.rpartition("/")[2]
    return store_dir / _safe(account_login) / _safe(name) / INJECTIONS_FILE


# Built once: a context push runs these on every agent tool call (on SQLite's driver).
_SESSION_ROWS = Prepared(
    select(Injection.surface, Injection.set_sha256, Injection.entries, Injection.expires_ms).where(
        Injection.account_id == bindparam("account_id"),
        Injection.session_id == bindparam("session_id"),
    )
)
_DROP_EXPIRED = Prepared(
    delete(Injection).where(
        Injection.account_id == bindparam("account_id"), Injection.expires_ms <= bindparam("now")
    )
)
_RECORD = Prepared(
    insert(Injection).values(
        {
            column: bindparam(column)
            for column in (
                "account_id",
                "repository_id",
                "person_id",
                "session_id",
                "surface",
                "set_sha256",
                "entries",
                "chars",
                "at_ms",
                "expires_ms",
            )
        }
    )
)


class SessionRow(NamedTuple):
    """One injection row of a session, as dedupe reads it."""

    surface: str
    set_sha256: str
    entries: str  # JSON [[id, revision], …]
    expires_ms: int | None


def session_rows(conn: Connection, account_id: int, session_id: str) -> list[SessionRow]:
    """The session's injection rows: one read serves both ``seen_in`` and ``recorded_in``."""
    found = _SESSION_ROWS.rows(conn, {"account_id": account_id, "session_id": session_id})
    return [SessionRow(*row) for row in found]


def seen_in(
    rows: Iterable[SessionRow], *, now: int, surfaces: Iterable[Surface] | None = None
) -> set[tuple[str, int]]:
    """Every ``(id, revision)`` the rows handed (on the given surfaces) that has not expired."""
    wanted = None if surfaces is None else {s.value for s in surfaces}
    seen: set[tuple[str, int]] = set()
    for row in rows:
        if row.expires_ms is not None and row.expires_ms <= now:
            continue
        if wanted is None or row.surface in wanted:
            seen.update((str(i), int(r)) for i, r in json.loads(row.entries))
    return seen


def recorded_in(rows: Iterable[SessionRow], handed: Handed) -> bool:
    """Whether the rows already hold this very set on this surface (expired or not)."""
    surface = handed.surface.value
    return any(r.surface == surface and r.set_sha256 == handed.set_sha256 for r in rows)


def record_row(
    conn: Connection,
    target: Target,
    handed: Handed,
    *,
    person_id: int | None,
    recording: Recording,
    now: int,
) -> None:
    _DROP_EXPIRED.run(conn, {"account_id": target.account_id, "now": now})
    _RECORD.run(
        conn,
        {
            "account_id": target.account_id,
            "repository_id": target.repository_id,
            "person_id": person_id,
            "session_id": handed.session_id,
            "surface": handed.surface.value,
            "set_sha256": handed.set_sha256,
            "entries": json.dumps(
                [list(e) for e in handed.entries] + [[key, 0] for key in handed.recalled]
            ),
            "chars": handed.chars,
            "at_ms": now,
            "expires_ms": now + INCOGNITO_TTL_MS if recording is Recording.INCOGNITO else None,
        },
    )


def append_injection(store_dir: Path, target: Target, handed: Handed, *, now: int) -> None:
    """Append the injections.jsonl line and log the injection line (docs/api.md)."""
    path = injections_path(store_dir, target.account_login, target.repository)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = {
        "at_ms": now,
        "session_id": handed.session_id,
        "surface": handed.surface.value,
        "set_sha256": handed.set_sha256,
        "entries": [list(e) for e in handed.entries],
        "chars": handed.chars,
    }
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, sort_keys=True) + "\n")
    log.info(
        INJECTION_LOG,
        handed.session_id,
        handed.surface.value,
        len(handed.entries),
        handed.set_sha256[:12],
        handed.chars,
        extra={
            "session": handed.session_id,
            "surface": handed.surface.value,
            "repo": target.repository,
            "set_sha256": handed.set_sha256,
        },
    )
