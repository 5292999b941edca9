"""Showing maintainers what the write-back recorded: the status block on the app's own
suggestion comment, or 👀 on the reply that decided (`[writeback] acknowledge`)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from sqlalchemy import Engine

from continual.values import Source
from continual.writeback.apply import PullResult, thread_receipts
from continual.writeback.status import ThreadStatus, status_edits
from ghapp.github.errors import Forbidden, Gone, Rejected
from ghapp.github.installation import InstallationClient
from ghapp.writeback.read import Read
from review.config import Acknowledge

log = logging.getLogger(__name__)

SEEN = "eyes"


@dataclass(frozen=True, slots=True)
class Acknowledged:
    """What the acknowledgement asked GitHub for: edits made, reactions added, and requests that
    failed (the comment gone, or the edit refused)."""

    edits: int = 0
    reactions: int = 0
    failed: int = 0

    @property
    def requests(self) -> int:
        return self.edits + self.reactions + self.failed


def _threads(engine: Engine, read: Read, result: PullResult) -> list[ThreadStatus]:
    """The app's own suggestion comments of the threads read, with their current receipt."""
    decided = set(result.decided.threads)
    heads = [t for t in read.analysis.threads if t.suggestion_id in decided]
    bodies = {c.id: c.body for c in read.state.comments}
    receipts = thread_receipts(engine, [t.suggestion_id for t in heads])
    claims = result.decided.claims
    return [
        ThreadStatus(
            t.suggestion_id,
            t.comment_id,
            bodies[t.comment_id],
            receipts.get(t.suggestion_id),
            claims.get(t.suggestion_id),
        )
        for t in heads
    ]


async def _edit(client: InstallationClient, repo: str, comment_id: int, body: str) -> bool:
    """Rewrite one status; False when the comment is gone (deleted since it was read)."""
    try:
        await client.edit_review_comment(repo, comment_id, body)
    except Gone:
        log.info("status not written: suggestion comment gone", extra={"repo": repo})
        return False
    except (Forbidden, Rejected) as exc:  # the decision stands; only its status is missing
        log.warning("status not written", extra={"repo": repo, "error": str(exc)})
        return False
    return True


async def _eyes(client: InstallationClient, repo: str, reply_id: int) -> bool:
    try:
        await client.add_reaction(repo, reply_id, SEEN)
    except (Gone, Forbidden, Rejected) as exc:  # the reply deleted, or the reaction refused
        log.info("reply not acknowledged", extra={"repo": repo, "error": str(exc)})
        return False
    return True


async def acknowledge(
    client: InstallationClient,
    engine: Engine,
    *,
    repo: str,
    read: Read,
    result: PullResult,
    mode: Acknowledge,
) -> Acknowledged:
    """One request per changed decision, none when nothing changed: the status block of each
    suggestion comment whose status no longer says what is recorded ("comment"), or 👀 on each
    maintainer reply that newly decided ("reaction"), or nothing ("off")."""
    if mode is Acknowledge.OFF:
        return Acknowledged()
    if mode is Acknowledge.REACTION:
        replies = [d.reply_id for d in result.changes if d.source is Source.REPLY and d.reply_id]
        done = [await _eyes(client, repo, reply_id) for reply_id in replies]
        return Acknowledged(reactions=sum(done), failed=len(done) - sum(done))
    threads = await asyncio.to_thread(_threads, engine, read, result)
    edits = status_edits(threads)
    written = [await _edit(client, repo, edit.comment_id, edit.body) for edit in edits]
    return Acknowledged(edits=sum(written), failed=len(written) - sum(written))
