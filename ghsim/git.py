"""The git trees and contents endpoints, served from the trees of ``trees.py``."""

from __future__ import annotations

import base64

from starlette.responses import Response

from ghsim import trees as limits
from ghsim.endpoint import Call, Context, json_response
from ghsim.model import ApiError
from ghsim.pulls import resolve
from ghsim.shapes import HTML_URL
from ghsim.trees import blob_sha, tree_of


def git_tree(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    with ctx.world.lock:
        repo = ctx.world.repo(name)
        sha = resolve(ctx.world, repo, str(call.params["sha"]))
        tree = tree_of(ctx.world, sha)
        recursive = call.query.get("recursive") not in (None, "", "0", "false")
        paths = sorted(tree) if recursive else sorted(p for p in tree if "/" not in p)
        entries = [
            {
                "path": path,
                "mode": "100644",
                "type": "blob",
                "sha": blob_sha(tree[path]),
                "size": len(tree[path].encode()),
            }
            for path in paths[: limits.TREE_LIMIT]
        ]
        content = {"sha": sha, "tree": entries, "truncated": len(paths) > limits.TREE_LIMIT}
        return json_response(content)


def contents(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    path = str(call.params["path"]).strip("/")
    with ctx.world.lock:
        repo = ctx.world.repo(name)
        ref = call.query.get("ref") or repo.default_branch
        sha = resolve(ctx.world, repo, ref)
        tree = tree_of(ctx.world, sha)
        if path not in tree:
            raise ApiError(404, "Not Found")
        text = tree[path]
        data = text.encode()
        large = len(data) > limits.CONTENTS_LIMIT
        api = f"{ctx.shapes.api}/repos/{name}"
        url = f"{api}/contents/{path}?ref={ref}"
        git_url = f"{api}/git/blobs/{blob_sha(text)}"
        html_url = f"{HTML_URL}/{name}/blob/{ref}/{path}"
        content = {
            "type": "file",
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "sha": blob_sha(text),
            "size": len(data),
            "encoding": "none" if large else "base64",
            "content": "" if large else base64.b64encode(data).decode(),
            "url": url,
            "git_url": git_url,
            "html_url": html_url,
            "download_url": f"https://raw.githubusercontent.com/{name}/{ref}/{path}",
            "_links": {"self": url, "git": git_url, "html": html_url},
        }
        return json_response(content)
