"""Entries: one per mechanism, changed only under compare-and-swap revisions, deleted as tombstones."""

from __future__ import annotations

import json
import secrets
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, insert, select, update

from continual.batches import in_lists
from continual.recall import note_entry_change, note_entry_changes, number_links, number_many
from continual.secrets import redact, redact_json, redact_values
from continual.stored import StoredEntry
from continual.tables import Entry, LessonEvent, LessonProvenance, Receipt
from continual.tombstones import hold_sources


class RevisionConflict(Exception):
    """The entry changed since it was read: re-read it and try again."""

    def __init__(self, entry_id: str, expected: int) -> None:
        super().__init__(
            f"entry {entry_id} is no longer at revision {expected}: re-read it and retry"
        )
        self.entry_id = entry_id
        self.expected = expected


class EntryGone(Exception):
    """The entry was deleted (it is a tombstone) or never existed in this account."""

    def __init__(self, entry_id: str) -> None:
        super().__init__(f"entry {entry_id} does not exist or was deleted")
        self.entry_id = entry_id


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"


@dataclass(frozen=True, slots=True)
class NewEntry:
    """What creating an entry for a mechanism needs; admission and associations come computed."""

    account_id: int
    repository_id: int
    key: str
    lens: str
    title: str
    text: str
    admission: str | None
    associations: Mapping[str, Any]


def live_entry(conn: Connection, repository_id: int, key: str) -> StoredEntry | None:
    row = conn.execute(
        select(Entry).where(
            Entry.repository_id == repository_id, Entry.key == key, Entry.deleted_ms.is_(None)
        )
    ).one_or_none()
    return None if row is None else StoredEntry.of(row)


def entry_for_key(conn: Connection, repository_id: int, key: str) -> StoredEntry | None:
    """The live entry that takes decisions on `key`: its own, or the entry it was consolidated
    into (its replaced entry names that one in ``replaced_by``); None when neither is live."""
    current = live_entry(conn, repository_id, key)
    if current is not None:
        return current
    target = conn.execute(
        select(Entry.replaced_by)
        .where(
            Entry.repository_id == repository_id,
            Entry.key == key,
            Entry.replaced_by.is_not(None),
        )
        .order_by(Entry.deleted_ms.desc(), Entry.id)
    ).scalar()
    if target is None:
        return None
    found = entry(conn, str(target))
    return found if found is not None and found.deleted_ms is None else None


def entry(conn: Connection, entry_id: str) -> StoredEntry | None:
    row = conn.execute(select(Entry).where(Entry.id == entry_id)).one_or_none()
    return None if row is None else StoredEntry.of(row)


def create_entry(conn: Connection, new: NewEntry, *, now: int) -> str:
    entry_id = new_id("e")
    note_entry_change(conn, entry_id, new.account_id)
    conn.execute(
        insert(Entry).values(
            id=entry_id,
            account_id=new.account_id,
            repository_id=new.repository_id,
            key=new.key,
            scope="repository",
            lens=new.lens,
            title=redact(new.title),
            text=redact(new.text),
            admission=new.admission,
            associations=json.dumps(redact_values(new.associations), sort_keys=True),
            link_numbers=number_links(conn, new.account_id, redact_values(new.associations)),
            revision=1,
            created_ms=now,
        )
    )
    return entry_id


def cas_update(conn: Connection, entry_id: str, expected: int, **values: Any) -> int:
    """Change a live entry only if it is still at `expected`; returns the new revision. Title,
    text and associations are stored redacted."""
    values = _redacted_entry_values(values)
    result = conn.execute(
        update(Entry)
        .where(Entry.id == entry_id, Entry.revision == expected, Entry.deleted_ms.is_(None))
        .values(revision=expected + 1, **values)
    )
    if result.rowcount != 1:
        current = entry(conn, entry_id)
        if current is None or current.deleted_ms is not None:
            raise EntryGone(entry_id)
        raise RevisionConflict(entry_id, expected)
    account_id = note_entry_change(conn, entry_id)
    if "associations" in values:  # numbered under the account's lock, taken just above
        numbers = number_links(conn, account_id, values["associations"])
        conn.execute(update(Entry).where(Entry.id == entry_id).values(link_numbers=numbers))
    return expected + 1


def live_entries(conn: Connection, entry_ids: Collection[str]) -> dict[str, StoredEntry]:
    """The entries ``entry_ids`` name, by id, in one read; EntryGone for the first one missing
    or deleted."""
    found: dict[str, StoredEntry] = {}
    wanted = sorted(entry_ids)
    for chunk in in_lists(wanted):
        for row in conn.execute(select(Entry).where(Entry.id.in_(chunk))):
            found[row.id] = StoredEntry.of(row)
    for entry_id in wanted:
        current = found.get(entry_id)
        if current is None or current.deleted_ms is not None:
            raise EntryGone(entry_id)
    return found


def cas_update_many(
    conn: Connection, account_id: int, changes: Sequence[tuple[str, int, Mapping[str, Any]]]
) -> None:
    """``cas_update`` for many entries of one account, ``(entry_id, expected, values)`` each,
    every one to ``expected + 1``: one change-log bump for them all and one statement per set of
    columns changed. When one of them moved on it raises as ``cas_update`` does, and the caller's
    transaction must roll back (the others were written)."""
    if not changes:
        return
    # The account's row lock first: links are numbered under it.
    note_entry_changes(conn, account_id, [entry_id for entry_id, _, _ in changes])
    rows = [
        (entry_id, expected, _redacted_entry_values(dict(values)))
        for entry_id, expected, values in changes
    ]
    linked = [values for _, _, values in rows if "associations" in values]
    numbers = number_many(conn, account_id, [values["associations"] for values in linked])
    for values, number in zip(linked, numbers, strict=True):
        values["link_numbers"] = number
    by_columns: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for entry_id, expected, values in rows:
        by_columns.setdefault(tuple(sorted(values)), []).append(
            {
                "b_id": entry_id,
                "b_expected": expected,
                "b_revision": expected + 1,
                **{f"b_{column}": value for column, value in values.items()},
            }
        )
    for columns, parameters in by_columns.items():
        statement = (
            update(Entry)
            .where(
                Entry.id == bindparam("b_id"),
                Entry.revision == bindparam("b_expected"),
                Entry.deleted_ms.is_(None),
            )
            .values(
                revision=bindparam("b_revision"),
                **{column: bindparam(f"b_{column}") for column in columns},
            )
        )
        if conn.execute(statement, parameters).rowcount != len(parameters):
            _raise_moved_on(conn, parameters)


def _raise_moved_on(conn: Connection, parameters: Sequence[Mapping[str, Any]]) -> None:
    """Raise for the first of an update's entries that it did not write."""
    for row in parameters:
        current = entry(conn, row["b_id"])
        if (
            current is not None
            and current.revision == row["b_revision"]
            and current.deleted_ms == row.get("b_deleted_ms")
        ):
            continue  # written by this update (a retired one is deleted now, by it)
        if current is None or current.deleted_ms is not None:
            raise EntryGone(row["b_id"])
        raise RevisionConflict(row["b_id"], row["b_expected"])
    # Each is at the revision this update gives it, yet one was not updated here: another writer
    # took it there first. The count cannot tell which.
    raise RevisionConflict(parameters[0]["b_id"], parameters[0]["b_expected"])


def _redacted_entry_values(values: dict[str, Any]) -> dict[str, Any]:
    cleaned = dict(values)
    for field in ("title", "text"):
        if isinstance(cleaned.get(field), str):
            cleaned[field] = redact(cleaned[field])
    links = cleaned.get("associations")
    if isinstance(links, str):
        cleaned["associations"] = redact_json(links)
    elif links is not None:
        cleaned["associations"] = redact_values(links)
    return cleaned


def person_edit(
    conn: Connection, entry_id: str, *, expected: int, demote: bool, actor: str, now: int
) -> int:
    """A person demotes or restores an entry; only this lifts a demotion. A restore also lifts
    the suppression of every dismissal recorded so far (a later dismissal suppresses again): the
    lift is stamped no earlier than the newest receipt, whatever GitHub's clock said."""
    if demote:
        return cas_update(conn, entry_id, expected, demoted_ms=now, demoted_by=actor)
    newest = conn.execute(
        select(func.max(Receipt.at_ms)).where(Receipt.entry_id == entry_id)
    ).scalar_one_or_none()
    return cas_update(
        conn,
        entry_id,
        expected,
        demoted_ms=None,
        demoted_by=None,
        suppression_lifted_ms=max(now, int(newest or 0)),
        suppression_lifted_by=actor,
    )


def is_erased(found: StoredEntry) -> bool:
    """A deleted entry: its content is gone. A retired or merged-away entry (deleted_ms set, text
    kept) is not erased: a person can still delete it."""
    return found.deleted_ms is not None and not found.text and not found.title


def tombstone(conn: Connection, entry_id: str, *, expected: int | None, now: int) -> int:
    """Delete an entry's content and receipts, keeping id, key, repository, revision and sources.

    A live entry, one maintenance retired and one consolidation merged away can all be deleted:
    the text, title and anchors go, with its receipts and the texts its retirement or merge
    recorded (its lesson events); its sources are held so they never re-create it."""
    current = entry(conn, entry_id)
    if current is None or is_erased(current):
        raise EntryGone(entry_id)
    expected = current.revision if expected is None else expected
    held = json.loads(current.tombstone_sources or "[]")
    sources = sorted(
        set(
            conn.execute(
                select(Receipt.suggestion_id).where(Receipt.entry_id == entry_id)
            ).scalars()
        )
        | {str(source) for source in held}
    )
    erased: dict[str, Any] = {
        "text": "",
        "title": "",
        "associations": "{}",
        "tombstone_sources": json.dumps(sources),
        "last_confirmed_ms": None,
        "expires_ms": None,
        "accepted_count": 0,
        "dismissed_count": 0,
        "labelled_count": 0,
    }
    if current.deleted_ms is None:
        revision = cas_update(conn, entry_id, expected, deleted_ms=now, **erased)
    else:
        revision = _erase_retired(conn, current, expected, erased)
    conn.execute(delete(Receipt).where(Receipt.entry_id == entry_id))
    conn.execute(delete(LessonEvent).where(LessonEvent.entry_id == entry_id))
    conn.execute(delete(LessonProvenance).where(LessonProvenance.entry_id == entry_id))
    hold_sources(conn, current.account_id, entry_id, sources, now=now)
    return revision


def _erase_retired(
    conn: Connection, current: StoredEntry, expected: int, erased: Mapping[str, Any]
) -> int:
    """Erase a retired or merged-away entry (not live, so not under ``cas_update``)."""
    result = conn.execute(
        update(Entry)
        .where(Entry.id == current.id, Entry.revision == expected, Entry.deleted_ms.is_not(None))
        .values(revision=expected + 1, link_numbers=None, **erased)
    )
    if result.rowcount != 1:
        raise RevisionConflict(current.id, expected)
    note_entry_change(conn, current.id, current.account_id)
    return expected + 1
