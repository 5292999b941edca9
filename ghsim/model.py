"""The simulator's records: accounts, installations, repositories, pull requests, comments, reviews."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ghsim.patches import count_changes

VALID_ASSOCIATIONS = frozenset(
    {
        "OWNER",
        "MEMBER",
        "COLLABORATOR",
        "CONTRIBUTOR",
        "FIRST_TIME_CONTRIBUTOR",
        "FIRST_TIMER",
        "MANNEQUIN",
        "NONE",
    }
)
REACTION_CONTENTS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")


class ApiError(Exception):
    """An answer GitHub would give instead of the resource: status, message and optional errors."""

    def __init__(self, status: int, message: str, errors: list[Any] | None = None) -> None:
        super().__init__(f"{status} {message}")
        self.status = status
        self.message = message
        self.errors = errors


@dataclass
class Account:
    login: str
    id: int
    type: str
    node_id: str


@dataclass
class Installation:
    id: int
    account: Account
    repositories: list[str]
    created_at: datetime
    updated_at: datetime
    permissions: dict[str, str]
    events: list[str]
    repository_selection: str = "selected"
    suspended_at: datetime | None = None
    suspended_by: Account | None = None


@dataclass
class Repository:
    id: int
    node_id: str
    owner: Account
    name: str
    private: bool
    default_branch: str
    created_at: datetime
    branches: dict[str, str] = field(default_factory=dict)
    installation_id: int | None = None

    @property
    def full_name(self) -> str:
        return f"{self.owner.login}/{self.name}"


@dataclass(frozen=True)
class FileChange:
    """One file of a pull request's diff, as ``GET …/pulls/{n}/files`` lists it."""

    filename: str
    patch: str | None
    status: str = "modified"
    previous_filename: str | None = None

    @property
    def additions(self) -> int:
        return count_changes(self.patch)[0]

    @property
    def deletions(self) -> int:
        return count_changes(self.patch)[1]


@dataclass
class Commit:
    sha: str
    parents: list[str]
    message: str
    author: Account | None
    author_name: str
    files: list[FileChange]
    at: datetime


@dataclass
class PullRequest:
    id: int
    node_id: str
    repo: str
    number: int
    title: str
    body: str | None
    user: Account
    author_association: str
    head_ref: str
    head_sha: str
    base_ref: str
    base_sha: str
    draft: bool
    created_at: datetime
    updated_at: datetime
    files_by_sha: dict[str, list[FileChange]]
    state: str = "open"
    merged: bool = False
    closed_at: datetime | None = None
    merged_at: datetime | None = None
    merged_by: Account | None = None
    merge_commit_sha: str | None = None
    head_repo: str | None = None  # the fork the head branch lives in; None: this repository

    @property
    def files(self) -> list[FileChange]:
        return self.files_by_sha[self.head_sha]


@dataclass
class ReviewComment:
    id: int
    node_id: str
    repo: str
    pull_number: int
    review_id: int
    body: str
    path: str
    line: int | None
    side: str
    start_line: int | None
    start_side: str | None
    commit_id: str
    original_commit_id: str
    position: int | None
    diff_hunk: str
    user: Account
    author_association: str
    via_app: bool
    in_reply_to_id: int | None
    created_at: datetime
    updated_at: datetime


@dataclass
class Review:
    id: int
    node_id: str
    repo: str
    pull_number: int
    user: Account
    author_association: str
    body: str
    state: str
    commit_id: str
    submitted_at: datetime | None


@dataclass
class IssueComment:
    id: int
    node_id: str
    repo: str
    number: int
    body: str
    user: Account
    author_association: str
    via_app: bool
    created_at: datetime
    updated_at: datetime


@dataclass
class Reaction:
    id: int
    node_id: str
    subject: tuple[str, int]
    user: Account
    content: str
    created_at: datetime


@dataclass(frozen=True)
class IssuedToken:
    installation_id: int
    expires_at: datetime


@dataclass(frozen=True)
class Author:
    """Who is speaking: the account, its association with the repository, and whether via the app."""

    account: Account
    association: str
    via_app: bool = False
