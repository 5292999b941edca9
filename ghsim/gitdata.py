"""GitHub's Git Data API and pull request creation: trees, commits, refs, `POST …/pulls`.

Trees are the simulator's file maps (path → text) named by a hash of their entries; a commit made
here records its tree, so contents, compare and later trees read what it wrote. Writes need the
installation's `contents: write` (403 otherwise, as GitHub answers an integration without it), a
ref moved by anyone else is refused unless forced (422 "Update is not a fast forward"), and a
protected branch refuses every ref write (422).
"""

from __future__ import annotations

import hashlib
from typing import Any

from starlette.responses import Response

from ghsim.endpoint import Call, Context, json_response
from ghsim.model import ApiError, Commit, Repository
from ghsim.pulls import ancestry, create_pull, resolve
from ghsim.shapes import HTML_URL, iso
from ghsim.trees import Tree, blob_sha, diff_trees, tree_of

Json = dict[str, Any]
NO_PERMISSION = "Resource not accessible by integration"


def tree_sha(tree: Tree) -> str:
    """The object id of a tree of files (stable for equal trees)."""
    entries = "".join(f"100644 {path}\0{blob_sha(text)}\n" for path, text in sorted(tree.items()))
    return hashlib.sha1(b"tree " + entries.encode()).hexdigest()


def tree_of_commit(ctx: Context, sha: str) -> tuple[str, Tree]:
    """A commit's tree, registered under its object id."""
    tree = dict(tree_of(ctx.world, sha))
    sha_of_tree = tree_sha(tree)
    ctx.world.tree_objects[sha_of_tree] = tree
    return sha_of_tree, tree


def _writable(ctx: Context, call: Call) -> tuple[str, Repository]:
    name = ctx.require_repo(call)
    installation = ctx.require_installation(call)
    if installation.permissions.get("contents") != "write":
        raise ApiError(403, NO_PERMISSION)
    return name, ctx.world.repo(name)


def _person(commit: Commit) -> Json:
    email = f"{commit.author_name}@users.noreply.github.com"
    return {"name": commit.author_name, "email": email, "date": iso(commit.at)}


def _git_commit(ctx: Context, name: str, commit: Commit) -> Json:
    api = f"{ctx.shapes.api}/repos/{name}"
    sha_of_tree, _ = tree_of_commit(ctx, commit.sha)
    return {
        "sha": commit.sha,
        "node_id": f"C_{commit.sha[:16]}",
        "url": f"{api}/git/commits/{commit.sha}",
        "html_url": f"{HTML_URL}/{name}/commit/{commit.sha}",
        "author": _person(commit),
        "committer": _person(commit),
        "message": commit.message,
        "tree": {"sha": sha_of_tree, "url": f"{api}/git/trees/{sha_of_tree}"},
        "parents": [
            {
                "sha": parent,
                "url": f"{api}/git/commits/{parent}",
                "html_url": f"{HTML_URL}/{name}/commit/{parent}",
            }
            for parent in commit.parents
        ],
        "verification": {
            "verified": False,
            "reason": "unsigned",
            "signature": None,
            "payload": None,
            "verified_at": None,
        },
    }


def get_commit(ctx: Context, call: Call) -> Response:
    """`GET …/commits/{ref}`: a commit by sha or branch name; 422 for a ref that names none."""
    name = ctx.require_repo(call)
    with ctx.world.lock:
        repo = ctx.world.repo(name)
        ref = str(call.params["ref"])
        try:
            sha = resolve(ctx.world, repo, ref)
        except ApiError:
            raise ApiError(422, f"No commit found for SHA: {ref}") from None
        commit = ctx.world.commits[sha]
        git = _git_commit(ctx, name, commit)
        api = f"{ctx.shapes.api}/repos/{name}"
        author = ctx.shapes.user(commit.author) if commit.author is not None else None
        content = {
            "url": f"{api}/commits/{sha}",
            "sha": sha,
            "node_id": git["node_id"],
            "html_url": git["html_url"],
            "comments_url": f"{api}/commits/{sha}/comments",
            "commit": {
                "url": git["url"],
                "author": git["author"],
                "committer": git["committer"],
                "message": commit.message,
                "comment_count": 0,
                "tree": git["tree"],
            },
            "author": author,
            "committer": author,
            "parents": [
                {"sha": p["sha"], "url": f"{api}/commits/{p['sha']}", "html_url": p["html_url"]}
                for p in git["parents"]
            ],
        }
        return json_response(content)


def _entry_text(ctx: Context, entry: Any) -> str | None:
    """What one `tree` entry writes: its text, or None to remove the path."""
    if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
        raise ApiError(422, "Invalid tree info", ["each entry needs a path"])
    if (
        entry.get("mode", "100644") not in ("100644", "100755")
        or entry.get("type", "blob") != "blob"
    ):
        raise ApiError(422, "Invalid tree info", ["only file blobs are written here"])
    if "content" in entry:
        if not isinstance(entry["content"], str):
            raise ApiError(422, "Invalid tree info", ["content must be a string"])
        return str(entry["content"])
    sha = entry.get("sha", "")
    if sha is None:
        return None
    found = next((text for text in ctx.world.tree_texts() if blob_sha(text) == sha), None)
    if found is None:
        raise ApiError(422, "Invalid tree info", [f"{sha} is not a blob"])
    return found


def create_tree(ctx: Context, call: Call) -> Response:
    name, _repo = _writable(ctx, call)
    entries, base = call.field("tree"), call.field("base_tree")
    if not isinstance(entries, list):
        raise ApiError(422, "Invalid request.", ["tree must be an array"])
    with ctx.world.lock:
        if base is not None and base not in ctx.world.tree_objects:
            raise ApiError(422, "Invalid request.", ["base_tree is not a valid tree oid"])
        tree = dict(ctx.world.tree_objects[base]) if base is not None else {}
        for entry in entries:
            text = _entry_text(ctx, entry)
            path = str(entry["path"]).strip("/")
            if text is None:
                tree.pop(path, None)
            else:
                tree[path] = text
        sha = tree_sha(tree)
        ctx.world.tree_objects[sha] = tree
    api = f"{ctx.shapes.api}/repos/{name}/git"
    listed = [
        {
            "path": path,
            "mode": "100644",
            "type": "blob",
            "sha": blob_sha(text),
            "size": len(text.encode()),
            "url": f"{api}/blobs/{blob_sha(text)}",
        }
        for path, text in sorted(tree.items())
        if "/" not in path
    ]
    content = {"sha": sha, "url": f"{api}/trees/{sha}", "tree": listed, "truncated": False}
    return json_response(content, status=201)


def create_commit(ctx: Context, call: Call) -> Response:
    name, repo = _writable(ctx, call)
    message, tree, parents = call.field("message"), call.field("tree"), call.field("parents")
    if not isinstance(message, str) or not isinstance(tree, str):
        raise ApiError(422, "Invalid request.", ["message and tree are required"])
    if not isinstance(parents, list) or not all(isinstance(p, str) for p in parents):
        raise ApiError(422, "Invalid request.", ["parents must be an array of shas"])
    with ctx.world.lock:
        if tree not in ctx.world.tree_objects:
            raise ApiError(422, "Tree SHA does not exist")
        if any(parent not in ctx.world.commits for parent in parents):
            raise ApiError(422, "Parent SHA does not exist or is not a commit object")
        files = ctx.world.tree_objects[tree]
        before = tree_of(ctx.world, parents[0]) if parents else {}
        sha = ctx.world.add_commit(
            repo,
            parents=list(parents),
            files=diff_trees(dict(before), dict(files)),
            message=message,
            author=ctx.world.bot,
        )
        ctx.world.trees[sha] = dict(files)
        return json_response(_git_commit(ctx, name, ctx.world.commits[sha]), status=201)


def _ref_json(ctx: Context, name: str, ref: str, sha: str) -> Json:
    api = f"{ctx.shapes.api}/repos/{name}/git"
    return {
        "ref": ref,
        "node_id": f"REF_{hashlib.sha1(ref.encode()).hexdigest()[:16]}",
        "url": f"{api}/refs/{ref.removeprefix('refs/')}",
        "object": {"type": "commit", "sha": sha, "url": f"{api}/commits/{sha}"},
    }


def _branch(ref: str) -> str:
    if not ref.startswith("heads/") or ref == "heads/":
        raise ApiError(422, "Reference does not exist")
    return ref.removeprefix("heads/")


def _unprotected(ctx: Context, name: str, branch: str) -> None:
    if (name.lower(), branch) in ctx.world.protected_branches:
        raise ApiError(422, f"Protected branch update failed for refs/heads/{branch}.")


def get_ref(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    ref = str(call.params["ref"])
    with ctx.world.lock:
        repo = ctx.world.repo(name)
        branch = ref.removeprefix("heads/") if ref.startswith("heads/") else None
        if branch is None or branch not in repo.branches:
            raise ApiError(404, "Not Found")
        return json_response(_ref_json(ctx, name, f"refs/{ref}", repo.branches[branch]))


def create_ref(ctx: Context, call: Call) -> Response:
    name, repo = _writable(ctx, call)
    ref, sha = call.field("ref"), call.field("sha")
    if not isinstance(ref, str) or not isinstance(sha, str) or not ref.startswith("refs/"):
        raise ApiError(422, "Reference name must start with 'refs/' and a sha is required")
    branch = _branch(ref.removeprefix("refs/"))
    with ctx.world.lock:
        _unprotected(ctx, name, branch)
        if branch in repo.branches:
            raise ApiError(422, "Reference already exists")
        if sha not in ctx.world.commits:
            raise ApiError(422, "Object does not exist")
        repo.branches[branch] = sha
        return json_response(_ref_json(ctx, name, ref, sha), status=201)


def update_ref(ctx: Context, call: Call) -> Response:
    name, repo = _writable(ctx, call)
    branch = _branch(str(call.params["ref"]))
    if call.request.method == "DELETE":
        with ctx.world.lock:
            _unprotected(ctx, name, branch)
            if branch not in repo.branches or branch == repo.default_branch:
                raise ApiError(422, "Reference does not exist")
            del repo.branches[branch]
        return Response(status_code=204)
    sha, force = call.field("sha"), call.field("force") is True
    if not isinstance(sha, str):
        raise ApiError(422, "Invalid request.", ["sha is required"])
    with ctx.world.lock:
        _unprotected(ctx, name, branch)
        if branch not in repo.branches:
            raise ApiError(422, "Reference does not exist")
        if sha not in ctx.world.commits:
            raise ApiError(422, "Object does not exist")
        if not force and repo.branches[branch] not in ancestry(ctx.world, sha):
            raise ApiError(422, "Update is not a fast forward")
        repo.branches[branch] = sha
        return json_response(_ref_json(ctx, name, f"refs/heads/{branch}", sha))


def open_pull_request(ctx: Context, call: Call) -> Response:
    """`POST …/pulls`: a pull request from a branch of the repository into another."""
    name = ctx.require_repo(call)
    title, head, base = call.field("title"), call.field("head"), call.field("base")
    body = call.field("body")
    if not all(isinstance(value, str) and value for value in (title, head, base)):
        raise ApiError(422, "Validation Failed", [{"resource": "PullRequest", "code": "missing"}])
    if body is not None and not isinstance(body, str):
        raise ApiError(422, "Validation Failed", [{"field": "body", "code": "invalid"}])
    with ctx.world.lock:
        pull = create_pull(
            ctx.world, name, title=str(title), body=body, head=str(head), base=str(base)
        )
        return json_response(ctx.shapes.pull(pull), status=201)
