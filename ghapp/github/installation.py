"""GitHub calls made as one installation of the app: pulls, comments, reviews, reactions."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, Protocol
from urllib.parse import quote

import httpx

from ghapp.github.errors import Gone, Rejected, Transient
from ghapp.github.threads import (
    REVIEW_THREADS_QUERY,
    PullThreads,
    ReviewThread,
    graphql_url,
    parse_page,
)
from ghapp.github.values import (
    Comparison,
    DiffEntry,
    DraftComment,
    GitHubReaction,
    GitHubRepository,
    GitTree,
    IssueComment,
    PullRequest,
    RateLimit,
    Review,
    ReviewComment,
    split_repo,
)

if TYPE_CHECKING:
    from datetime import datetime

    from githubkit import GitHub, TokenAuthStrategy

PER_PAGE = 100  # the largest page GitHub serves
PAGES_AT_ONCE = 4  # pages of one list read at the same time
MAX_NUMBERED_PAGES = 30  # GitHub lists at most 3,000 files of a pull request
# Permissions that make a person a maintainer of a repository.
MAINTAINER_PERMISSIONS = frozenset({"admin", "maintain", "write"})
ReviewEvent = Literal["COMMENT", "APPROVE", "REQUEST_CHANGES"]


class AppSession(Protocol):
    """What an installation's calls need of the app's client (``GitHubClient`` is one)."""

    base_url: str

    def now(self) -> datetime: ...

    async def installation_github(self, installation_id: int) -> GitHub[TokenAuthStrategy]: ...

    def forget_token(self, installation_id: int) -> None: ...

    async def send(
        self,
        github: GitHub[Any],
        method: str,
        url: str,
        *,
        what: str,
        params: Mapping[str, str | int] | None = None,
        json: Any = None,
    ) -> httpx.Response: ...

    def next_page(self, response: httpx.Response) -> str | None: ...


class InstallationClient:
    """Calls made as one installation; repositories are named ``owner/name``."""

    def __init__(self, app: AppSession, installation_id: int) -> None:
        self.app = app
        self.installation_id = installation_id
        self.sent = 0  # requests made through this client
        self.rate: RateLimit | None = None  # the budget the latest answer reported

    def __repr__(self) -> str:
        return f"InstallationClient(installation_id={self.installation_id})"

    async def _send(
        self,
        method: str,
        url: str,
        *,
        what: str,
        params: Mapping[str, str | int] | None = None,
        json: Any = None,
    ) -> httpx.Response:
        github = await self.app.installation_github(self.installation_id)
        self.sent += 1
        try:
            response = await self.app.send(github, method, url, what=what, params=params, json=json)
            self.rate = RateLimit.from_headers(response.headers) or self.rate
            return response
        except Rejected as exc:
            if exc.status != 401:
                raise
            self.app.forget_token(self.installation_id)
            raise Transient(f"GitHub no longer accepts the installation token ({what})") from exc

    async def _json(self, method: str, url: str, what: str, json: Any = None) -> Any:
        return (await self._send(method, url, what=what, json=json)).json()

    async def _list(self, url: str, what: str, key: str | None = None) -> list[Any]:
        """Every item of a paginated list, ``per_page=100``. When the first page's links number
        the pages (``rel="next"`` is page 2, ``rel="last"`` page N), the rest are read at once, a
        few at a time, in page order; otherwise ``rel="next"`` links are followed one by one."""
        response = await self._send("GET", url, what=what, params={"per_page": PER_PAGE})
        items: list[Any] = list(_page_items(response, key))
        next_url = self.app.next_page(response)
        numbered = numbered_pages(next_url, response.links.get("last", {}).get("url"))
        if numbered:
            gate = asyncio.Semaphore(PAGES_AT_ONCE)

            async def page(page_url: str) -> list[Any]:
                async with gate:
                    found = await self._send("GET", page_url, what=what)
                return list(_page_items(found, key))

            for found in await asyncio.gather(*map(page, numbered)):
                items.extend(found)
            return items
        while next_url is not None:
            response = await self._send("GET", next_url, what=what)
            items.extend(_page_items(response, key))
            next_url = self.app.next_page(response)
        return items

    async def list_repositories(self) -> list[GitHubRepository]:
        found = await self._list(
            "/installation/repositories", "installation repositories", "repositories"
        )
        return [GitHubRepository.from_json(item) for item in found]

    async def get_repository(self, repo: str) -> GitHubRepository:
        owner, name = split_repo(repo)
        return GitHubRepository.from_json(await self._json("GET", f"/repos/{owner}/{name}", repo))

    async def get_pull(self, repo: str, number: int) -> PullRequest:
        owner, name = split_repo(repo)
        data = await self._json("GET", f"/repos/{owner}/{name}/pulls/{number}", f"{repo}#{number}")
        return PullRequest.from_json(repo, data)

    async def list_merged_candidates(self, repo: str, page: int) -> tuple[list[PullRequest], bool]:
        """One page of the repository's closed pull requests, most recently updated first
        (merged ones among them), and whether another page follows."""
        owner, name = split_repo(repo)
        params: dict[str, str | int] = {
            "state": "closed",
            "sort": "updated",
            "direction": "desc",
            "per_page": PER_PAGE,
            "page": page,
        }
        response = await self._send(
            "GET", f"/repos/{owner}/{name}/pulls", what=f"{repo} pull requests", params=params
        )
        found = [PullRequest.from_json(repo, item) for item in _page_items(response, None)]
        return found, self.app.next_page(response) is not None

    async def list_pull_files(self, repo: str, number: int) -> list[DiffEntry]:
        owner, name = split_repo(repo)
        url = f"/repos/{owner}/{name}/pulls/{number}/files"
        return [
            DiffEntry.from_json(item) for item in await self._list(url, f"{repo}#{number} files")
        ]

    async def list_review_comments(self, repo: str, number: int) -> list[ReviewComment]:
        """All review comments of the pull request, oldest first."""
        owner, name = split_repo(repo)
        url = f"/repos/{owner}/{name}/pulls/{number}/comments"
        found = await self._list(url, f"{repo}#{number} review comments")
        return [ReviewComment.from_json(item) for item in found]

    async def get_review_comment(self, repo: str, comment_id: int) -> ReviewComment:
        owner, name = split_repo(repo)
        url = f"/repos/{owner}/{name}/pulls/comments/{comment_id}"
        return ReviewComment.from_json(await self._json("GET", url, f"review comment {comment_id}"))

    async def list_reviews(self, repo: str, number: int) -> list[Review]:
        owner, name = split_repo(repo)
        url = f"/repos/{owner}/{name}/pulls/{number}/reviews"
        return [
            Review.from_json(item) for item in await self._list(url, f"{repo}#{number} reviews")
        ]

    async def list_review_comments_of_review(
        self, repo: str, number: int, review_id: int
    ) -> list[ReviewComment]:
        owner, name = split_repo(repo)
        url = f"/repos/{owner}/{name}/pulls/{number}/reviews/{review_id}/comments"
        found = await self._list(url, f"review {review_id} comments")
        return [ReviewComment.from_json(item) for item in found]

    async def create_review(
        self,
        repo: str,
        number: int,
        *,
        commit_id: str,
        body: str,
        comments: Sequence[DraftComment] = (),
        event: ReviewEvent = "COMMENT",
    ) -> Review:
        """Post one review with all its comments in ONE request; a comment off the diff → Rejected."""
        owner, name = split_repo(repo)
        payload = {
            "commit_id": commit_id,
            "body": body,
            "event": event,
            "comments": [comment.to_json() for comment in comments],
        }
        url = f"/repos/{owner}/{name}/pulls/{number}/reviews"
        return Review.from_json(await self._json("POST", url, f"{repo}#{number} review", payload))

    async def reply_to_review_comment(
        self, repo: str, number: int, comment_id: int, body: str
    ) -> ReviewComment:
        owner, name = split_repo(repo)
        url = f"/repos/{owner}/{name}/pulls/{number}/comments/{comment_id}/replies"
        data = await self._json("POST", url, f"review comment {comment_id}", {"body": body})
        return ReviewComment.from_json(data)

    async def create_issue_comment(self, repo: str, number: int, body: str) -> IssueComment:
        owner, name = split_repo(repo)
        url = f"/repos/{owner}/{name}/issues/{number}/comments"
        data = await self._json("POST", url, f"{repo}#{number} comment", {"body": body})
        return IssueComment.from_json(data)

    async def list_issue_comments(self, repo: str, number: int) -> list[IssueComment]:
        owner, name = split_repo(repo)
        url = f"/repos/{owner}/{name}/issues/{number}/comments"
        found = await self._list(url, f"{repo}#{number} comments")
        return [IssueComment.from_json(item) for item in found]

    async def compare(self, repo: str, base: str, head: str) -> Comparison:
        """``base...head``: commits and files head has that base lacks (first page, one request)."""
        owner, name = split_repo(repo)
        url = f"/repos/{owner}/{name}/compare/{base}...{head}"
        return Comparison.from_json(await self._json("GET", url, f"{repo} {base}...{head}"))

    async def get_tree(self, repo: str, ref: str) -> GitTree:
        """The whole tree of a commit, in one request (``recursive=1``)."""
        owner, name = split_repo(repo)
        url = f"/repos/{owner}/{name}/git/trees/{ref}"
        response = await self._send("GET", url, what=f"{repo} tree {ref}", params={"recursive": 1})
        return GitTree.from_json(response.json())

    async def get_text(self, repo: str, path: str, ref: str) -> str | None:
        """A file's text at ``ref``; None when it cannot be read as text (absent, a folder, over
        GitHub's size limit, or not UTF-8)."""
        owner, name = split_repo(repo)
        url = f"/repos/{owner}/{name}/contents/{quote(path)}"
        try:
            response = await self._send("GET", url, what=f"{repo} {path}", params={"ref": ref})
        except Gone:
            return None
        data = response.json()
        if not isinstance(data, Mapping) or data.get("type") != "file":
            return None
        if data.get("encoding") != "base64" or not isinstance(data.get("content"), str):
            return None
        try:
            return base64.b64decode(data["content"]).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return None

    async def add_reaction(
        self,
        repo: str,
        comment_id: int,
        content: str,
        *,
        on: Literal["review_comment", "issue_comment"] = "review_comment",
    ) -> GitHubReaction:
        owner, name = split_repo(repo)
        kind = "pulls" if on == "review_comment" else "issues"
        url = f"/repos/{owner}/{name}/{kind}/comments/{comment_id}/reactions"
        data = await self._json("POST", url, f"{on} {comment_id}", {"content": content})
        return GitHubReaction.from_json(data)

    async def pull_threads(self, repo: str, number: int) -> PullThreads:
        """Every review thread of a pull request with its comments, reactions and resolution, and
        the pull request's head, author and merge: one GraphQL request per 100 threads."""
        owner, name = split_repo(repo)
        url = graphql_url(self.app.base_url)
        what = f"{repo}#{number} review threads"
        threads: list[ReviewThread] = []
        unreadable = 0
        cursor: str | None = None
        first: PullThreads | None = None
        while True:
            variables = {"owner": owner, "name": name, "number": number, "first": PER_PAGE}
            query = {"query": REVIEW_THREADS_QUERY, "variables": {**variables, "cursor": cursor}}
            data = await self._json("POST", url, what, query)
            page, cursor = parse_page(data, what, self.app.now())
            first = first or page
            threads.extend(page.threads)
            unreadable += page.unreadable
            if cursor is None:
                return replace(first, threads=tuple(threads), unreadable=unreadable)

    async def review_threads(self, repo: str, number: int) -> list[ReviewThread]:
        """Every review thread of a pull request (see `pull_threads`)."""
        return list((await self.pull_threads(repo, number)).threads)

    async def collaborator_permission(self, repo: str, login: str) -> str:
        """What a person may do in a repository: `admin`, `maintain`, `write`, `triage`, `read` or
        `none` (an unknown login: `none`)."""
        owner, name = split_repo(repo)
        url = f"/repos/{owner}/{name}/collaborators/{login}/permission"
        try:
            data = await self._json("GET", url, f"{repo} permission of {login}")
        except Gone:
            return "none"
        permission = data.get("permission") if isinstance(data, Mapping) else None
        return permission if isinstance(permission, str) and permission else "none"

    async def edit_review_comment(self, repo: str, comment_id: int, body: str) -> ReviewComment:
        """Rewrite the body of a review comment (the app edits only its own)."""
        owner, name = split_repo(repo)
        url = f"/repos/{owner}/{name}/pulls/comments/{comment_id}"
        data = await self._json("PATCH", url, f"review comment {comment_id}", {"body": body})
        return ReviewComment.from_json(data)


def _page_items(response: httpx.Response, key: str | None) -> list[Any]:
    page = response.json()
    found = page[key] if key is not None else page
    if not isinstance(found, list):
        raise Transient(f"GitHub answered a list page with {type(found).__name__}")
    return found


def numbered_pages(next_url: str | None, last_url: str | None) -> list[str]:
    """The URLs of pages 2…N when ``next_url`` is page 2 and ``last_url`` page N of the same
    list (everything else equal); none otherwise (cursor pagination, or links out of shape)."""
    if next_url is None or last_url is None:
        return []
    following, last = httpx.URL(next_url), httpx.URL(last_url)
    try:
        second, final = int(following.params["page"]), int(last.params["page"])
    except (KeyError, ValueError):
        return []
    same = following.copy_remove_param("page") == last.copy_remove_param("page")
    if not same or second != 2 or not 2 <= final <= MAX_NUMBERED_PAGES:
        return []
    return [str(following.copy_set_param("page", n)) for n in range(2, final + 1)]
