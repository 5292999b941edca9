"""Pull requests and their commits: open, push, close, reopen, and compare two refs."""

from __future__ import annotations

from dataclasses import dataclass

from ghsim.model import ApiError, Commit, FileChange, PullRequest, Repository
from ghsim.state import Files, World, as_files, check_association, node_id
from ghsim.trees import changed_files, diff_trees, has_tree, tree_of


@dataclass(frozen=True)
class Comparison:
    base_sha: str
    head_sha: str
    merge_base: str
    status: str
    ahead_by: int
    behind_by: int
    commits: list[Commit]
    files: list[FileChange]


def open_pull(
    world: World,
    full_name: str,
    *,
    title: str,
    body: str | None,
    author: str,
    author_association: str,
    files: Files,
    head_ref: str | None,
    base_ref: str | None,
    draft: bool,
    head_sha: str | None,
    head_repo: str | None = None,
) -> PullRequest:
    check_association(author_association)
    with world.lock:
        repo = world.repo(full_name)
        fork = world.repo(head_repo) if head_repo is not None else repo
        user = world.account(author)
        world.numbers[repo.full_name] += 1
        number = world.numbers[repo.full_name]
        base_ref = base_ref or repo.default_branch
        base_sha = repo.branches.setdefault(base_ref, repo.branches[repo.default_branch])
        changes = as_files(files)
        head = world.add_commit(
            repo, parents=[base_sha], files=changes, message=title, author=user, sha=head_sha
        )
        head_ref = head_ref or f"change-{number}"
        fork.branches[head_ref] = head
        pull_id = world.next_id()
        now = world.now()
        pull = PullRequest(
            id=pull_id,
            node_id=node_id("PullRequest", pull_id),
            repo=repo.full_name,
            number=number,
            title=title,
            body=body,
            user=user,
            author_association=author_association,
            head_ref=head_ref,
            head_sha=head,
            base_ref=base_ref,
            base_sha=base_sha,
            draft=draft,
            created_at=now,
            updated_at=now,
            files_by_sha={head: changes},
            head_repo=fork.full_name if fork is not repo else None,
        )
        world.pulls[(repo.full_name, number)] = pull
        return pull


def create_pull(
    world: World, full_name: str, *, title: str, body: str | None, head: str, base: str
) -> PullRequest:
    """A pull request the app opens (`POST …/pulls`) from a branch of the repository, as GitHub
    validates it: both branches exist, one pull request per head, and head has commits base lacks."""
    with world.lock:
        repo = world.repo(full_name)
        head_ref = head.split(":", 1)[1] if ":" in head else head
        if head_ref not in repo.branches or base not in repo.branches:
            field = "head" if head_ref not in repo.branches else "base"
            raise ApiError(
                422,
                "Validation Failed",
                [{"resource": "PullRequest", "field": field, "code": "invalid"}],
            )
        for other in world.pulls.values():
            if (
                other.repo == repo.full_name
                and other.head_ref == head_ref
                and other.state == "open"
            ):
                message = f"A pull request already exists for {repo.owner.login}:{head_ref}."
                raise ApiError(
                    422,
                    "Validation Failed",
                    [{"resource": "PullRequest", "code": "custom", "message": message}],
                )
        head_sha, base_sha = repo.branches[head_ref], repo.branches[base]
        if head_sha in ancestry(world, base_sha):
            message = f"No commits between {base} and {head_ref}"
            raise ApiError(
                422,
                "Validation Failed",
                [{"resource": "PullRequest", "code": "custom", "message": message}],
            )
        files = changed_files(world, base_sha, head_sha)
        if files is None:
            files = list(world.commits[head_sha].files)
        world.numbers[repo.full_name] += 1
        number = world.numbers[repo.full_name]
        pull_id = world.next_id()
        now = world.now()
        pull = PullRequest(
            id=pull_id,
            node_id=node_id("PullRequest", pull_id),
            repo=repo.full_name,
            number=number,
            title=title,
            body=body,
            user=world.bot,
            author_association="NONE",
            head_ref=head_ref,
            head_sha=head_sha,
            base_ref=base,
            base_sha=base_sha,
            draft=False,
            created_at=now,
            updated_at=now,
            files_by_sha={head_sha: files},
        )
        world.pulls[(repo.full_name, number)] = pull
        return pull


def synchronize(
    world: World,
    full_name: str,
    number: int,
    files: Files | None,
    head_sha: str | None,
    author: str | None = None,
    rewrite: bool = False,
) -> tuple[str, str]:
    """Push a commit to the head branch; ``files`` is the pull request's whole new diff.

    The commit is authored by the PR's author unless ``author`` (a login) says otherwise.
    ``rewrite`` force-pushes a history that shares nothing with the old head (a comparison
    between them then answers 404, as GitHub's does).
    """
    with world.lock:
        pull = world.pull(full_name, number)
        repo = world.repo(full_name)
        changes = as_files(files) if files is not None else list(pull.files)
        before = pull.head_sha
        after = world.add_commit(
            repo,
            parents=[] if rewrite else [before],
            files=changes,
            message=f"Update {pull.head_ref}",
            author=world.account(author) if author else pull.user,
            sha=head_sha,
        )
        pull.files_by_sha[after] = changes
        pull.head_sha = after
        repo.branches[pull.head_ref] = after
        pull.updated_at = world.now()
        return before, after


def close(
    world: World, full_name: str, number: int, *, merged: bool, by: str | None
) -> PullRequest:
    with world.lock:
        pull = world.pull(full_name, number)
        repo = world.repo(full_name)
        now = world.now()
        pull.state = "closed"
        pull.closed_at = now
        pull.updated_at = now
        if merged:
            merge = world.add_commit(
                repo,
                parents=[repo.branches[pull.base_ref], pull.head_sha],
                files=list(pull.files),
                message=f"Merge pull request #{number}",
                author=world.account(by) if by else pull.user,
            )
            if has_tree(world, pull.head_sha):
                world.trees[merge] = _merged_tree(world, pull, repo.branches[pull.base_ref])
            repo.branches[pull.base_ref] = merge
            pull.merged = True
            pull.merged_at = now
            pull.merge_commit_sha = merge
            pull.merged_by = world.account(by) if by else repo.owner
        return pull


def _merged_tree(world: World, pull: PullRequest, base_head: str) -> dict[str, str]:
    """The files of a merge: the base branch's, with what the pull request changed since it
    branched off."""
    tree = dict(tree_of(world, base_head))
    head = tree_of(world, pull.head_sha)
    for change in diff_trees(tree_of(world, pull.base_sha), head):
        if change.status == "removed":
            tree.pop(change.filename, None)
        else:
            if change.previous_filename is not None:
                tree.pop(change.previous_filename, None)
            tree[change.filename] = head[change.filename]
    return tree


def reopen(world: World, full_name: str, number: int) -> PullRequest:
    with world.lock:
        pull = world.pull(full_name, number)
        if pull.merged:
            raise ApiError(422, "Validation Failed", ["merged pull requests cannot reopen"])
        pull.state = "open"
        pull.closed_at = None
        pull.updated_at = world.now()
        return pull


def resolve(world: World, repo: Repository, ref: str) -> str:
    with world.lock:
        if ref in repo.branches:
            return repo.branches[ref]
        if ref in world.commits:
            return ref
        if len(ref) >= 7:
            matches = [sha for sha in world.commits if sha.startswith(ref)]
            if len(matches) == 1:
                return matches[0]
        raise ApiError(404, "Not Found")


def ancestry(world: World, sha: str) -> list[str]:
    """``sha`` and every commit reachable from it through any parent, nearest first."""
    order: list[str] = []
    seen: set[str] = set()
    queue = [sha]
    while queue:
        current = queue.pop(0)
        if current in seen or current not in world.commits:
            continue
        seen.add(current)
        order.append(current)
        queue.extend(world.commits[current].parents)
    return order


def compare(world: World, full_name: str, base: str, head: str) -> Comparison:
    """What ``head`` has that ``base`` lacks, as ``GET …/compare`` answers: the commits reachable
    from head and not from base, and the files changed from their merge base to head."""
    with world.lock:
        repo = world.repo(full_name)
        base_sha = resolve(world, repo, base)
        head_sha = resolve(world, repo, head)
        base_order = ancestry(world, base_sha)
        head_order = ancestry(world, head_sha)
        base_set, head_set = set(base_order), set(head_order)
        common = next((sha for sha in head_order if sha in base_set), None)
        if common is None:
            raise ApiError(404, "Not Found")
        ahead = [sha for sha in head_order if sha not in base_set]
        behind_by = sum(1 for sha in base_order if sha not in head_set)
        commits = [world.commits[sha] for sha in reversed(ahead)]
        files = changed_files(world, common, head_sha)
        if files is None:
            by_name: dict[str, FileChange] = {}
            for commit in commits:
                for change in commit.files:
                    by_name[change.filename] = change
            files = list(by_name.values())
        if head_sha == base_sha:
            status = "identical"
        elif not ahead:
            status = "behind"
        elif behind_by == 0:
            status = "ahead"
        else:
            status = "diverged"
        return Comparison(base_sha, head_sha, common, status, len(ahead), behind_by, commits, files)
