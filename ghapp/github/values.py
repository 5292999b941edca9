"""Plain values the GitHub client answers, read leniently from GitHub's REST JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from continual.times import parse_iso_or_none
from continual.writeback.authors import bot_login, is_bot_account

Json = Mapping[str, Any]


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


@dataclass(frozen=True, slots=True)
class GitHubUser:
    login: str
    id: int
    type: str

    @property
    def is_bot(self) -> bool:
        return is_bot_account(self.login, self.type)

    @classmethod
    def from_json(cls, data: object) -> GitHubUser:
        if not isinstance(data, Mapping):
            return cls(login="ghost", id=0, type="User")
        return cls(_str(data.get("login")), _int(data.get("id")) or 0, _str(data.get("type")))


@dataclass(frozen=True, slots=True)
class App:
    id: int
    slug: str
    name: str
    owner: str

    @property
    def bot_login(self) -> str:
        return bot_login(self.slug)

    @classmethod
    def from_json(cls, data: Json) -> App:
        return cls(
            id=int(data["id"]),
            slug=_str(data.get("slug")),
            name=_str(data.get("name")),
            owner=GitHubUser.from_json(data.get("owner")).login,
        )


@dataclass(frozen=True, slots=True)
class HookDelivery:
    """One attempt at delivering a webhook to the app (``GET /app/hook/deliveries``)."""

    id: int
    guid: str
    delivered_at: datetime | None
    redelivery: bool
    status_code: int
    status: str
    event: str
    action: str | None

    @property
    def ok(self) -> bool:
        return 200 <= self.status_code < 300

    @classmethod
    def from_json(cls, data: Json) -> HookDelivery:
        action = data.get("action")
        return cls(
            id=int(data["id"]),
            guid=_str(data.get("guid")),
            delivered_at=parse_iso_or_none(data.get("delivered_at")),
            redelivery=bool(data.get("redelivery")),
            status_code=_int(data.get("status_code")) or 0,
            status=_str(data.get("status")),
            event=_str(data.get("event")),
            action=action if isinstance(action, str) else None,
        )


@dataclass(frozen=True, slots=True)
class GitHubInstallation:
    id: int
    account: GitHubUser
    repository_selection: str
    suspended: bool

    @classmethod
    def from_json(cls, data: Json) -> GitHubInstallation:
        return cls(
            id=int(data["id"]),
            account=GitHubUser.from_json(data.get("account")),
            repository_selection=_str(data.get("repository_selection")),
            suspended=data.get("suspended_at") is not None,
        )


@dataclass(frozen=True, slots=True)
class GitHubRepository:
    id: int
    full_name: str
    private: bool
    default_branch: str

    @classmethod
    def from_json(cls, data: Json) -> GitHubRepository:
        return cls(
            id=int(data["id"]),
            full_name=_str(data.get("full_name")),
            private=bool(data.get("private")),
            default_branch=_str(data.get("default_branch")),
        )


@dataclass(frozen=True, slots=True)
class PullRequest:
    repository: str
    number: int
    id: int
    title: str
    body: str
    state: str
    merged: bool
    draft: bool
    user: GitHubUser
    author_association: str
    head_sha: str
    head_ref: str
    base_sha: str
    base_ref: str
    html_url: str
    closed_at: datetime | None
    merged_at: datetime | None
    head_repository: str | None = None  # owner/name of the head's repository; None: deleted
    # Read when GitHub sends them: `merged_by` only on one pull request, not in a list.
    updated_at: datetime | None = None
    merged_by: GitHubUser | None = None

    @classmethod
    def from_json(cls, repository: str, data: Json) -> PullRequest:
        head: Json = data.get("head") or {}
        base: Json = data.get("base") or {}
        return cls(
            repository=repository,
            number=int(data["number"]),
            id=int(data["id"]),
            title=_str(data.get("title")),
            body=_str(data.get("body")),
            state=_str(data.get("state")),
            merged=bool(data.get("merged")) or data.get("merged_at") is not None,
            draft=bool(data.get("draft")),
            user=GitHubUser.from_json(data.get("user")),
            author_association=_str(data.get("author_association")),
            head_sha=_str(head.get("sha")),
            head_ref=_str(head.get("ref")),
            base_sha=_str(base.get("sha")),
            base_ref=_str(base.get("ref")),
            html_url=_str(data.get("html_url")),
            closed_at=parse_iso_or_none(data.get("closed_at")),
            merged_at=parse_iso_or_none(data.get("merged_at")),
            head_repository=_str((head.get("repo") or {}).get("full_name")) or None,
            updated_at=parse_iso_or_none(data.get("updated_at")),
            merged_by=GitHubUser.from_json(data["merged_by"]) if data.get("merged_by") else None,
        )


@dataclass(frozen=True, slots=True)
class DiffEntry:
    filename: str
    status: str
    additions: int
    deletions: int
    changes: int
    patch: str | None
    previous_filename: str | None

    @classmethod
    def from_json(cls, data: Json) -> DiffEntry:
        patch = data.get("patch")
        previous = data.get("previous_filename")
        return cls(
            filename=_str(data.get("filename")),
            status=_str(data.get("status")),
            additions=_int(data.get("additions")) or 0,
            deletions=_int(data.get("deletions")) or 0,
            changes=_int(data.get("changes")) or 0,
            patch=patch if isinstance(patch, str) else None,
            previous_filename=previous if isinstance(previous, str) else None,
        )


def _via_app(data: Json) -> str | None:
    app = data.get("performed_via_github_app")
    if isinstance(app, Mapping):
        return _str(app.get("slug")) or str(app.get("id", ""))
    return None


@dataclass(frozen=True, slots=True)
class ReviewComment:
    """A pull request review comment; ``via_app`` is the slug of the app that posted it, if any."""

    id: int
    node_id: str
    body: str
    path: str
    line: int | None
    side: str | None
    start_line: int | None
    commit_id: str
    user: GitHubUser
    author_association: str
    via_app: str | None
    in_reply_to_id: int | None
    review_id: int | None
    created_at: datetime | None
    updated_at: datetime | None
    html_url: str

    @property
    def by_bot(self) -> bool:
        return self.user.is_bot or self.via_app is not None

    @classmethod
    def from_json(cls, data: Json) -> ReviewComment:
        side = data.get("side")
        return cls(
            id=int(data["id"]),
            node_id=_str(data.get("node_id")),
            body=_str(data.get("body")),
            path=_str(data.get("path")),
            line=_int(data.get("line")),
            side=side if isinstance(side, str) else None,
            start_line=_int(data.get("start_line")),
            commit_id=_str(data.get("commit_id")),
            user=GitHubUser.from_json(data.get("user")),
            author_association=_str(data.get("author_association")),
            via_app=_via_app(data),
            in_reply_to_id=_int(data.get("in_reply_to_id")),
            review_id=_int(data.get("pull_request_review_id")),
            created_at=parse_iso_or_none(data.get("created_at")),
            updated_at=parse_iso_or_none(data.get("updated_at")),
            html_url=_str(data.get("html_url")),
        )


@dataclass(frozen=True, slots=True)
class IssueComment:
    id: int
    node_id: str
    body: str
    user: GitHubUser
    author_association: str
    via_app: str | None
    created_at: datetime | None
    updated_at: datetime | None
    html_url: str

    @property
    def by_bot(self) -> bool:
        return self.user.is_bot or self.via_app is not None

    @classmethod
    def from_json(cls, data: Json) -> IssueComment:
        return cls(
            id=int(data["id"]),
            node_id=_str(data.get("node_id")),
            body=_str(data.get("body")),
            user=GitHubUser.from_json(data.get("user")),
            author_association=_str(data.get("author_association")),
            via_app=_via_app(data),
            created_at=parse_iso_or_none(data.get("created_at")),
            updated_at=parse_iso_or_none(data.get("updated_at")),
            html_url=_str(data.get("html_url")),
        )


@dataclass(frozen=True, slots=True)
class Review:
    id: int
    node_id: str
    body: str
    state: str
    commit_id: str
    user: GitHubUser
    submitted_at: datetime | None
    html_url: str

    @classmethod
    def from_json(cls, data: Json) -> Review:
        return cls(
            id=int(data["id"]),
            node_id=_str(data.get("node_id")),
            body=_str(data.get("body")),
            state=_str(data.get("state")),
            commit_id=_str(data.get("commit_id")),
            user=GitHubUser.from_json(data.get("user")),
            submitted_at=parse_iso_or_none(data.get("submitted_at")),
            html_url=_str(data.get("html_url")),
        )


@dataclass(frozen=True, slots=True)
class DraftComment:
    """One comment of a review about to be posted: a line (or range) of the head's diff."""

    path: str
    line: int
    body: str
    side: str = "RIGHT"
    start_line: int | None = None
    start_side: str | None = None

    def to_json(self) -> dict[str, Any]:
        shaped: dict[str, Any] = {
            "path": self.path,
            "line": self.line,
            "side": self.side,
            "body": self.body,
        }
        if self.start_line is not None:
            shaped["start_line"] = self.start_line
            shaped["start_side"] = self.start_side or self.side
        return shaped


@dataclass(frozen=True, slots=True)
class Commit:
    sha: str
    message: str
    author: GitHubUser | None
    author_name: str

    @classmethod
    def from_json(cls, data: Json) -> Commit:
        inner: Json = data.get("commit") or {}
        person: Json = inner.get("author") or {}
        author = data.get("author")
        return cls(
            sha=_str(data.get("sha")),
            message=_str(inner.get("message")),
            author=GitHubUser.from_json(author) if isinstance(author, Mapping) else None,
            author_name=_str(person.get("name")),
        )


@dataclass(frozen=True, slots=True)
class Comparison:
    status: str
    ahead_by: int
    behind_by: int
    total_commits: int
    merge_base_sha: str
    commits: tuple[Commit, ...]
    files: tuple[DiffEntry, ...]

    @classmethod
    def from_json(cls, data: Json) -> Comparison:
        merge_base: Json = data.get("merge_base_commit") or {}
        return cls(
            status=_str(data.get("status")),
            ahead_by=_int(data.get("ahead_by")) or 0,
            behind_by=_int(data.get("behind_by")) or 0,
            total_commits=_int(data.get("total_commits")) or 0,
            merge_base_sha=_str(merge_base.get("sha")),
            commits=tuple(Commit.from_json(c) for c in data.get("commits") or ()),
            files=tuple(DiffEntry.from_json(f) for f in data.get("files") or ()),
        )


@dataclass(frozen=True, slots=True)
class GitHubReaction:
    id: int
    content: str
    user: GitHubUser

    @classmethod
    def from_json(cls, data: Json) -> GitHubReaction:
        return cls(
            id=int(data["id"]),
            content=_str(data.get("content")),
            user=GitHubUser.from_json(data.get("user")),
        )


def split_repo(repo: str) -> tuple[str, str]:
    owner, _, name = repo.partition("/")
    if not owner or not name or "/" in name:
        raise ValueError(f"a repository is named owner/name, got {repo!r}")
    return owner, name


@dataclass(frozen=True, slots=True)
class GitTree:
    """``GET …/git/trees/{sha}?recursive=1``: every blob's path and sha; ``truncated`` when GitHub
    left entries out (over its limit), so the listing proves nothing about absent paths."""

    sha: str
    blobs: Mapping[str, str]
    truncated: bool

    @classmethod
    def from_json(cls, data: Json) -> GitTree:
        blobs = {
            _str(item.get("path")): _str(item.get("sha"))
            for item in data.get("tree") or ()
            if isinstance(item, Mapping) and item.get("type") == "blob"
        }
        return cls(sha=_str(data.get("sha")), blobs=blobs, truncated=bool(data.get("truncated")))


@dataclass(frozen=True, slots=True)
class RateLimit:
    """What an answer's ``x-ratelimit-*`` headers say of the installation's hourly budget."""

    limit: int
    remaining: int
    reset_at: datetime

    @classmethod
    def from_headers(cls, headers: Mapping[str, str]) -> RateLimit | None:
        """The budget an answer reports; None when its headers are missing or out of shape."""
        values = [
            headers.get(f"x-ratelimit-{name}", "") for name in ("limit", "remaining", "reset")
        ]
        if not all(value.isdigit() for value in values):
            return None
        limit, remaining, reset = (int(value) for value in values)
        return cls(limit, remaining, datetime.fromtimestamp(reset, UTC))
