"""The command lines of a sandboxed run: bubblewrap's view of the machine, the limits, the env."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

NOBODY = 65534
INSIDE_DIR = "/proof"
INSIDE_PATH = "/usr/local/bin:/usr/bin:/bin"
LANG = "C.UTF-8"
PRLIMIT = "/usr/bin/prlimit"
# What the sandbox sees of the machine, read-only: the system's programs and libraries, and the
# few files of /etc that programs need to start. Nothing of /home, /root, /srv, /var, /opt, /run,
# nor of the app's store, configuration, key or database.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = (
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
)
MIB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed command (setrlimit through ``prlimit``) and its /tmp."""

    cpu_s: int = 120
    memory_bytes: int = 4096 * MIB  # address space
    file_bytes: int = 256 * MIB  # the largest file it may write
    processes: int = 256
    open_files: int = 1024
    tmp_bytes: int = 256 * MIB  # the private /tmp (a tmpfs)


def environment(path: str, home: str) -> dict[str, str]:
    """The whole environment of a proof: nothing of the app's is passed on."""
    return {"PATH": path, "HOME": home, "LANG": LANG}


def limited(command: Sequence[str], limits: Limits) -> list[str]:
    """``command`` under ``prlimit``, run by a shell that exits when it ends: the command is never
    the namespace's init (an init ignores the signals the kernel sends over a limit)."""
    return [
        PRLIMIT,
        f"--cpu={limits.cpu_s}",
        f"--as={limits.memory_bytes}",
        f"--fsize={limits.file_bytes}",
        f"--nproc={limits.processes}",
        f"--nofile={limits.open_files}",
        "--",
        "/bin/sh",
        "-c",
        '"$@"; exit $?',
        "proof",
        *command,
    ]


def bwrap_argv(
    prefix: Sequence[str],
    *,
    workdir: Path,
    inner: Sequence[str],
    tmp_bytes: int = Limits.tmp_bytes,
) -> list[str]:
    """bubblewrap around ``inner``: new user (65534), PID, network, IPC, UTS and cgroup
    namespaces; a root of its own holding the system read-only, ``workdir`` read-write at
    ``/proof``, a private /proc, /dev and /tmp, the rest of its root read-only; a clean
    environment; killed with the app, and everything left in it killed when ``inner`` ends."""
    argv = [
        *prefix,
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--uid",
        str(NOBODY),
        "--gid",
        str(NOBODY),
        "--hostname",
        "proof",
        "--die-with-parent",
        "--new-session",
        "--as-pid-1",
    ]
    for directory in SYSTEM_DIRS:
        path = Path(directory)
        if path.is_symlink():
            argv += ["--symlink", str(path.readlink()), directory]
        elif path.is_dir():
            argv += ["--ro-bind", directory, directory]
    for name in SYSTEM_FILES:
        argv += ["--ro-bind-try", name, name]
    argv += ["--proc", "/proc", "--dev", "/dev", "--size", str(tmp_bytes), "--tmpfs", "/tmp"]
    argv += ["--bind", str(workdir), INSIDE_DIR]
    # The sandbox's own root stays read-only: only /proof and the private /tmp can be written.
    argv += ["--remount-ro", "/", "--chdir", INSIDE_DIR, "--clearenv"]
    for name, value in environment(INSIDE_PATH, "/tmp").items():
        argv += ["--setenv", name, value]
    return [*argv, "--", *inner]
