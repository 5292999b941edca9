"""Deliveries of a repository webhook, as `gh webhook forward` relays them to a server with no
public URL: they carry no `installation`. The app finds the repository's installation with its
JWT (`GET /repos/{owner}/{repo}/installation`, cached), records the installation and the
repository as an installation event would, and the delivery goes on as the app's own.

Installation events are the app's own webhook's, so they never arrive this way: the first
delivery of a repository the app did not know installed (new, removed, or under another
installation) stands for its install, and asks for its history back-fill as an install does
(``HINDSIGHT_HISTORY_ON_INSTALL``)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from continual.tables import Repository
from ghapp.envelopes import InstallationOf, RepositoryOf
from ghapp.github.errors import GitHubError, Gone
from ghapp.history import schedule_all
from ghapp.tenants import upsert_installation, upsert_repositories

if TYPE_CHECKING:
    from ghapp.github.client import GitHubClient

log = logging.getLogger(__name__)

CACHE_S = 3600.0  # an installation found for a repository is asked for again after an hour


class NotInstalled(Exception):
    """The repository has no installation of this app, or GitHub could not say which."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class InstallationFinder:
    """The installation of each repository a forwarded delivery names, cached for ``CACHE_S``."""

    def __init__(
        self, github: GitHubClient, engine: Engine, clock: Any, *, backfill: bool = False
    ) -> None:
        self.github = github
        self.engine = engine
        self.clock = clock
        self.backfill = backfill  # a repository seen installed for the first time is back-filled
        self._found: dict[int, tuple[dict[str, Any], float]] = {}

    async def attach(self, payload: dict[str, Any]) -> bool:
        """Give ``payload`` its repository's `installation`; False when it names no repository.

        Raises NotInstalled when the app is not installed on it (404) or GitHub fails.
        """
        try:
            repository = RepositoryOf.model_validate(payload.get("repository"))
        except ValidationError:
            return False
        cached = self._found.get(repository.id)
        if cached is not None and time.monotonic() - cached[1] < CACHE_S:
            payload["installation"] = cached[0]
            return True
        installation = await self._find(repository.full_name)
        found = {"id": installation.id, "account": installation.account.model_dump()}
        await asyncio.to_thread(self._record, installation, repository)
        self._found[repository.id] = (found, time.monotonic())
        payload["installation"] = found
        log.info(
            "forwarded delivery's installation found",
            extra={"repo": repository.full_name, "installation": installation.id},
        )
        return True

    async def _find(self, full_name: str) -> InstallationOf:
        try:
            found = await self.github.get_repo_installation(full_name)
        except Gone:
            raise NotInstalled(
                422,
                f"the app is not installed on {full_name}: install it there, then redeliver",
            ) from None
        except GitHubError as exc:
            raise NotInstalled(
                503, f"could not find the installation of {full_name}: {exc}"
            ) from None
        if found.account.id == 0:
            raise NotInstalled(503, f"GitHub's answer names no account for {full_name}")
        account = {"id": found.account.id, "login": found.account.login, "type": found.account.type}
        return InstallationOf.model_validate({"id": found.id, "account": account})

    def _record(self, installation: InstallationOf, repository: RepositoryOf) -> None:
        now = self.clock()
        with Session(self.engine) as session, session.begin():
            known = session.get(Repository, repository.id)
            installed = known is not None and known.removed_ms is None
            first = not installed or known is None or known.installation_id != installation.id
            row = upsert_installation(session, installation, now)
            upsert_repositories(
                session,
                [repository],
                account_id=row.account_id,
                installation_id=row.id,
                now=now,
                account_login=installation.account.login,
            )
            if first and self.backfill:
                session.flush()
                if schedule_all(session.connection(), [repository.id], now):
                    log.info(
                        "forwarded repository's history back-fill asked for",
                        extra={"repo": repository.full_name},
                    )
