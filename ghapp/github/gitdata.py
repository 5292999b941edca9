"""GitHub's Git Data API as one installation: a branch's head, a tree, a commit, refs, a pull request.

Everything a fix PR writes goes through these calls; nothing is cloned or checked out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ghapp.github.errors import Gone, Rejected
from ghapp.github.installation import InstallationClient
from ghapp.github.values import PullRequest, split_repo

FILE_MODE = "100644"


@dataclass(frozen=True, slots=True)
class BranchHead:
    """The commit a branch (or a sha) names now, and its tree."""

    sha: str
    tree_sha: str


def _ref_path(branch: str) -> str:
    return quote(f"heads/{branch}", safe="/")


def _text(data: Any, *keys: str) -> str:
    for key in keys:
        data = data.get(key) if isinstance(data, Mapping) else None
    if not isinstance(data, str) or not data:
        raise Rejected(200, "a Git Data answer", f"it lacks {'.'.join(keys)}")
    return data


async def branch_head(client: InstallationClient, repo: str, ref: str) -> BranchHead | None:
    """`GET …/commits/{ref}`: the commit and tree a branch names now; None when the branch is
    gone (GitHub answers 404 or 422 for a ref that names no commit)."""
    owner, name = split_repo(repo)
    url = f"/repos/{owner}/{name}/commits/{quote(ref, safe='/')}"
    try:
        data = await client._json("GET", url, f"{repo} commit {ref}")
    except Gone:
        return None
    except Rejected as exc:
        if exc.status == 422:
            return None
        raise
    return BranchHead(sha=_text(data, "sha"), tree_sha=_text(data, "commit", "tree", "sha"))


async def create_tree(
    client: InstallationClient, repo: str, *, base_tree: str, files: Mapping[str, str]
) -> str:
    """`POST …/git/trees`: `base_tree` with `files` (path → text) written; the new tree's sha.
    Each file's text goes in the tree entry, so GitHub writes its blob in the same request."""
    owner, name = split_repo(repo)
    payload = {
        "base_tree": base_tree,
        "tree": [
            {"path": path, "mode": FILE_MODE, "type": "blob", "content": text}
            for path, text in files.items()
        ],
    }
    data = await client._json("POST", f"/repos/{owner}/{name}/git/trees", f"{repo} tree", payload)
    return _text(data, "sha")


async def create_commit(
    client: InstallationClient, repo: str, *, message: str, tree: str, parent: str
) -> str:
    """`POST …/git/commits`: one commit of `tree` on `parent`; its sha."""
    owner, name = split_repo(repo)
    payload = {"message": message, "tree": tree, "parents": [parent]}
    url = f"/repos/{owner}/{name}/git/commits"
    return _text(await client._json("POST", url, f"{repo} commit", payload), "sha")


async def create_branch(client: InstallationClient, repo: str, branch: str, sha: str) -> bool:
    """`POST …/git/refs`: a new branch at `sha`; False when the branch already exists."""
    owner, name = split_repo(repo)
    payload = {"ref": f"refs/heads/{branch}", "sha": sha}
    try:
        await client._json("POST", f"/repos/{owner}/{name}/git/refs", f"{repo} {branch}", payload)
    except Rejected as exc:
        if exc.status == 422 and "already exists" in exc.message.lower():
            return False
        raise
    return True


async def move_branch(
    client: InstallationClient, repo: str, branch: str, sha: str, *, force: bool
) -> None:
    """`PATCH …/git/refs/heads/{branch}`: point the branch at `sha` (422 when it moved and
    `force` is off, or the branch is protected)."""
    owner, name = split_repo(repo)
    url = f"/repos/{owner}/{name}/git/refs/{_ref_path(branch)}"
    await client._json("PATCH", url, f"{repo} {branch}", {"sha": sha, "force": force})


async def delete_branch(client: InstallationClient, repo: str, branch: str) -> bool:
    """`DELETE …/git/refs/heads/{branch}`; False when it was already gone."""
    owner, name = split_repo(repo)
    url = f"/repos/{owner}/{name}/git/refs/{_ref_path(branch)}"
    try:
        await client._send("DELETE", url, what=f"{repo} {branch}")
    except Gone:
        return False
    except Rejected as exc:
        if exc.status == 422 and "does not exist" in exc.message.lower():
            return False
        raise
    return True


async def open_pull(
    client: InstallationClient, repo: str, *, title: str, head: str, base: str, body: str
) -> PullRequest:
    """`POST …/pulls`: a pull request from branch `head` into `base` of the same repository."""
    owner, name = split_repo(repo)
    payload = {"title": title, "head": head, "base": base, "body": body}
    data = await client._json("POST", f"/repos/{owner}/{name}/pulls", f"{repo} pull", payload)
    return PullRequest.from_json(repo, data)
