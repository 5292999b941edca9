"""`hindsight purge --account X`: delete everything stored for one account, and say what went."""

from __future__ import annotations

import shutil
from pathlib import Path

from sqlalchemy import Engine, delete, or_, select

from continual.tables import Account
from ghapp.deliveries import forget_installations
from ghapp.tables import METADATA, Delivery, Installation, Job


def purge_account(engine: Engine, login: str, *, store_dir: Path) -> dict[str, int] | None:
    """Delete the account's rows in every table and its files; None when no such account.

    Its deliveries keep their dedupe keys (id and body hash, nothing else), so none can be replayed.
    """
    counts: dict[str, int] = {}
    with engine.begin() as conn:
        account_id = conn.execute(select(Account.id).where(Account.login == login)).scalar()
        if account_id is None:
            return None
        installation_ids = list(
            conn.execute(
                select(Installation.id).where(Installation.account_id == account_id)
            ).scalars()
        )
        if installation_ids:
            theirs = select(Delivery.id).where(Delivery.installation_id.in_(installation_ids))
            counts["jobs"] = conn.execute(
                delete(Job).where(
                    or_(Job.installation_id.in_(installation_ids), Job.delivery_id.in_(theirs))
                )
            ).rowcount
            # Their bodies go; their ids and hashes stay, so a replay of one is still refused.
            counts["delivery bodies"] = forget_installations(conn, installation_ids)
        # Children before parents: every table keyed by account, the accounts table last.
        for table in reversed(METADATA.sorted_tables):
            if table.name != "accounts" and "account_id" in table.c:
                counts[table.name] = conn.execute(
                    delete(table).where(table.c.account_id == account_id)
                ).rowcount
        counts["accounts"] = conn.execute(delete(Account).where(Account.id == account_id)).rowcount
    account_dir = store_dir / login
    if account_dir.is_dir():
        counts["files"] = sum(1 for path in account_dir.rglob("*") if path.is_file())
        shutil.rmtree(account_dir)
    return counts
