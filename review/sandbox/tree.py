"""A commit's tree read by git and checked before any copy of it is made: regular files and
directories with plain names only, and not too many of them.

The app never parses the tree's objects nor unpacks an archive of it: git lists the tree
(``git ls-tree``), this module reads that list, and the copy is unpacked by ``tar`` in the
sandbox. Hard links cannot be stored in a git tree, and git writes none into an archive.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

from review.sandbox.command import environment

GIT_TIMEOUT_S = 60.0
FILE_MODES = frozenset({b"100644", b"100755", b"100664"})  # 100664: older git's regular file
TREE_MODE = b"040000"
MAX_PATH_BYTES = 4096
READ_CHUNK = 1 << 16


class UnsafeTree(Exception):
    """The tree holds an entry no copy may contain; the message says which and why."""


@dataclass(frozen=True)
class Listing:
    """How many files and directories the checked tree holds."""

    files: int
    directories: int


def _git_env(home: Path) -> dict[str, str]:
    return environment(os.environ.get("PATH", "/usr/bin:/bin"), str(home))


def _shown(path: bytes) -> str:
    return repr(path.decode("utf-8", errors="backslashreplace"))[:200]


def _check_name(path: bytes) -> None:
    if len(path) > MAX_PATH_BYTES:
        raise UnsafeTree(f"a path is longer than {MAX_PATH_BYTES} bytes: {_shown(path[:100])}")
    if any(byte < 0x20 or byte == 0x7F for byte in path):
        raise UnsafeTree(f"a name holds a control character: {_shown(path)}")
    if path.startswith(b"/"):
        raise UnsafeTree(f"an absolute name: {_shown(path)}")
    for part in path.split(b"/"):
        if part in (b"", b".", b".."):
            raise UnsafeTree(f"a name with an empty, '.' or '..' component: {_shown(path)}")
        if part.lower() == b".git":
            raise UnsafeTree(f"a .git entry: {_shown(path)}")


def check_entries(listing: bytes, *, max_files: int) -> Listing:
    """Check ``git ls-tree -r -t -z --full-tree`` output: every entry a regular file or a
    directory, every name plain and unique, every entry inside a directory the list names (an
    entry whose own name holds a ``/`` is not), at most ``max_files`` entries."""
    seen: set[bytes] = set()
    directories: set[bytes] = set()
    files = 0
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, tab, path = record.partition(b"\t")
        mode = meta.split(b" ", 1)[0]
        if not tab:
            raise UnsafeTree("git listed an entry it could not name")
        _check_name(path)
        if len(seen) >= max_files:
            raise UnsafeTree(f"the tree holds more than {max_files} entries")
        if path in seen:
            raise UnsafeTree(f"two entries share the name {_shown(path)}")
        parent = path.rpartition(b"/")[0]
        if parent and parent not in directories:
            raise UnsafeTree(f"a name holds a '/' of its own: {_shown(path)}")
        seen.add(path)
        if mode == TREE_MODE:
            directories.add(path)
        elif mode in FILE_MODES:
            files += 1
        elif mode == b"120000":
            raise UnsafeTree(f"a symbolic link: {_shown(path)}")
        elif mode == b"160000":
            raise UnsafeTree(f"a submodule: {_shown(path)}")
        else:
            raise UnsafeTree(f"an entry of unknown mode {mode.decode(errors='replace')}")
    return Listing(files=files, directories=len(directories))


async def _git(repo: Path, home: Path, *args: str, limit: int) -> bytes:
    """git's standard output (at most ``limit`` bytes: past it, git is stopped and the tree
    refused), or ``OSError`` saying what failed."""
    process = await asyncio.create_subprocess_exec(
        "git",
        "-C",
        str(repo),
        *args,
        env=_git_env(home),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(GIT_TIMEOUT_S):
            while chunk := await process.stdout.read(READ_CHUNK):
                size += len(chunk)
                if size > limit:
                    raise UnsafeTree("the tree's listing is too long")
                chunks.append(chunk)
            error = await process.stderr.read(READ_CHUNK)
            await process.wait()
    except TimeoutError:
        raise OSError(f"git {args[0]} did not finish within {GIT_TIMEOUT_S:g} s") from None
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    if process.returncode != 0:
        raise OSError(error.decode(errors="replace").strip()[-300:] or f"git {args[0]} failed")
    return b"".join(chunks)


async def check_tree(repo: Path, sha: str, *, home: Path, max_files: int) -> Listing:
    """List the tree of commit ``sha`` with git and check it (``check_entries``): ``OSError``
    when there is no such commit, ``UnsafeTree`` when git cannot read its tree or the check
    refuses it."""
    await _git(repo, home, "cat-file", "-e", f"{sha}^{{commit}}", limit=0)
    limit = max_files * (MAX_PATH_BYTES // 8 + 64) + READ_CHUNK
    try:
        listing = await _git(
            repo, home, "ls-tree", "-r", "-t", "-z", "--full-tree", f"{sha}^{{commit}}", limit=limit
        )
    except OSError as exc:
        raise UnsafeTree(f"git cannot read it: {exc}") from None
    return check_entries(listing, max_files=max_files)


async def archive(repo: Path, sha: str, target: Path, *, home: Path) -> None:
    """Write the tree of commit ``sha`` as a tar file at ``target`` (git runs no hook for this);
    ``OSError`` saying what failed."""
    await _git(
        repo, home, "archive", "--format=tar", "-o", str(target), f"{sha}^{{commit}}", limit=0
    )
