"""`/ledger`'s "open a fix PR": a maintainer of the repository asks, from the page, for the fix PR
of a suggestion still open after its pull request merged (docs/fixes.md). The same path as `/fix`
opens it; the page shows what came of it."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy import select

from continual import store
from continual.injections import target_named
from continual.persons import Caller
from continual.stored import StoredSuggestion
from continual.tables import Repository
from ghapp.api.auth import not_found, run
from ghapp.db import reading
from ghapp.deps import Deps
from ghapp.fixes.opening import PullSnapshot, request_fix
from ghapp.github.errors import Forbidden, GitHubError, Gone, Rejected
from ghapp.github.installation import InstallationClient
from ghapp.github.values import PullRequest

log = logging.getLogger(__name__)

MOST_LISTED = 20  # pending suggestions the page lists per repository
MAINTAINER_PERMISSIONS = frozenset({"admin", "maintain", "write"})
OPENED = "Fix PR #{number} opened for suggestion {sid}: it merges into `{base}`."
LINKED = "The fix PR for suggestion {sid} is #{number}."
BEING_OPENED = "The fix PR for suggestion {sid} is being opened already: reload in a moment."
NOT_OPENED = "No fix PR was opened for suggestion {sid}: {reason}."
NOT_MERGED = (
    "pull request #{pr} is not merged (it is {state}): from here a fix PR goes on top of the "
    "merge; while it is open, ask with `/fix` in the suggestion's thread"
)
NOT_MAINTAINER = (
    "only a maintainer of {repo} (write, maintain or admin on GitHub) may open a fix PR; "
    "@{login} has {permission} there"
)


@dataclass(frozen=True, slots=True)
class FixAnswer:
    """What the page says after an ask: a notice (it worked or was linked) or a problem."""

    notice: str | None = None
    problem: str | None = None
    status: int = 200


def _find(
    deps: Deps, caller: Caller, repo: str, suggestion_id: str
) -> tuple[StoredSuggestion, int | None]:
    with reading(deps.engine) as conn:
        target = target_named(conn, caller.account_id, repo)
        found = None if target is None else store.suggestion(conn, suggestion_id)
        if target is None or found is None or found.repository_id != target.repository_id:
            raise not_found(f"suggestion {suggestion_id} of {repo}")
        installation = conn.execute(
            select(Repository.installation_id).where(Repository.id == target.repository_id)
        ).scalar()
    return found, installation


def _snapshot(pull: PullRequest) -> PullSnapshot:
    return PullSnapshot(
        repo=pull.repository,
        number=pull.number,
        state=pull.state,
        merged=pull.merged or pull.merged_at is not None,
        head_ref=pull.head_ref,
        head_repository=pull.head_repository,
        base_ref=pull.base_ref,
    )


async def _checked_pull(
    client: InstallationClient, caller: Caller, repo: str, suggestion: StoredSuggestion
) -> PullSnapshot | FixAnswer:
    """The merged pull request the fix goes on top of, once the caller is known a maintainer."""
    refused = NOT_OPENED.format(sid=suggestion.id, reason="{reason}")
    permission = await client.collaborator_permission(repo, caller.login)
    if permission not in MAINTAINER_PERMISSIONS:
        reason = NOT_MAINTAINER.format(repo=repo, login=caller.login, permission=permission)
        return FixAnswer(problem=refused.format(reason=reason), status=403)
    pull = _snapshot(await client.get_pull(repo, suggestion.pr))
    if not pull.merged:
        reason = NOT_MERGED.format(pr=pull.number, state=pull.state)
        return FixAnswer(problem=refused.format(reason=reason), status=409)
    return pull


async def ask_for_fix(deps: Deps, caller: Caller, repo: str, suggestion_id: str) -> FixAnswer:
    """Open (or link) the fix PR of one of the repository's suggestions for a signed-in person.
    ApiError 404 when the suggestion is not the account's; GitHub's refusals become a problem."""
    suggestion, installation = await run(_find, deps, caller, repo, suggestion_id)
    refused = NOT_OPENED.format(sid=suggestion.id, reason="{reason}")
    if deps.github is None or installation is None:
        reason = "this server has no GitHub App installation for the repository"
        return FixAnswer(problem=refused.format(reason=reason), status=503)
    client = deps.github.installation(installation)
    try:
        pull = await _checked_pull(client, caller, repo, suggestion)
        if isinstance(pull, FixAnswer):
            return pull
        outcome = await request_fix(
            deps, client, suggestion, pull, asked_by=caller.login, comment_id=None
        )
    except (Forbidden, Gone, Rejected) as exc:
        return FixAnswer(problem=refused.format(reason=f"GitHub refused: {exc}"), status=502)
    except GitHubError as exc:  # a 5xx, a rate limit: nothing is lost, the ask can be repeated
        log.warning("ledger fix ask failed", extra={"repo": repo, "error": str(exc)})
        reason = f"GitHub did not answer ({type(exc).__name__}); try again in a moment"
        return FixAnswer(problem=refused.format(reason=reason), status=503)
    if outcome.reason is not None:
        return FixAnswer(problem=refused.format(reason=outcome.reason), status=422)
    if outcome.number is None:
        return FixAnswer(notice=BEING_OPENED.format(sid=suggestion.id))
    if outcome.linked:
        return FixAnswer(notice=LINKED.format(sid=suggestion.id, number=outcome.number))
    text = OPENED.format(number=outcome.number, sid=suggestion.id, base=pull.base_ref)
    return FixAnswer(notice=text)
