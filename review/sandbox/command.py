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
# What the sandbox's init runs by default: the command, then it exits, never being the command.
INIT_SCRIPT = '"$@"; exit $?'


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed command: per process (setrlimit through ``prlimit``),
    in total (a cgroup, ``review.sandbox.cgroup``) and the sizes of its tmpfs mounts."""

    cpu_s: int = 120
    memory_bytes: int = 4096 * MIB  # address space, per process
    file_bytes: int = 256 * MIB  # the largest file it may write
    processes: int = 256  # per user namespace (prlimit) and in total (the cgroup's pids.max)
    open_files: int = 1024
    tmp_bytes: int = 256 * MIB  # the private /tmp (a tmpfs)
    total_memory_bytes: int = 2048 * MIB  # every process together, tmpfs pages included
    copy_bytes: int = 1024 * MIB  # a proof's copy at /proof (a tmpfs)
    shm_bytes: int = 16 * MIB  # /dev/shm (a tmpfs; the rest of /dev is read-only)
    files: int = 100_000  # entries of a tree a proof may copy


def environment(path: str, home: str) -> dict[str, str]:
    """The whole environment of a proof: nothing of the app's is passed on."""
    return {"PATH": path, "HOME": home, "LANG": LANG}


def limited(command: Sequence[str], limits: Limits, *, init: str = INIT_SCRIPT) -> list[str]:
    """``command`` under ``prlimit``, run by a shell that exits when it ends: the command is never
    the namespace's init (an init ignores the signals the kernel sends over a limit). ``init`` is
    that shell's script; it is given ``command`` as its arguments."""
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
        init,
        "proof",
        *command,
    ]


def isolated_root(
    prefix: Sequence[str],
    *,
    hostname: str,
    network: bool = False,
    files: Sequence[str] = SYSTEM_FILES,
    shm_bytes: int = Limits.shm_bytes,
    tmp_bytes: int = Limits.tmp_bytes,
) -> list[str]:
    """What every sandbox starts from: new user (65534), PID, IPC, UTS and cgroup namespaces, a
    network namespace of its own unless ``network``; a root of its own holding the system and
    ``files`` read-only, a private /proc, a read-only /dev of the few device nodes with a small
    /dev/shm, and a sized private /tmp; killed with the app."""
    argv = [
        *prefix,
        "--unshare-all",
        *(["--share-net"] if network else []),
        "--unshare-user",
        "--disable-userns",
        "--uid",
        str(NOBODY),
        "--gid",
        str(NOBODY),
        "--hostname",
        hostname,
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
    for name in files:
        argv += ["--ro-bind-try", name, name]
    argv += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"]
    argv += ["--size", str(shm_bytes), "--tmpfs", "/dev/shm"]
    argv += ["--size", str(tmp_bytes), "--tmpfs", "/tmp"]
    return argv


def bwrap_argv(
    prefix: Sequence[str],
    *,
    workdir: Path | None,
    inner: Sequence[str],
    tmp_bytes: int = Limits.tmp_bytes,
    copy_bytes: int = Limits.copy_bytes,
    shm_bytes: int = Limits.shm_bytes,
    read_only: Sequence[tuple[Path, str]] = (),
) -> list[str]:
    """bubblewrap around ``inner``: new user (65534), PID, network, IPC, UTS and cgroup
    namespaces; a root of its own holding the system read-only, ``workdir`` read-write at
    ``/proof`` (or, when ``workdir`` is None, an empty tmpfs of ``copy_bytes`` there), each
    ``(host file, inside path)`` of ``read_only`` bound read-only, a private /proc and /tmp, a
    read-only /dev of the few device nodes with a small /dev/shm, the rest of its root read-only;
    a clean environment; killed with the app, and everything left in it killed when ``inner``
    ends."""
    argv = isolated_root(prefix, hostname="proof", shm_bytes=shm_bytes, tmp_bytes=tmp_bytes)
    if workdir is None:
        argv += ["--size", str(copy_bytes), "--tmpfs", INSIDE_DIR]
    else:
        argv += ["--bind", str(workdir), INSIDE_DIR]
    for host, inside in read_only:
        argv += ["--ro-bind", str(host), inside]
    # The sandbox's own root stays read-only: only /proof and the private /tmp can be written.
    argv += ["--remount-ro", "/", "--chdir", INSIDE_DIR, "--clearenv"]
    for name, value in environment(INSIDE_PATH, "/tmp").items():
        argv += ["--setenv", name, value]
    return [*argv, "--", *inner]
