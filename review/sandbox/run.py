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

from review.sandbox.command import LANG, Limits, bwrap_argv, environment, limited
from review.sandbox.detect import Mechanism, Sandbox
from review.seats.command import kill_process_group

OUTPUT_TAIL_BYTES = 4000

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Ran:
    """One sandboxed command: its exit status (None when killed for time) and its output's tail."""

    returncode: int | None
    output: str
    timed_out: bool = False


def _tail(handle: IO[bytes]) -> str:
    size = handle.seek(0, os.SEEK_END)
    handle.seek(max(0, size - OUTPUT_TAIL_BYTES))
    return handle.read().decode("utf-8", errors="replace")


def _argv(
    sandbox: Sandbox,
    command: Sequence[str],
    *,
    workdir: Path,
    limits: Limits,
) -> tuple[list[str], dict[str, str], Path | None]:
    """argv, environment and working directory of the process the app starts."""
    inner = limited(command, limits)
    if sandbox.mechanism is Mechanism.BWRAP:
        argv = bwrap_argv(
            sandbox.prefix(), workdir=workdir, inner=inner, tmp_bytes=limits.tmp_bytes
        )
        # bubblewrap clears the environment it hands on; its own needs nothing of the app's.
        return argv, {"PATH": "/usr/bin:/bin", "LANG": LANG}, None
    home = workdir.parent / "home"
    home.mkdir(exist_ok=True)
    env = environment(os.environ.get("PATH", "/usr/bin:/bin"), str(home))
    return inner, env, workdir


async def run_sandboxed(
    sandbox: Sandbox,
    command: Sequence[str],
    *,
    workdir: Path,
    limits: Limits,
    timeout_s: float,
) -> Ran:
    """Run ``command`` in ``workdir`` (seen as ``/proof`` under bubblewrap) within ``timeout_s``.

    Output goes to an unlinked file, never a pipe: a descendant that outlives the command cannot
    keep the app waiting for an end of file. Whatever is still running at the end is killed.
    """
    if not sandbox.runs_proofs:
        raise ValueError(f"no sandbox to run in: {sandbox.detail}")
    argv, env, cwd = _argv(sandbox, command, workdir=workdir, limits=limits)
    with tempfile.TemporaryFile(prefix="hindsight-proof-out-") as output:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
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
    if timed_out:
        return Ran(returncode=None, output=text, timed_out=True)
    return Ran(returncode=process.returncode, output=text)
