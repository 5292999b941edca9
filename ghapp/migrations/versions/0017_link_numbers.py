"""link_names and entries.link_numbers: an entry's links numbered once, when it is written

A recall build parsed every entry's associations and looked up every name they hold, most of
a cold build at 100,000 entries. Each name an account's entries link to now has a number of
the account's, and each entry keeps its links' numbers beside the JSON they come from. The
entries already stored are numbered here.

Revision ID: 0019_link_numbers
Revises: 0018_entry_receipt_counts
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable
from typing import Any

import orjson
import sqlalchemy as sa
from alembic import op

revision = "0019_link_numbers"
down_revision = "0018_entry_receipt_counts"
branch_labels = None
depends_on = None

# How the store's writers numbered links when this migration was written, frozen here so that a
# later change to them never changes what this migration does.
FILE, FOLDER, NAME, GROUP = range(4)  # what a number names
ENTRIES_AT_ONCE = 2_000

ACCOUNTS = sa.table("accounts", sa.column("id"))
ENTRIES = sa.table(
    "entries",
    sa.column("id"),
    sa.column("account_id"),
    sa.column("associations"),
    sa.column("deleted_ms"),
    sa.column("link_numbers", sa.LargeBinary()),
)
LINK_NAMES = sa.table(
    "link_names",
    sa.column("account_id"),
    sa.column("number"),
    sa.column("kind"),
    sa.column("name"),
    sa.column("digest"),
)


def _path(path: str) -> str:
    """Root-relative form: forward slashes, no leading ``./`` or ``/``, no doubled slashes."""
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return "/".join(part for part in path.split("/") if part and part != ".")


def _unique(items: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(item for item in items if item))


def _links(associations: str | None) -> list[tuple[int, Any]]:
    """The names an entry's associations link to, as ``(kind, name)`` in normal form: files,
    folders (the explicit ones, then each file's), identifiers, keyword groups of two terms or more."""
    data = orjson.loads(associations or "{}")
    files = [_path(f) for f in data.get("files", ())]
    folders = [_path(f) for f in data.get("folders", ())]
    folders += [f.rpartition("/")[0] for f in files]
    groups = (tuple(sorted({t.lower() for t in group})) for group in data.get("keyword_groups", ()))
    return [
        *((FILE, name) for name in _unique(files)),
        *((FOLDER, name) for name in _unique(folders)),
        *((NAME, name) for name in _unique(i.strip() for i in data.get("identifiers", ()))),
        *((GROUP, name) for name in _unique(g for g in groups if len(g) >= 2)),
    ]


def _number_account(conn: sa.Connection, account_id: int) -> None:
    """Number the links of the account's live entries, each name once, in the order first seen."""
    rows = conn.execute(
        sa.select(ENTRIES.c.id, ENTRIES.c.associations).where(
            ENTRIES.c.account_id == account_id,
            ENTRIES.c.deleted_ms.is_(None),
            ENTRIES.c.link_numbers.is_(None),
        )
    ).all()
    known: dict[str, int] = {}
    statement = (
        sa.update(ENTRIES)
        .where(ENTRIES.c.id == sa.bindparam("entry"))
        .values(link_numbers=sa.bindparam("numbers"))
    )
    for start in range(0, len(rows), ENTRIES_AT_ONCE):
        fresh: list[dict[str, object]] = []
        held: list[dict[str, object]] = []
        for row in rows[start : start + ENTRIES_AT_ONCE]:
            numbers = []
            for kind, name in _links(row.associations):
                text = orjson.dumps(list(name)).decode() if kind == GROUP else name
                digest = hashlib.blake2b(f"{kind}\n{text}".encode(), digest_size=16).hexdigest()
                if digest not in known:
                    known[digest] = len(known)
                    fresh.append(
                        {
                            "account_id": account_id,
                            "number": known[digest],
                            "kind": kind,
                            "name": text,
                            "digest": digest,
                        }
                    )
                numbers.append(known[digest])
            held.append({"entry": row.id, "numbers": struct.pack(f"<{len(numbers)}i", *numbers)})
        if fresh:
            conn.execute(sa.insert(LINK_NAMES), fresh)
        if held:
            conn.execute(statement, held)


def upgrade() -> None:
    op.create_table(
        "link_names",
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("kind", sa.SmallInteger(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("digest", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id", "number"),
        sa.UniqueConstraint("account_id", "digest"),
    )
    # A plain ADD COLUMN: a batch copy of entries on SQLite cascades into receipts.
    op.add_column("entries", sa.Column("link_numbers", sa.LargeBinary(), nullable=True))
    # Numbered as the store's writers numbered (the recall build reads nothing else), naming
    # only the columns that exist at this revision. Names are stored as found: migration 0020
    # redacts them with everything else.
    conn = op.get_bind()
    for account_id in conn.execute(sa.select(ACCOUNTS.c.id)).scalars().all():
        _number_account(conn, account_id)


def downgrade() -> None:
    op.drop_column("entries", "link_numbers")
    op.drop_table("link_names")
