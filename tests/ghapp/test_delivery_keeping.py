"""What is kept of a delivery: a purge keeps the dedupe keys so a replay is refused, bodies are
pruned after the retention period while their keys stay, and settings never show a secret."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
from sqlalchemy import Engine, func, insert, select

from continual.tables import Account
from ghapp.deliveries import DAY_MS, PRUNED
from ghapp.jobs import now_ms
from ghapp.purge import purge_account
from ghapp.settings import Settings
from ghapp.tables import Delivery, Installation, Job
from tests.conftest import WEBHOOK_SECRET
from tests.support.app_harness import INSTALLATION_ID, running_app
from tests.support.simulator import ORG
from tests.support.web import deliver


def _count(engine: Engine, table: type) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


def test_a_purged_accounts_captured_delivery_cannot_bring_it_back(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with running_app(engine, database_url, tmp_path) as app:
        (captured,) = [d for d in app.sim.deliveries if d.event == "installation"]
        assert purge_account(engine, ORG, store_dir=tmp_path / "store") is not None
        with engine.connect() as conn:
            kept = conn.execute(
                select(Delivery.body, Delivery.installation_id).where(Delivery.id == captured.id)
            ).one()
        assert kept == (PRUNED, None), "the key stays; the body and the link to the account go"
        with httpx.Client(trust_env=False) as client:
            again = deliver(
                client, app.url, WEBHOOK_SECRET, "installation", captured.body, captured.id
            )
            fresh_id = deliver(
                client, app.url, WEBHOOK_SECRET, "installation", captured.body, str(uuid.uuid4())
            )
        assert again.json() == {"duplicate": True} and fresh_id.json() == {"duplicate": True}
        app.settle()
    with engine.connect() as conn:
        assert conn.execute(select(Account.login)).scalars().all() == []
        assert conn.execute(select(Installation.id)).scalars().all() == []
    assert INSTALLATION_ID and _count(engine, Job) == 0


def test_bodies_past_the_retention_are_pruned_at_the_next_write_and_their_keys_stay(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    old = now_ms() - 15 * DAY_MS
    with engine.begin() as conn:
        conn.execute(
            insert(Delivery),
            [
                {
                    "id": "old-delivery",
                    "body_sha256": "a" * 64,
                    "event": "push",
                    "action": None,
                    "installation_id": None,
                    "received_ms": old,
                    "body": '{"zen": "old"}',
                },
                {
                    "id": "old-but-needed",
                    "body_sha256": "b" * 64,
                    "event": "pull_request",
                    "action": "opened",
                    "installation_id": None,
                    "received_ms": old,
                    "body": '{"zen": "needed"}',
                },
            ],
        )
        conn.execute(
            insert(Job).values(
                kind="pull_request.review",
                delivery_id="old-but-needed",
                state="held",
                run_after_ms=old,
                created_ms=old,
            )
        )
    with running_app(engine, database_url, tmp_path, delivery_retention_days=14) as app:
        app.settle()  # the installation delivery was a write: pruning ran after it
        with httpx.Client(trust_env=False) as client:
            replay = deliver(
                client, app.url, WEBHOOK_SECRET, "push", b'{"zen": "old"}', "old-delivery"
            )
        assert replay.json() == {"duplicate": True}
    with engine.connect() as conn:
        bodies = dict(conn.execute(select(Delivery.id, Delivery.body)).all())
    assert bodies["old-delivery"] == PRUNED
    assert bodies["old-but-needed"] == '{"zen": "needed"}', "a held job still needs its body"
    assert all(body != PRUNED for key, body in bodies.items() if not key.startswith("old"))


def test_settings_reprs_show_no_secret() -> None:
    settings = Settings(
        database_url="postgresql+psycopg://hindsight:Pa55word@db.internal:5432/hindsight",
        webhook_secret="whsec-value",  # type: ignore[arg-type]
        github_private_key="-----BEGIN PRIVATE KEY-----abc",  # type: ignore[arg-type]
        github_api_url="https://robot:ghtoken@ghe.internal/api/v3",
    )
    for shown in (repr(settings), str(settings), f"{settings!r}"):
        for secret in ("Pa55word", "whsec-value", "BEGIN PRIVATE", "ghtoken"):
            assert secret not in shown
        assert "postgresql+psycopg://hindsight:***@db.internal:5432/hindsight" in shown
