"""A fix PR the app opened, closing: whether others pushed to it, its branch deleted, and the
suggestion's comment showing how it ended with the decision it recorded (docs/fixes.md)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from continual import store
from continual.store import fixes as fix_store
from continual.stored import StoredReceipt, StoredSuggestion
from continual.writeback.threads import FixPull
from ghapp.db import reading
from ghapp.deps import Deps
from ghapp.envelopes import PullRequestEvent
from ghapp.fixes.opening import link_fix
from ghapp.github import gitdata
from ghapp.github.errors import Forbidden, Rejected

log = logging.getLogger(__name__)


def _ours(deps: Deps, repo: str, number: int) -> fix_store.StoredFix | None:
    with reading(deps.engine) as conn:
        repository_id = store.repository_id(conn, repo)
        if repository_id is None:
            return None
        return fix_store.fix_by_number(conn, repository_id, number)


async def fix_closing(
    deps: Deps, event: PullRequestEvent, fix: FixPull
) -> tuple[FixPull, fix_store.StoredFix | None]:
    """The closing PR as the write-back reads it, and the app's record of it when the app opened
    it: a head that is no longer the app's commit was edited by someone else before it closed."""
    ours = await asyncio.to_thread(_ours, deps, event.repository.full_name, fix.number)
    if ours is None:
        return fix, None
    head = event.pull_request.head
    edited = head is not None and ours.commit_sha is not None and head.sha != ours.commit_sha
    return replace(fix, edited_by_others=edited), ours


def _closed(
    deps: Deps, ours: fix_store.StoredFix, merged: bool
) -> tuple[StoredSuggestion | None, str, StoredReceipt | None]:
    """Note the close; the suggestion, the fix PR's end in words with what it recorded, and the
    suggestion's decision now (the fix PR's when it decided: it outranks the thread's)."""
    with deps.engine.begin() as conn:
        fix_store.note_closed(conn, ours.suggestion_id, merged=merged, now=deps.clock())
        suggestion = store.suggestion(conn, ours.suggestion_id)
        receipt = fix_store.fix_receipt(conn, ours.suggestion_id)
    ended = "merged" if merged else "closed"
    recorded = f"recorded as {receipt.decision}" if receipt is not None else "nothing recorded"
    return suggestion, f"{ended}, {recorded}", receipt


async def fix_closed(
    deps: Deps, installation_id: int, event: PullRequestEvent, ours: fix_store.StoredFix
) -> None:
    """After the write-back recorded what the close decided: delete the fix branch, and show
    the fix PR's end and what it recorded on the suggestion's comment."""
    assert deps.github is not None, "a fix PR needs the GitHub client"
    repo, pull = event.repository.full_name, event.pull_request
    suggestion, state, receipt = await asyncio.to_thread(_closed, deps, ours, bool(pull.merged))
    client = deps.github.installation(installation_id)
    head = pull.head
    if head is not None and head.ref == ours.branch:
        try:
            await gitdata.delete_branch(client, repo, ours.branch)
        except (Forbidden, Rejected) as exc:
            log.warning("fix branch not deleted", extra={"repo": repo, "error": str(exc)})
    if suggestion is not None:
        await link_fix(client, repo, suggestion, pull.number, state, receipt)
