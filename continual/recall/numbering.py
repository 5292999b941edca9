"""Links numbered once, when an entry is written, and read back whole by a recall build.

Each name an entry links to (a file, folder, identifier or keyword group, in normal form) gets
a number of the account's (``LinkName``), and the entry keeps its links' numbers
(``Entry.link_numbers``) beside the JSON they come from. A build then reads the account's names
once and each entry's numbers as bytes, instead of parsing every entry's links and looking up
every name: most of what a cold build cost. Writers number under the account's row lock, so
numbers are handed out one writer at a time.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson
from sqlalchemy import Connection, bindparam, func, insert, select, update

from continual.batches import in_lists
from continual.prepared import Prepared
from continual.recall.cards import FILE, FOLDER, GROUP, NAME, Links, Normal
from continual.secrets import redact
from continual.tables import Account, Entry, LinkName

NUMBER = np.dtype("<i4")  # how an entry's numbers are stored
ENTRIES_AT_ONCE = 2_000  # entries numbered per round when filling an account's


def normal_links(associations: str | Mapping[str, Any] | None) -> list[tuple[int, Any]]:
    """The names an entry's associations link to, as ``(kind, name)`` in normal form: files,
    folders (the explicit ones, then each file's), identifiers, keyword groups."""
    parsed = (
        Links.of(associations) if isinstance(associations, Mapping) else Links.parse(associations)
    )
    links = Normal.of_links(parsed)
    return [
        *((FILE, name) for name in links.files),
        *((FOLDER, name) for name in links.folders),
        *((NAME, name) for name in links.identifiers),
        *((GROUP, name) for name in links.groups),
    ]


def number_links(
    conn: Connection, account_id: int, associations: str | Mapping[str, Any] | None
) -> bytes:
    """The numbers of the names ``associations`` links to, numbering new names."""
    return number_many(conn, account_id, [associations])[0]


def number_many(
    conn: Connection, account_id: int, many: Sequence[str | Mapping[str, Any] | None]
) -> list[bytes]:
    """``number_links`` for each of ``many``, with one look-up of the names they share. The
    caller holds the account's row lock: a writer that changed an entry took it
    (``note_entry_change``), and ``number_account`` takes it."""
    texts: dict[str, tuple[int, str]] = {}  # digest: kind and name as stored, first seen first
    keyed: list[list[str]] = []
    for associations in many:
        digests = []
        for kind, name in normal_links(associations):
            text = orjson.dumps(list(name)).decode() if kind == GROUP else name
            digest = hashlib.blake2b(f"{kind}\n{text}".encode(), digest_size=16).hexdigest()
            texts.setdefault(digest, (kind, text))
            digests.append(digest)
        keyed.append(digests)
    known: dict[str, int] = {}
    wanted = list(texts)
    for chunk in in_lists(wanted):
        found = conn.execute(
            select(LinkName.digest, LinkName.number).where(
                LinkName.account_id == account_id, LinkName.digest.in_(chunk)
            )
        )
        known.update((digest, number) for digest, number in found)
    missing = [digest for digest in wanted if digest not in known]
    if missing:
        top = conn.execute(
            select(func.max(LinkName.number)).where(LinkName.account_id == account_id)
        ).scalar()
        first = 0 if top is None else top + 1
        fresh = {digest: first + n for n, digest in enumerate(missing)}
        conn.execute(
            insert(LinkName),
            [
                {
                    "account_id": account_id,
                    "number": number,
                    "kind": texts[digest][0],
                    "name": redact(texts[digest][1]),
                    "digest": digest,
                }
                for digest, number in fresh.items()
            ],
        )
        known.update(fresh)
    return [np.array([known[d] for d in digests], dtype=NUMBER).tobytes() for digests in keyed]


def _lock(conn: Connection, account_id: int) -> None:
    """Take the account's row lock (held until commit), so numbers are handed out one writer
    at a time. SQLite has one writer."""
    conn.execute(select(Account.id).where(Account.id == account_id).with_for_update())


def number_account(conn: Connection, account_id: int) -> int:
    """Number the links of the account's live entries that have no numbers yet (written
    before links were numbered, or by hand); answers how many were numbered."""
    _lock(conn, account_id)
    rows = conn.execute(
        select(Entry.id, Entry.associations).where(
            Entry.account_id == account_id,
            Entry.deleted_ms.is_(None),
            Entry.link_numbers.is_(None),
        )
    ).all()
    statement = (
        update(Entry)
        .where(Entry.id == bindparam("entry"))
        .values(link_numbers=bindparam("numbers"))
    )
    for start in range(0, len(rows), ENTRIES_AT_ONCE):
        chunk = rows[start : start + ENTRIES_AT_ONCE]
        numbers = number_many(conn, account_id, [row.associations for row in chunk])
        conn.execute(
            statement,
            [{"entry": row.id, "numbers": held} for row, held in zip(chunk, numbers, strict=True)],
        )
    return len(rows)


def number_every_account(conn: Connection) -> int:
    """``number_account`` for every account."""
    accounts = conn.execute(select(Account.id)).scalars().all()
    return sum(number_account(conn, account_id) for account_id in accounts)


@dataclass(frozen=True)
class StoredNames:
    """An account's numbered names: ``names[n]`` is of kind ``kinds[n]`` and number
    ``numbers[n]``; a keyword group is a tuple of its terms."""

    numbers: npt.NDArray[np.int64]
    kinds: npt.NDArray[np.uint8]
    names: list[Any]

    def __len__(self) -> int:
        return len(self.names)


# Built once: a cold build reads a thousand names or more for an account of 200 lessons, and
# SQLAlchemy's rows cost more than the read (on SQLite's driver).
_NAMES = Prepared(
    select(LinkName.number, LinkName.kind, LinkName.name).where(
        LinkName.account_id == bindparam("account_id")
    )
)


def read_link_names(conn: Connection, account_id: int) -> StoredNames:
    """Every name the account's entries were numbered with."""
    rows = _NAMES.rows(conn, {"account_id": account_id})
    held, kinds_held, names_held = zip(*rows, strict=True) if rows else ((), (), ())
    numbers = np.array(held, dtype=np.int64)
    kinds = np.array(kinds_held, dtype=np.uint8)
    names: list[Any] = list(names_held)
    groups = np.flatnonzero(kinds == GROUP).tolist()
    for at, terms in zip(groups, _groups([names[at] for at in groups]), strict=True):
        names[at] = terms
    return StoredNames(numbers, kinds, names)


def _groups(texts: list[str]) -> list[tuple[str, ...]]:
    """Stored keyword groups (JSON lists of terms) as tuples of interned terms: a term is held
    once however many groups name it."""
    intern = sys.intern
    return [tuple(map(intern, terms)) for terms in orjson.loads("[" + ",".join(texts) + "]")]
