"""Migration 0020: memory kept active on a seat's word becomes a candidate, reported by its seat."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Engine, insert, select

from continual.memory import recall_items, recalled_block
from continual.tables import Account, Repository
from tests.support.migrations import DAY, NOW, upgrade

REVISION = "0020_memory_sources"
# memory_items as revision 0019 has it: no source, no reporters.
ITEMS = sa.table(
    "memory_items",
    *(
        sa.column(name)
        for name in (
            "account_id", "repository_id", "review_id", "kind", "subject", "text", "seat",
            "lens", "commit", "files", "state", "expires_ms", "created_ms",
        )
    ),
)  # fmt: skip


def _row(subject: str, state: str, *, created: int, days: int) -> dict[str, object]:
    return {
        "account_id": 1, "repository_id": 10, "review_id": "r_1", "kind": "tool_path",
        "subject": subject, "text": f"Tool path: `{subject}` passed where `pytest` failed.",
        "seat": "alpha", "lens": "tests", "commit": "c" * 40, "files": "[]", "state": state,
        "expires_ms": created + days * DAY, "created_ms": created,
    }  # fmt: skip


def test_active_memory_from_a_seat_becomes_a_candidate_claim(engine_before: Engine) -> None:
    engine = engine_before
    with engine.begin() as conn:
        conn.execute(insert(Account).values(id=1, login="octo", created_ms=NOW))
        conn.execute(insert(Repository).values(id=10, account_id=1, full_name="octo/app"))
        conn.execute(
            ITEMS.insert(),
            [
                _row("pytest -q", "active", created=NOW, days=90),
                _row("make test", "active", created=NOW - 80 * DAY, days=90),
                _row("tox", "candidate", created=NOW, days=30),
            ],
        )
    upgrade(engine, REVISION)
    with engine.connect() as conn:
        rows = {
            row.subject: row
            for row in conn.execute(
                sa.text("SELECT subject, state, source, reporters, expires_ms FROM memory_items")
            )
        }
    assert {row.state for row in rows.values()} == {"candidate"}
    assert {row.source for row in rows.values()} == {"reported"}
    assert {row.reporters for row in rows.values()} == {"[]"}
    assert rows["pytest -q"].expires_ms == NOW + 30 * DAY, "a candidate's life, from its record"
    assert rows["make test"].expires_ms == NOW - 50 * DAY, "past a candidate's life: expired"
    assert rows["tox"].expires_ms == NOW + 30 * DAY

    upgrade(engine, "head")
    with engine.connect() as conn:
        recalled = recall_items(conn, account_id=1, repository_id=10, now_ms=NOW)
    assert sorted(item.subject for item in recalled) == ["pytest -q", "tox"]
    assert not any(item.established for item in recalled)
    lines = recalled_block(recalled).text.splitlines()[1:]
    assert all(line.startswith("- Unverified claim: ") for line in lines)
    assert all("(reported by seat alpha; session r_1, commit ccccccc)" in line for line in lines)
    with engine.connect() as conn:
        assert conn.execute(select(sa.func.count()).select_from(ITEMS)).scalar_one() == 3
