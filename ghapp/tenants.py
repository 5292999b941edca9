"""Keeping the accounts, installations and repositories tables true to what GitHub says."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Engine, select, update
from sqlalchemy.orm import Session

from continual.tables import Account, Repository
from ghapp.envelopes import (
    InstallationOf,
    IssueCommentEvent,
    Owner,
    PullRequestEvent,
    RepositoryEvent,
    RepositoryRef,
)
from ghapp.tables import Installation

# The events that name a repository with its owner.
RepositoryEvents = RepositoryEvent | PullRequestEvent | IssueCommentEvent


def upsert_account(session: Session, account: Owner, now: int) -> Account:
    """The account with GitHub's id, holding the login GitHub gives it now.

    Accounts are keyed by id, never by login: GitHub renames logins and gives a freed one to a
    new account. A login another row holds is released by that row first (`release_login`), and
    a renamed account's repositories take the new owner in their names.
    """
    login = account.login
    release_login(session, login, keep_id=account.id)
    row = session.get(Account, account.id)
    if row is None:
        row = Account(id=account.id, login=login, created_ms=now)
        session.add(row)
        session.flush()
    elif row.login != login:
        rename_owner(session, row, login, now)
    row.type = account.type or "User"
    return row


def released_login(login: str, account_id: int) -> str:
    """The login an account row keeps once GitHub gave its login to another account (`#` never
    occurs in a GitHub login, so a real account can never take it)."""
    return f"{login}#{account_id}"


def release_login(session: Session, login: str, *, keep_id: int) -> None:
    """A login GitHub now gives to `keep_id` is taken from any other account row holding it; that
    account keeps its id, its rows and its lessons, under a released login."""
    holders = session.scalars(
        select(Account).where(Account.login == login, Account.id != keep_id)
    ).all()
    for holder in holders:
        holder.login = released_login(login, holder.id)
    if holders:
        session.flush()


def rename_owner(session: Session, account: Account, login: str, now: int) -> None:
    """The account is now called `login` on GitHub: so are the owners of its repositories."""
    old = account.login.partition("#")[0]
    account.login = login
    session.flush()
    repositories = session.scalars(
        select(Repository).where(
            Repository.account_id == account.id,
            Repository.full_name.startswith(f"{old}/", autoescape=True),
            ~Repository.full_name.contains("#", autoescape=True),
        )
    ).all()
    for repository in repositories:
        name = f"{login}/{repository.full_name.partition('/')[2]}"
        release_name(session, name, keep_id=repository.id, now=now)
        repository.full_name = name
    if repositories:
        session.flush()


def upsert_installation(session: Session, installation: InstallationOf, now: int) -> Installation:
    account = upsert_account(session, installation.account, now)
    row = session.get(Installation, installation.id)
    if row is None:
        row = Installation(id=installation.id, account_id=account.id, created_ms=now)
        session.add(row)
    row.account_id = account.id
    row.deleted_ms = None
    if installation.suspended_at and row.suspended_ms is None:
        row.suspended_ms = now
    return row


def upsert_repositories(
    session: Session,
    repositories: Iterable[RepositoryRef],
    *,
    account_id: int,
    installation_id: int | None,
    now: int,
    account_login: str | None = None,
) -> list[Repository]:
    """Add or revive repositories; `full_name` may be missing from older payloads (never both it
    and `name`: such a repository cannot be named, and its payload is refused)."""
    rows = []
    for repo in repositories:
        if repo.full_name is None and repo.name is None:
            raise ValueError(f"repository {repo.id} has no name")
        full_name = repo.full_name or f"{account_login}/{repo.name}"
        release_name(session, full_name, keep_id=repo.id, now=now)
        row = session.get(Repository, repo.id)
        if row is None:
            row = Repository(id=repo.id, account_id=account_id, full_name=full_name)
            session.add(row)
        row.full_name = full_name
        row.account_id = account_id
        if installation_id is not None:
            row.installation_id = installation_id
        row.removed_ms = None
        rows.append(row)
    return rows


def released(full_name: str, repository_id: int) -> str:
    """The name a repository row keeps once its full name is no longer its own (`#` never occurs
    in a GitHub name, so it cannot be taken by a real repository)."""
    return f"{full_name}#{repository_id}"


def release_name(session: Session, full_name: str, *, keep_id: int, now: int) -> None:
    """Repositories are keyed by id: a full name GitHub now gives to `keep_id` is taken from any
    other row (a deleted, renamed or transferred repository), which is retired under its old name."""
    holders = session.scalars(
        select(Repository).where(Repository.full_name == full_name, Repository.id != keep_id)
    ).all()
    for holder in holders:
        holder.full_name = released(full_name, holder.id)
        if holder.removed_ms is None:
            holder.removed_ms = now
    if holders:
        session.flush()


def retire_repository(session: Session, repository_id: int, now: int) -> None:
    """A deleted repository: removed, and its name free for a repository created under it."""
    row = session.get(Repository, repository_id)
    if row is not None:
        row.full_name = released(row.full_name.partition("#")[0], row.id)
        row.removed_ms = row.removed_ms or now


def remove_repositories(session: Session, repo_ids: Iterable[int], now: int) -> None:
    ids = list(repo_ids)
    if ids:
        session.execute(
            update(Repository)
            .where(Repository.id.in_(ids), Repository.removed_ms.is_(None))
            .values(removed_ms=now)
        )


def repository_from_event(session: Session, event: RepositoryEvents, now: int) -> Repository | None:
    """Make sure the repository an event is about is known (an installation event may be missed)."""
    repo = event.repository
    owner = repo.owner or event.organization
    if owner is None:
        return session.get(Repository, repo.id)
    account = upsert_account(session, owner, now)
    (row,) = upsert_repositories(
        session,
        [repo],
        account_id=account.id,
        installation_id=event.installation.id if event.installation else None,
        now=now,
        account_login=account.login,
    )
    return row


def note_repository(engine: Engine, event: RepositoryEvents, now: int) -> int | None:
    """Keep the event's repository row true, in its own transaction; answers its account id."""
    with Session(engine) as session, session.begin():
        row = repository_from_event(session, event, now)
        return row.account_id if row is not None else None
