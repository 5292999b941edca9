"""A database brought to one migration, and rows in that migration's shape, for data migrations."""

from __future__ import annotations

from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from ghapp.db import alembic_config, make_engine

NOW = 1_700_000_000_000
DAY = 86_400_000


def upgrade(engine: Engine, revision: str) -> None:
    config = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)


def at_migration_before(database_url: str, revision: str) -> Engine:
    """An engine on a database at the migration before ``revision``."""
    engine = make_engine(database_url)
    url = engine.url.render_as_string(hide_password=False)
    before = ScriptDirectory.from_config(alembic_config(url)).get_revision(revision).down_revision
    assert isinstance(before, str)
    upgrade(engine, before)
    return engine


def suggestion(
    sid: str, key: str, *, body: str = "plain", proven: bool = False
) -> dict[str, object]:
    return {
        "id": sid, "account_id": 1, "repository_id": 10, "pr": 1, "head_sha": "a" * 40,
        "review_id": "r_1", "path": "calc.py", "line": 2, "seat": "alpha", "lab": "acme",
        "lens": "correctness", "title": sid, "body": body,
        "lesson": "Return the sum from `add` in calc.py.", "entry_key": key,
        "proven": proven, "created_ms": NOW,
    }  # fmt: skip


def entry(eid: str, key: str, *, confirmed: int | None) -> dict[str, object]:
    return {
        "id": eid, "account_id": 1, "repository_id": 10, "key": key, "scope": "repository",
        "lens": "correctness", "title": eid, "text": "Return the sum from `add` in calc.py.",
        "admission": None, "associations": "{}", "revision": 3, "created_ms": NOW,
        "last_confirmed_ms": confirmed,
        "expires_ms": None if confirmed is None else confirmed + 30 * DAY,
    }  # fmt: skip


def receipt(
    eid: str,
    sid: str,
    source: str,
    at: int,
    actor: str,
    *,
    decision: str = "accepted",
    lab: str | None = "acme",
    superseded: bool = False,
) -> dict[str, object]:
    return {
        "entry_id": eid, "account_id": 1, "suggestion_id": sid, "decision": decision,
        "source": source, "seat": "alpha", "lab": lab, "pr": 1, "head_sha": "a" * 40,
        "actor": actor, "at_ms": at, "superseded": superseded,
    }  # fmt: skip
