"""Running one command in the sandbox: a time limit, no pipes to hang on, the whole tree ended."""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from review.sandbox.cgroup import Bound, bounded_group
from review.sandbox.command import (
    INIT_SCRIPT,
    LANG,
    Limits,
    bwrap_argv,
    environment,
    limited,
)
from review.sandbox.detect import Isolation, Sandbox
from review.sandbox.seat import kill_process_group

OUTPUT_TAIL_BYTES = 4000

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Ran:
    """One sandboxed command: its exit status (None when killed for time), its output's tail,
    and which total bound of its cgroup it reached (``memory``, ``processes``)."""

    returncode: int | None
    output: str
    timed_out: bool = False
    bounds_hit: tuple[str, ...] = ()


def _tail(handle: IO[bytes]) -> str:
    size = handle.seek(0, os.SEEK_END)
    handle.seek(max(0, size - OUTPUT_TAIL_BYTES))
    return handle.read().decode("utf-8", errors="replace")


def _argv(
    sandbox: Sandbox,
    command: Sequence[str],
    *,
    workdir: Path | None,
    limits: Limits,
    read_only: Sequence[tuple[Path, str]],
    init: str,
) -> tuple[list[str], dict[str, str], Path | None]:
    """argv, environment and working directory of the process the app starts."""
    inner = limited(command, limits, init=init)
    if sandbox.isolation is Isolation.BWRAP:
        argv = bwrap_argv(
            sandbox.prefix(),
            workdir=workdir,
            inner=inner,
            tmp_bytes=limits.tmp_bytes,
            copy_bytes=limits.copy_bytes,
            shm_bytes=limits.shm_bytes,
            read_only=read_only,
        )
        # bubblewrap clears the environment it hands on; its own needs nothing of the app's.
        return argv, {"PATH": "/usr/bin:/bin", "LANG": LANG}, None
    if workdir is None:
        raise ValueError("an unsandboxed run needs a directory of its own to run in")
    home = workdir.parent / "home"
    home.mkdir(exist_ok=True)
    env = environment(os.environ.get("PATH", "/usr/bin:/bin"), str(home))
    return inner, env, workdir


async def run_sandboxed(
    sandbox: Sandbox,
    command: Sequence[str],
    *,
    workdir: Path | None,
    limits: Limits,
    timeout_s: float,
    read_only: Sequence[tuple[Path, str]] = (),
    init: str = INIT_SCRIPT,
    stdin: IO[bytes] | None = None,
) -> Ran:
    """Run ``command`` in ``workdir`` (seen as ``/proof`` under bubblewrap; None: an empty tmpfs
    of ``limits.copy_bytes`` there) within ``timeout_s``, in a cgroup of its own holding it to
    ``limits.total_memory_bytes`` and ``limits.processes`` where one can be made.

    Output goes to an unlinked file, never a pipe: a descendant that outlives the command cannot
    keep the app waiting for an end of file. Whatever is still running at the end is killed.
    ``read_only`` and ``init`` are passed to ``bwrap_argv`` and ``limited``; ``stdin`` is the
    process's standard input (default: nothing).
    """
    if not sandbox.runs_proofs:
        raise ValueError(f"no sandbox to run in: {sandbox.detail}")
    argv, env, cwd = _argv(
        sandbox, command, workdir=workdir, limits=limits, read_only=read_only, init=init
    )
    bound = Bound(memory_bytes=limits.total_memory_bytes, processes=limits.processes)
    group = await asyncio.to_thread(bounded_group, bound)
    try:
        with tempfile.TemporaryFile(prefix="hindsight-proof-out-") as output:
            process = await asyncio.create_subprocess_exec(
                *group.wrap(argv),
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.DEVNULL if stdin is None else stdin,
                stdout=output,
                stderr=output,
                start_new_session=True,
            )
            timed_out = False
            try:
                async with asyncio.timeout(timeout_s):
                    await process.wait()
            except TimeoutError:
                timed_out = True
            finally:
                # Unsandboxed, a descendant that stayed in the group is ended here too.
                # Under bubblewrap, killing the group ends the namespace and all in it.
                await kill_process_group(process)
            text = _tail(output)
        hits = group.hits()
    finally:
        await asyncio.to_thread(group.close)
    if timed_out:
        return Ran(returncode=None, output=text, timed_out=True, bounds_hit=hits)
    return Ran(returncode=process.returncode, output=text, bounds_hit=hits)
