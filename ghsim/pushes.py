"""Driving the simulator's branches: the files of the default branch and pushes with their webhook."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ghsim import trees

if TYPE_CHECKING:
    from ghsim.state import World
    from ghsim.webhooks import Payloads


class PushDriver:
    """Mixed into ``GitHubSimulator``: pushes commits of files and delivers their ``push``."""

    world: World
    payloads: Payloads

    def _emit_event(self, event: str, payload: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def push(
        self,
        repo: str,
        files: Mapping[str, str | None] | None = None,
        *,
        renames: Mapping[str, str] | None = None,
        branch: str | None = None,
        parent: str | None = None,
        message: str = "Update files",
    ) -> str:
        """Commit ``files`` (None deletes a file) and ``renames`` (old → new path) on ``branch``
        (the default branch by default) and deliver ``push``. ``parent`` other than the branch's
        head makes it a force-push. Answers the new commit's sha."""
        found, before, after = trees.push(
            self.world,
            repo,
            files=files or {},
            renames=renames or {},
            branch=branch,
            parent=parent,
            message=message,
        )
        ref = f"refs/heads/{branch or found.default_branch}"
        forced = parent is not None and parent != before
        payload = self.payloads.push(repo, ref=ref, before=before, after=after, forced=forced)
        self._emit_event("push", payload)
        return after

    def files_at(self, repo: str, ref: str | None = None) -> dict[str, str]:
        """The files of ``ref`` (default: the default branch's head)."""
        with self.world.lock:
            found = self.world.repo(repo)
            sha = found.branches.get(ref or found.default_branch, ref or "")
            return dict(trees.tree_of(self.world, sha))
