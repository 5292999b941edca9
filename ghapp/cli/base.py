"""What every command shares that costs no import: the errors a person can fix, the subparsers a
command registers on, and the repository of the checkout a command runs in (its git remote)."""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path
from typing import TypeAlias

# What a command group registers its commands on: the `hindsight` parser's subparsers.
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

REMOTE = re.compile(r"(?:[:/])(?P<owner>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_.-]+?)(?:\.git)?/?$")


class CliError(Exception):
    """A problem the user can fix; the message says how."""


def repo_from_remote(url: str) -> str | None:
    """``owner/name`` of a GitHub remote URL (https, ssh or scp-like), or None."""
    found = REMOTE.search(url.strip())
    return f"{found['owner']}/{found['name']}" if found else None


def current_repo(cwd: Path) -> str:
    """``owner/name`` of the git remote `origin` of the checkout at ``cwd``."""
    try:
        out = subprocess.run(
            ["git", "remote", "get-url", "origin"],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        raise CliError(f"{cwd} has no git remote `origin`: pass --repo owner/name") from None
    repo = repo_from_remote(out)
    if repo is None:
        raise CliError(f"cannot read owner/name from the remote {out.strip()!r}: pass --repo")
    return repo


__all__ = ["REMOTE", "CliError", "Subparsers", "argparse", "current_repo", "repo_from_remote"]
