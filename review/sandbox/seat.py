"""A command seat's sandbox: what it sees of the machine, its environment and its command line."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import math
import os
import re
import shutil
import signal
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from review.config import SeatConfig
from review.sandbox.command import (
    INSIDE_PATH,
    LANG,
    MIB,
    SYSTEM_DIRS,
    SYSTEM_FILES,
    Limits,
    isolated_root,
    limited,
)
from review.sandbox.detect import Isolation, Sandbox

REAP_GRACE_S = 5.0
INSIDE_HOME = "/tmp"
PYTHON_NAME = re.compile(r"^(python|pypy)(\d+(\.\d+)?)?$")
# The parts of a Python prefix an interpreter reads: never the prefix as a whole, which may be a
# project folder holding a `.env`, the app's key or its database.
PREFIX_PARTS = ("bin", "lib", "lib64", "pyvenv.cfg")
# Added for a seat with `network = true`: how names are resolved and which CAs are trusted.
NETWORK_FILES = (
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/host.conf",
    "/etc/gai.conf",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
)
SEAT_MEMORY_BYTES = 8192 * MIB  # address space per process: interpreters reserve more than they use

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeatView:
    """What a sandboxed seat sees: the argv to run inside, where it starts, and the host paths
    bound into it at the same place (read-only, then read-write)."""

    argv: tuple[str, ...]
    workdir: str
    read: tuple[str, ...]
    write: tuple[str, ...]


def seat_environment(environ: Mapping[str, str], names: Iterable[str]) -> dict[str, str]:
    """The names a seat declares, taken from ``environ`` where they are set: nothing else."""
    return {name: environ[name] for name in names if name in environ}


def declared_names(config: SeatConfig) -> list[str]:
    """The environment names a seat may see: its ``pass_env`` and its ``api_key_env``."""
    names = list(config.pass_env)
    if config.api_key_env and config.api_key_env not in names:
        names.append(config.api_key_env)
    return names


def seat_limits(config: SeatConfig) -> Limits:
    """The limits of a seat: per process, CPU four times its timeout (at least 60 s) and 8 GiB
    of address space; files, processes, descriptors, /tmp, /dev/shm and the total memory of its
    cgroup as for proofs."""
    return Limits(
        cpu_s=max(60, 4 * math.ceil(config.timeout_s)),
        memory_bytes=SEAT_MEMORY_BYTES,
    )


def resolve_program(program: str, cwd: Path, path: str) -> str | None:
    """The absolute path of a seat's argv[0] (symlinks kept: a venv's python is known by its
    path), searched on ``path`` when it names no directory."""
    if "/" in program:
        found = Path(os.path.normpath(cwd / program))
        return str(found) if found.is_file() else None
    return shutil.which(program, path=path)


def _is_system(path: str) -> bool:
    return any(path == top or path.startswith(top + "/") for top in SYSTEM_DIRS)


def _covers(outer: str, inner: str) -> bool:
    return inner == outer or inner.startswith(outer.rstrip("/") + "/")


def _python_prefixes(program: str) -> list[str]:
    """The prefixes an interpreter at ``program`` reads: its venv's (from pyvenv.cfg), its real
    installation's, and this process's own when it is the same interpreter."""
    prefixes: list[str] = []
    here = Path(program).parent.parent
    config = here / "pyvenv.cfg"
    if config.is_file():
        prefixes.append(str(here))
        with contextlib.suppress(OSError, UnicodeDecodeError):
            for line in config.read_text().splitlines():
                key, _, value = line.partition("=")
                home = Path(value.strip())
                if key.strip() == "home" and home.name == "bin":
                    prefixes.append(str(home.parent))
    real = Path(os.path.realpath(program))
    if real.parent.name == "bin":
        prefixes.append(str(real.parent.parent))
    if real == Path(os.path.realpath(sys.executable)):
        prefixes += [sys.prefix, sys.base_prefix]
    return [prefix for prefix in dict.fromkeys(prefixes) if prefix != "/"]


def _module_paths(module: str) -> list[str]:
    """Where this process finds the top-level package of ``python -m module``: only that
    package's directories (or the module's file), never the folder that holds them."""
    top = module.split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [str(location) for location in spec.submodule_search_locations]
    return [spec.origin] if spec.origin and os.path.isfile(spec.origin) else []


def seat_view(config: SeatConfig, *, cwd: Path, path: str) -> SeatView | None:
    """What the seat of ``config`` is given: its program, the interpreter's prefix and, when it
    is this process's Python, the package of ``-m``; every argument naming an existing file; the
    operator's ``read`` and ``write``. None when the program is not found."""
    program = resolve_program(config.command[0], cwd, path)
    if program is None:
        return None
    arguments = list(config.command[1:])
    read: list[str] = [program]
    if PYTHON_NAME.match(Path(program).name):
        for prefix in _python_prefixes(program):
            read += [os.path.join(prefix, part) for part in PREFIX_PARTS]
        if "-m" in arguments[:-1] and os.path.realpath(program) == os.path.realpath(sys.executable):
            read += _module_paths(arguments[arguments.index("-m") + 1])
    for argument in arguments:
        if argument.startswith("-"):
            continue
        candidate = Path(os.path.normpath(cwd / argument))
        if candidate.is_file():
            read.append(str(candidate))
    # Left out: what the system binds show anyway, what does not exist, and the working
    # directory or a folder above it (never bound: it may be the app's own folder).
    wanted = [
        item
        for item in dict.fromkeys(read)
        if not _is_system(item) and os.path.lexists(item) and not _covers(item, str(cwd))
    ]
    bound = [
        item
        for item in wanted
        if not any(other != item and _covers(other, item) for other in wanted)
    ]
    return SeatView(
        argv=(program, *arguments),
        workdir=str(cwd),
        read=(*bound, *config.read),
        write=config.write,
    )


def seat_argv(bwrap: str, view: SeatView, *, network: bool, limits: Limits) -> list[str]:
    """bubblewrap around a seat: new user (65534), PID, IPC, UTS and cgroup namespaces, and a
    network namespace of its own unless ``network``; a root of its own holding the system and
    ``view``'s paths read-only (its ``write`` paths read-write), an empty working directory at
    the app's path, a private /proc and /tmp, a read-only /dev with a small /dev/shm, the rest
    read-only. The environment is the
    one bubblewrap is started with (never on its command line, where others could read it);
    killed with the app, and everything left in it killed when the seat's process ends."""
    argv = isolated_root(
        [bwrap],
        hostname="seat",
        network=network,
        files=(*SYSTEM_FILES, *(NETWORK_FILES if network else ())),
        shm_bytes=limits.shm_bytes,
        tmp_bytes=limits.tmp_bytes,
    )
    argv += ["--dir", view.workdir]
    for item in view.read:
        argv += ["--ro-bind", item, item]
    for item in view.write:
        argv += ["--bind", item, item]
    argv += ["--remount-ro", "/", "--chdir", view.workdir]
    return [*argv, "--", *limited(view.argv, limits)]


def inside_environment(
    view: SeatView, environ: Mapping[str, str], names: Iterable[str]
) -> dict[str, str]:
    """A sandboxed seat's whole environment: PATH (its program's directory first), HOME=/tmp,
    LANG, and the names it declares."""
    program_dir = str(Path(view.argv[0]).parent)
    search = INSIDE_PATH if _is_system(program_dir) else f"{program_dir}:{INSIDE_PATH}"
    return {
        **seat_environment(environ, names),
        "PATH": search,
        "HOME": INSIDE_HOME,
        "LANG": LANG,
    }


def outside_environment(environ: Mapping[str, str], names: Iterable[str]) -> dict[str, str]:
    """An unsandboxed seat's whole environment: the app's PATH and HOME, LANG, and the names it
    declares."""
    return {
        **seat_environment(environ, names),
        "PATH": environ.get("PATH", "/usr/bin:/bin"),
        "HOME": environ.get("HOME", INSIDE_HOME),
        "LANG": environ.get("LANG", LANG),
    }


def for_seats(found: Sandbox) -> Sandbox:
    """The sandbox seats run in: the one found, without the host drop to 65534 that proofs get
    as root. A seat's own files (an interpreter under /root, a script in a private folder) are
    read with the app's user's rights; inside, the seat is still 65534 with no capability."""
    return replace(found, drop_privileges=False) if found.isolation is Isolation.BWRAP else found


async def kill_process_group(process: asyncio.subprocess.Process) -> None:
    """Kill a process started with ``start_new_session=True`` and everything in its group.

    Waiting for it is bounded: a descendant that left the group could hold its pipes open.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    try:
        async with asyncio.timeout(REAP_GRACE_S):
            await process.wait()
    except TimeoutError:
        log.warning("killed process still holds its pipes", extra={"pid": process.pid})
