"""Opening a fix PR: a maintainer's `/fix` in a suggestion's thread becomes one pull request that
carries exactly the suggestion's change (docs/fixes.md).

The requests for a one-file change, the head unmoved: the branch's head and tree, the file, the
tree, the commit, the branch, the pull request — six (a proven fix's patch: six, moved or not). Then the suggestion's comment is edited to
link it (an acknowledgement, outside that budget).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from continual.fix_patches import apply_patch
from continual.fixes import (
    FixChange,
    NotApplicable,
    by_hand,
    commit_message,
    fix_body,
    fix_branch,
    fix_problem,
    fix_title,
    plan_fix,
)
from continual.markers import neutralise
from continual.proofs import proven_patch
from continual.store import fixes as fix_store
from continual.stored import StoredReceipt, StoredSuggestion
from continual.writeback.applied import replacement_lines
from continual.writeback.status import with_fix_pull, with_status
from ghapp.deps import Deps
from ghapp.github import gitdata
from ghapp.github.errors import Forbidden, GitHubError, Gone, Rejected
from ghapp.github.installation import InstallationClient

log = logging.getLogger(__name__)

NOT_ENABLED = "fix PRs are not turned on here (`[fixes] enabled = true` in `hindsight.toml`)"
NO_PERMISSION = (
    "the app's installation lacks the `contents: write` permission fix PRs need "
    "(`hindsight setup --fixes`, then accept the new permission on the installation)"
)


@dataclass(frozen=True, slots=True)
class PullSnapshot:
    """The pull request a suggestion was posted on, as the event (or a read) shows it now."""

    repo: str
    number: int
    state: str  # "open" or "closed"
    merged: bool
    head_ref: str
    head_repository: str | None  # None: the head's fork was deleted
    base_ref: str


@dataclass(frozen=True, slots=True)
class FixOutcome:
    """What one `/fix` did: the fix PR opened or linked, or why none, and the requests made."""

    number: int | None = None
    reason: str | None = None
    linked: bool = False
    requests: int = 0


@dataclass(frozen=True, slots=True)
class Ask:
    """Who asked for a fix PR, and whether from `/ledger` (else with `/fix` in the thread)."""

    login: str
    from_ledger: bool


@dataclass(frozen=True, slots=True)
class _Fix:
    """The suggestion a fix PR is for, with its proven fix's patch when that is what it applies
    (no replacement block, a patch shown with the finding)."""

    suggestion: StoredSuggestion
    patch: str | None


@dataclass(frozen=True, slots=True)
class Target:
    """Where the fix PR goes: the branch it builds on and merges into."""

    base_ref: str


def target_of(pull: PullSnapshot) -> Target | NotApplicable:
    """An open PR whose head lives in the repository: into its head branch. A merged PR: into its
    base branch, on top of the merge. A fork's open head, or a closed PR, gets none."""
    if pull.merged:
        return Target(pull.base_ref)
    if pull.state != "open":
        return NotApplicable("the pull request was closed without merging")
    if pull.head_repository is None or pull.head_repository.lower() != pull.repo.lower():
        return NotApplicable(
            "the pull request's head branch lives in a fork the app cannot write to; ask "
            f"again with `/fix` once it is merged, and the fix PR will go to `{pull.base_ref}`"
        )
    return Target(pull.head_ref)


class _Requests:
    def __init__(self) -> None:
        self.count = 0


async def request_fix(
    deps: Deps,
    client: InstallationClient,
    suggestion: StoredSuggestion,
    pull: PullSnapshot,
    *,
    asked_by: str,
    comment_id: int | None,
) -> FixOutcome:
    """Open the suggestion's one fix PR for the `/fix` comment `comment_id` (None: asked from
    `/ledger`, whose page shows the outcome), or answer in its thread why not (once per ask).
    A 5xx or a rate limit propagates, so the job retries (the ledger says to try again)."""
    target = target_of(pull)
    base_ref = target.base_ref if isinstance(target, Target) else pull.base_ref
    branch = fix_branch(suggestion.id)

    def claim() -> fix_store.Claim:
        with deps.engine.begin() as conn:
            return fix_store.claim_fix(
                conn,
                suggestion,
                branch=branch,
                base_ref=base_ref,
                asked_by=asked_by,
                comment_id=comment_id,
                now=deps.clock(),
            )

    claimed = await asyncio.to_thread(claim)
    if claimed is fix_store.Claim.SEEN:
        return FixOutcome()
    if claimed is fix_store.Claim.LINK:
        stored = await asyncio.to_thread(_stored, deps, suggestion.id)
        number = stored.number if stored is not None else None
        if number is None:
            return FixOutcome()
        if comment_id is None:
            return FixOutcome(number=number, linked=True)
        sent = await _reply(
            client, pull.repo, suggestion, f"The fix PR for this suggestion is #{number}."
        )
        return FixOutcome(number=number, linked=True, requests=sent)
    requests = _Requests()
    patch = await asyncio.to_thread(_patch, deps, suggestion)
    try:
        outcome = await _open(
            deps,
            client,
            _Fix(suggestion, patch),
            pull,
            target,
            branch,
            Ask(asked_by, comment_id is None),
            requests,
        )
    except Forbidden:
        outcome = NotApplicable(NO_PERMISSION)
    except Gone as exc:
        outcome = NotApplicable(f"GitHub answered that {_said(exc.what)} is gone (404)")
    except Rejected as exc:
        outcome = NotApplicable(f"GitHub refused to write it ({exc.status}: {_said(exc.message)})")
    except GitHubError:
        if comment_id is None:  # no job retries an ask from `/ledger`: let the next ask try
            await asyncio.to_thread(_refused, deps, suggestion.id)
        raise
    if isinstance(outcome, NotApplicable):
        await asyncio.to_thread(_refused, deps, suggestion.id)
        text = by_hand(
            path=suggestion.path,
            line=suggestion.line,
            replacement=suggestion.replacement,
            why=outcome.reason,
            patched=patch is not None,
        )
        sent = await _reply(client, pull.repo, suggestion, text)
        return FixOutcome(reason=outcome.reason, requests=requests.count + sent)
    number, commit = outcome
    await asyncio.to_thread(_opened, deps, suggestion.id, number, commit)
    await link_fix(client, pull.repo, suggestion, number, "open")
    log.info(
        "fix PR opened",
        extra={"repo": pull.repo, "pr": pull.number, "fix": number, "requests": requests.count},
    )
    return FixOutcome(number=number, requests=requests.count)


async def _open(
    deps: Deps,
    client: InstallationClient,
    fix: _Fix,
    pull: PullSnapshot,
    target: Target | NotApplicable,
    branch: str,
    asked: Ask,
    requests: _Requests,
) -> tuple[int, str] | NotApplicable:
    """The writes of one fix PR, or why it opens none; counts its requests in `requests`."""
    if isinstance(target, NotApplicable):
        return target
    suggestion = fix.suggestion
    problem = fix_problem(
        path=suggestion.path,
        line=suggestion.line,
        replacement=suggestion.replacement,
        patch=fix.patch,
    )
    if problem is not None:
        return problem
    config = deps.review_config
    if config is None or not config.fixes.enabled:
        return NotApplicable(NOT_ENABLED)
    repo = pull.repo
    requests.count += 1
    head = await gitdata.branch_head(client, repo, target.base_ref)
    if head is None:
        return NotApplicable(f"the branch `{_said(target.base_ref)}` no longer exists")
    moved = head.sha != suggestion.head_sha
    requests.count += 1
    text = await client.get_text(repo, suggestion.path, head.sha)
    if fix.patch is not None:  # its hunks' own lines find where it goes, the head moved or not
        patched = apply_patch(fix.patch, suggestion.path, text)
        if isinstance(patched, NotApplicable):
            return patched
        return await _write(
            client, suggestion, pull, target, branch, asked, patched, head, requests
        )
    original = None
    if moved:
        requests.count += 1
        original = await client.get_text(repo, suggestion.path, suggestion.head_sha)
    change = plan_fix(
        path=suggestion.path,
        line=suggestion.line,
        replacement=suggestion.replacement,
        target=text,
        original=original,
        moved=moved,
    )
    if isinstance(change, NotApplicable):
        return change
    return await _write(client, suggestion, pull, target, branch, asked, change, head, requests)


async def _write(
    client: InstallationClient,
    suggestion: StoredSuggestion,
    pull: PullSnapshot,
    target: Target,
    branch: str,
    asked: Ask,
    change: FixChange,
    head: gitdata.BranchHead,
    requests: _Requests,
) -> tuple[int, str]:
    repo = pull.repo
    requests.count += 1
    tree = await gitdata.create_tree(
        client, repo, base_tree=head.tree_sha, files={change.path: change.after}
    )
    requests.count += 1
    message = commit_message(suggestion.title, pull.number)
    commit = await gitdata.create_commit(client, repo, message=message, tree=tree, parent=head.sha)
    requests.count += 1
    if not await gitdata.create_branch(client, repo, branch, commit):
        # Left by an earlier attempt that opened nothing: the branch is the app's own.
        requests.count += 1
        await gitdata.move_branch(client, repo, branch, commit, force=True)
    body = fix_body(
        suggestion_id=suggestion.id,
        title=suggestion.title,
        pull=pull.number,
        asked_by=asked.login,
        change=change,
        from_ledger=asked.from_ledger,
    )
    requests.count += 1
    opened = await gitdata.open_pull(
        client,
        repo,
        title=fix_title(suggestion.title),
        head=branch,
        base=target.base_ref,
        body=body,
    )
    return opened.number, commit


def _said(text: str) -> str:
    """GitHub's words quoted in the app's reply: one line, no markup that opens a comment."""
    flat = " ".join(neutralise(text).replace("`", "'").split())
    return flat if len(flat) <= 200 else flat[:199] + "…"


def _patch(deps: Deps, suggestion: StoredSuggestion) -> str | None:
    """The proven fix's patch a fix PR applies: only when the suggestion has no replacement."""
    if replacement_lines(suggestion.replacement or ""):
        return None
    with deps.engine.connect() as conn:
        return proven_patch(conn, suggestion.id)


def _stored(deps: Deps, suggestion_id: str) -> fix_store.StoredFix | None:
    with deps.engine.connect() as conn:
        return fix_store.fix_of(conn, suggestion_id)


def _refused(deps: Deps, suggestion_id: str) -> None:
    with deps.engine.begin() as conn:
        fix_store.note_refused(conn, suggestion_id, now=deps.clock())


def _opened(deps: Deps, suggestion_id: str, number: int, commit: str) -> None:
    with deps.engine.begin() as conn:
        fix_store.note_opened(
            conn, suggestion_id, number=number, commit_sha=commit, now=deps.clock()
        )


async def _reply(
    client: InstallationClient, repo: str, suggestion: StoredSuggestion, text: str
) -> int:
    """Answer in the suggestion's thread; the requests it took (a failed answer is logged)."""
    if suggestion.comment_id is None:
        return 0
    try:
        await client.reply_to_review_comment(repo, suggestion.pr, suggestion.comment_id, text)
    except (Forbidden, Gone, Rejected) as exc:
        log.warning("fix answer not posted", extra={"suggestion": suggestion.id, "error": str(exc)})
    return 1


async def link_fix(
    client: InstallationClient,
    repo: str,
    suggestion: StoredSuggestion,
    number: int,
    state: str,
    receipt: StoredReceipt | None = None,
) -> None:
    """Show the fix PR and its state on the suggestion's comment, and with `receipt` the decision
    now recorded in its status block: one read, one edit when it changed."""
    if suggestion.comment_id is None:
        return
    try:
        comment = await client.get_review_comment(repo, suggestion.comment_id)
        shown = comment.body if receipt is None else with_status(comment.body, receipt)
        body = with_fix_pull(shown, number, state)
        if body != comment.body:
            await client.edit_review_comment(repo, suggestion.comment_id, body)
    except (Forbidden, Gone, Rejected) as exc:
        log.warning("fix PR not linked", extra={"suggestion": suggestion.id, "error": str(exc)})
