"""The simulator's world: one lock around every account, repository, pull request and token."""

from __future__ import annotations

import base64
import hashlib
import itertools
import secrets
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta

from ghsim.model import (
    VALID_ASSOCIATIONS,
    Account,
    ApiError,
    Commit,
    FileChange,
    Installation,
    IssueComment,
    IssuedToken,
    PullRequest,
    Reaction,
    Repository,
    Review,
    ReviewComment,
)
from ghsim.pending import PendingManifests, PendingSignIns

DEFAULT_PERMISSIONS = {
    "contents": "read",
    "issues": "write",
    "metadata": "read",
    "pull_requests": "write",
}
DEFAULT_EVENTS = [
    "pull_request",
    "pull_request_review",
    "pull_request_review_comment",
    "pull_request_review_thread",
    "issue_comment",
    "push",
]
# Every id the world hands out (accounts, installations, repositories, pulls, comments, reviews,
# reactions) is above 2^32, as GitHub's are now: code that keeps one in 32 bits fails here first.
FIRST_ID = 5_000_000_001
NODE_PREFIXES = {
    "User": "04:User",
    "Bot": "03:Bot",
    "Organization": "12:Organization",
    "Repository": "10:Repository",
    "PullRequest": "11:PullRequest",
    "PullRequestReviewComment": "24:PullRequestReviewComment",
    "PullRequestReview": "17:PullRequestReview",
    "IssueComment": "12:IssueComment",
    "Reaction": "08:Reaction",
    "Installation": "23:IntegrationInstallation",
}

Files = Sequence[FileChange] | Mapping[str, str]


def node_id(kind: str, number: int) -> str:
    return base64.b64encode(f"{NODE_PREFIXES[kind]}{number}".encode()).decode()


def as_files(files: Files) -> list[FileChange]:
    """Accept FileChange values or a {filename: patch} mapping."""
    if isinstance(files, Mapping):
        return [FileChange(filename=name, patch=patch) for name, patch in files.items()]
    return list(files)


# What the simulated app is granted until a manifest registers another (app.yml's grants).
DEFAULT_APP_PERMISSIONS = {
    "contents": "read",
    "issues": "write",
    "metadata": "read",
    "pull_requests": "write",
}
DEFAULT_APP_EVENTS = (
    "issue_comment",
    "pull_request",
    "pull_request_review",
    "pull_request_review_comment",
    "pull_request_review_thread",
)


class World:
    """All state of one simulated GitHub. Every public method takes ``lock``; it is re-entrant."""

    def __init__(self, *, app_id: int, app_slug: str, app_name: str, token_ttl_s: float) -> None:
        self.lock = threading.RLock()
        self.app_id = app_id
        self.app_slug = app_slug
        self.app_name = app_name
        self.token_ttl = timedelta(seconds=token_ttl_s)
        self.offset = timedelta()
        self._ids = itertools.count(FIRST_ID)
        self._sha_seed = secrets.token_hex(8)
        self.accounts: dict[str, Account] = {}
        self.installations: dict[int, Installation] = {}
        self.repositories: dict[str, Repository] = {}
        self.commits: dict[str, Commit] = {}
        # Commit sha -> its files (path -> text), for the commits made with files (git.py).
        self.trees: dict[str, dict[str, str]] = {}
        # Git Data API trees (gitdata.py): tree sha -> files.
        self.tree_objects: dict[str, dict[str, str]] = {}
        # (repository lower-cased, branch) that refuse every ref write.
        self.protected_branches: set[tuple[str, str]] = set()
        self.pulls: dict[tuple[str, int], PullRequest] = {}
        self.numbers: dict[str, int] = {}
        self.review_comments: dict[int, ReviewComment] = {}
        self.reviews: dict[int, Review] = {}
        self.issue_comments: dict[int, IssueComment] = {}
        self.reactions: dict[int, Reaction] = {}
        # Root review comment id -> who resolved its thread.
        self.resolved_threads: dict[int, Account] = {}
        # (repository, login) -> permission: admin, maintain, write, triage, read, none.
        self.permissions: dict[tuple[str, str], str] = {}
        self.tokens: dict[str, IssuedToken] = {}
        self.app_owner = self.account(f"{app_slug}-owner", "Organization")
        self.bot = self.account(f"{app_slug}[bot]", "Bot")
        self.manifests = PendingManifests()
        self.sign_ins = PendingSignIns(self.now)
        self.app_permissions: dict[str, str] = dict(DEFAULT_APP_PERMISSIONS)
        self.app_events: list[str] = list(DEFAULT_APP_EVENTS)

    def register_app(
        self,
        *,
        app_id: int,
        slug: str,
        name: str,
        owner: Account,
        permissions: Mapping[str, str],
        events: Iterable[str],
    ) -> None:
        """The app becomes the one just registered from a manifest (its id, slug and grants)."""
        with self.lock:
            self.app_id, self.app_slug, self.app_name = app_id, slug, name
            self.app_owner = owner
            self.bot = self.account(f"{slug}[bot]", "Bot")
            self.app_permissions = dict(permissions)
            self.app_events = sorted(events)

    # --- clock and ids -------------------------------------------------------------------

    def now(self) -> datetime:
        return datetime.now(UTC).replace(microsecond=0) + self.offset

    def advance(self, seconds: float) -> None:
        with self.lock:
            self.offset += timedelta(seconds=seconds)

    def next_id(self) -> int:
        with self.lock:
            return next(self._ids)

    def new_sha(self) -> str:
        return hashlib.sha1(f"{self._sha_seed}:{self.next_id()}".encode()).hexdigest()

    # --- accounts, installations, repositories, tokens -----------------------------------

    def account(self, login: str, type: str = "User") -> Account:
        """The account ``login``, created with ``type`` on first use."""
        with self.lock:
            found = self.accounts.get(login.lower())
            if found is None:
                number = self.next_id()
                kind = type if type in ("User", "Bot", "Organization") else "User"
                found = Account(login, number, type, node_id(kind, number))
                self.accounts[login.lower()] = found
            return found

    def add_installation(
        self,
        account: str,
        *,
        account_type: str = "Organization",
        repositories: Iterable[str] = (),
        installation_id: int | None = None,
        permissions: Mapping[str, str] | None = None,
    ) -> Installation:
        with self.lock:
            number = installation_id if installation_id is not None else self.next_id()
            if number in self.installations:
                raise ValueError(f"installation {number} already exists")
            now = self.now()
            installation = Installation(
                id=number,
                account=self.account(account, account_type),
                repositories=[],
                created_at=now,
                updated_at=now,
                permissions=dict(permissions or DEFAULT_PERMISSIONS),
                events=list(DEFAULT_EVENTS),
            )
            self.installations[number] = installation
            for name in repositories:
                self.add_repository(name, installation_id=number)
            return installation

    def installation(self, installation_id: int) -> Installation:
        with self.lock:
            found = self.installations.get(installation_id)
            if found is None:
                raise ApiError(404, "Not Found")
            return found

    def add_repository(
        self,
        full_name: str,
        *,
        installation_id: int | None = None,
        private: bool = False,
        default_branch: str = "main",
    ) -> Repository:
        """Create ``owner/name`` (or fetch it) and give it to ``installation_id`` if named."""
        owner_login, _, name = full_name.partition("/")
        if not owner_login or not name or "/" in name:
            raise ValueError(f"repository name must be owner/name, got {full_name!r}")
        with self.lock:
            repo = self.repositories.get(full_name.lower())
            if repo is None:
                number = self.next_id()
                owner = self.account(owner_login)
                repo = Repository(
                    id=number,
                    node_id=node_id("Repository", number),
                    owner=owner,
                    name=name,
                    private=private,
                    default_branch=default_branch,
                    created_at=self.now(),
                )
                root = self.add_commit(repo, parents=[], files=[], message="Initial commit")
                repo.branches[default_branch] = root
                self.repositories[full_name.lower()] = repo
                self.numbers[repo.full_name] = 0
            if installation_id is not None:
                self.attach(repo.full_name, installation_id)
            return repo

    def attach(self, full_name: str, installation_id: int) -> None:
        with self.lock:
            repo = self.repo(full_name)
            installation = self.installation(installation_id)
            if repo.installation_id not in (None, installation_id):
                self.detach(repo.full_name)
            repo.installation_id = installation_id
            if repo.full_name not in installation.repositories:
                installation.repositories.append(repo.full_name)

    def detach(self, full_name: str) -> None:
        with self.lock:
            repo = self.repo(full_name)
            if repo.installation_id is not None:
                installation = self.installations.get(repo.installation_id)
                if installation is not None and repo.full_name in installation.repositories:
                    installation.repositories.remove(repo.full_name)
            repo.installation_id = None

    def delete_installation(self, installation_id: int) -> Installation:
        with self.lock:
            installation = self.installation(installation_id)
            names = list(installation.repositories)
            for name in names:
                self.detach(name)
            installation.repositories = names
            del self.installations[installation_id]
            self.tokens = {
                token: issued
                for token, issued in self.tokens.items()
                if issued.installation_id != installation_id
            }
            return installation

    def set_suspended(self, installation_id: int, suspended: bool, by: str | None) -> Installation:
        with self.lock:
            installation = self.installation(installation_id)
            installation.suspended_at = self.now() if suspended else None
            installation.suspended_by = self.account(by) if suspended and by else None
            installation.updated_at = self.now()
            return installation

    def repo(self, full_name: str) -> Repository:
        with self.lock:
            found = self.repositories.get(full_name.lower())
            if found is None:
                raise ApiError(404, "Not Found")
            return found

    def explicit_permission(self, full_name: str, login: str) -> str | None:
        """What ``login`` was given in the repository (its owner: admin); None when nothing was
        (a public repository's `read`)."""
        with self.lock:
            repo = self.repo(full_name)
            if login.lower() == repo.owner.login.lower():
                return "admin"
            return self.permissions.get((full_name.lower(), login.lower()))

    def mint_token(self, installation_id: int) -> tuple[str, IssuedToken]:
        with self.lock:
            installation = self.installation(installation_id)
            if installation.suspended_at is not None:
                raise ApiError(403, "This installation has been suspended")
            token = "ghs_" + secrets.token_urlsafe(27).replace("-", "a").replace("_", "b")[:36]
            issued = IssuedToken(installation_id, self.now() + self.token_ttl)
            self.tokens[token] = issued
            return token, issued

    def token_installation(self, token: str) -> Installation:
        """The installation an unexpired ``token`` belongs to, else 401 as GitHub answers."""
        with self.lock:
            issued = self.tokens.get(token)
            if issued is None or issued.expires_at <= self.now():
                raise ApiError(401, "Bad credentials")
            installation = self.installations.get(issued.installation_id)
            if installation is None:
                raise ApiError(401, "Bad credentials")
            if installation.suspended_at is not None:
                raise ApiError(403, "This installation has been suspended")
            return installation

    # --- commits and pull requests -------------------------------------------------------

    def add_commit(
        self,
        repo: Repository,
        *,
        parents: list[str],
        files: list[FileChange],
        message: str,
        author: Account | None = None,
        sha: str | None = None,
    ) -> str:
        with self.lock:
            sha = sha or self.new_sha()
            name = author.login if author else "Simulated Author"
            self.commits[sha] = Commit(sha, parents, message, author, name, files, self.now())
            return sha

    def tree_texts(self) -> list[str]:
        """Every file text a tree holds (a tree entry may name an existing blob by its sha)."""
        with self.lock:
            trees = [*self.trees.values(), *self.tree_objects.values()]
            return [text for tree in trees for text in tree.values()]

    def pull(self, full_name: str, number: int) -> PullRequest:
        with self.lock:
            repo = self.repo(full_name)
            found = self.pulls.get((repo.full_name, number))
            if found is None:
                raise ApiError(404, "Not Found")
            return found


def check_association(association: str) -> None:
    if association not in VALID_ASSOCIATIONS:
        raise ValueError(f"author_association must be one of {sorted(VALID_ASSOCIATIONS)}")
