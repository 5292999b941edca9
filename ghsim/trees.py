"""The files of each commit: trees, their differences, and pushes to a branch."""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Mapping

from ghsim.model import ApiError, FileChange, Repository
from ghsim.state import World

# GitHub's limits: a recursive tree lists at most this many entries (then `truncated`), compare
# lists at most this many files, and contents serves files up to this many bytes.
TREE_LIMIT = 100_000
COMPARE_FILE_LIMIT = 300
CONTENTS_LIMIT = 1_000_000

Tree = dict[str, str]


def blob_sha(content: str) -> str:
    """Git's object id of a blob holding ``content``."""
    data = content.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def tree_of(world: World, sha: str) -> Tree:
    """The files at commit ``sha``: its own recorded tree, or its first parent's (a commit made
    without files changes none the simulator tracks)."""
    with world.lock:
        current: str | None = sha
        while current is not None:
            if current in world.trees:
                return world.trees[current]
            parents = world.commits[current].parents if current in world.commits else []
            current = parents[0] if parents else None
        return {}


def has_tree(world: World, sha: str) -> bool:
    return any(s in world.trees for s in _first_parents(world, sha))


def _first_parents(world: World, sha: str) -> list[str]:
    chain: list[str] = []
    current: str | None = sha
    while current is not None and current in world.commits:
        chain.append(current)
        parents = world.commits[current].parents
        current = parents[0] if parents else None
    return chain


def unified_patch(before: str, after: str) -> str | None:
    """GitHub's ``patch`` of a file: the hunks of a unified diff, without the file headers."""
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=3))
    return "\n".join(lines[2:]) or None


def diff_trees(before: Tree, after: Tree) -> list[FileChange]:
    """The files changed between two trees, as compare lists them; a removed file whose content
    reappears at an added path is a rename."""
    added = {path: content for path, content in after.items() if path not in before}
    changes: list[FileChange] = []
    for path in sorted(before):
        old = before[path]
        if path in after:
            if after[path] != old:
                changes.append(FileChange(path, unified_patch(old, after[path])))
            continue
        target = next((p for p, text in sorted(added.items()) if text == old), None)
        if target is not None:
            del added[target]
            changes.append(FileChange(target, None, status="renamed", previous_filename=path))
        else:
            changes.append(FileChange(path, unified_patch(old, ""), status="removed"))
    changes.extend(
        FileChange(path, unified_patch("", text), status="added") for path, text in added.items()
    )
    return changes


def push(
    world: World,
    full_name: str,
    *,
    files: Mapping[str, str | None],
    renames: Mapping[str, str],
    branch: str | None,
    parent: str | None,
    message: str,
) -> tuple[Repository, str, str]:
    """One commit on ``branch`` (default: the default branch): ``renames`` move files, ``files``
    set (or, with None, delete) contents. ``parent`` other than the branch head is a force-push.
    Answers the repository, the branch's previous head and the new commit."""
    with world.lock:
        repo = world.repo(full_name)
        branch = branch or repo.default_branch
        before = repo.branches.get(branch) or repo.branches[repo.default_branch]
        base = parent or before
        old = tree_of(world, base)
        tree = dict(old)
        for source, target in renames.items():
            if source not in tree:
                raise ApiError(422, "Validation Failed", [f"{source} does not exist"])
            tree[target] = tree.pop(source)
        for path, content in files.items():
            if content is None:
                tree.pop(path, None)
            else:
                tree[path] = content
        after = world.add_commit(repo, parents=[base], files=diff_trees(old, tree), message=message)
        world.trees[after] = tree
        repo.branches[branch] = after
        return repo, before, after


def changed_files(world: World, base: str, head: str) -> list[FileChange] | None:
    """The files between two commits with recorded trees (None: not both recorded)."""
    if not (has_tree(world, base) and has_tree(world, head)):
        return None
    return diff_trees(tree_of(world, base), tree_of(world, head))
