"""A back-fill's end: its new addressed comments put to the discovery seat (when one is
configured), then everything published in one transaction with its receipt."""

from __future__ import annotations

import logging

from sqlalchemy import Engine

from continual.history.discovery import checked, mechanisms
from continual.history.lessons import held_comments, known_keys
from continual.history.publication import Discovery, fresh_ids
from continual.history.store import receipts
from ghapp.db import reading
from review.discovering import discover
from review.seats import TextSeat

log = logging.getLogger(__name__)


async def discovery(
    engine: Engine, seat: TextSeat | None, *, account_id: int, repository_id: int
) -> Discovery:
    """What the seat found in the mechanisms with new addressed comments, checked; nothing
    (and no call) without a seat or without anything new. A seat that fails, in any batch,
    costs that batch only and is named in the receipt."""
    if seat is None:
        return Discovery()
    name = seat.config.name
    with reading(engine) as conn:
        found = receipts(conn, account_id, repository_id)
        fresh = fresh_ids(conn, repository_id)
        held = held_comments(conn, account_id)
        keys = known_keys(conn, repository_id)
    groups = mechanisms((r for r in found if r.comment_id not in held), fresh=fresh)
    if not groups:
        return Discovery(seat=name, rejected={})
    asked = await discover(seat, groups)
    given = {receipt.comment_id: receipt for group in groups for receipt in group.receipts}
    kept, why = checked(asked.proposals, given, held=held, known_keys=keys)
    log.info(
        "history discovery answered",
        extra={"repository": repository_id, "seat": name, "kept": len(kept), "rejected": why},
    )
    return Discovery(
        seat=name,
        lessons=tuple(kept),
        proposals=len(asked.proposals),
        rejected=why,
        failure="; ".join(asked.failures)[:1000] or None,
    )
