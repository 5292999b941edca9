"""A total memory and process bound for one sandboxed run: a cgroup of its own (v2, else v1).

The group is made before the run starts and joined by a small shell in front of the sandbox's
command line (before privileges are dropped), so every process of the run, however it forks, is
counted. Where no cgroup is writable (an unprivileged app without a delegated cgroup v2) the group
has no directories and only the per-process ``prlimit`` limits hold (docs/security.md).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

CGROUP_ROOT = Path("/sys/fs/cgroup")
MOUNTINFO = Path("/proc/self/mountinfo")
OWN_CGROUPS = Path("/proc/self/cgroup")
GROUP_PREFIX = "hindsight-"
# Joins every cgroup named before ``--`` (their cgroup.procs files), then runs the command.
JOIN_SCRIPT = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
END_TIMEOUT_S = 30.0  # a run killed over its memory bound can take long to exit under load

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Bound:
    """What a group holds its processes to, in total: bytes of memory (tmpfs pages written
    included, no swap) and processes."""

    memory_bytes: int
    processes: int


@dataclass
class Group:
    """One run's cgroups (a v2 group, or a v1 memory and a v1 pids group); empty when none."""

    kind: str  # "cgroup2", "cgroup1" or "none"
    dirs: tuple[Path, ...] = ()
    _closed: bool = field(default=False, repr=False)

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """``argv`` started inside the group (the joining shell runs with the app's privileges,
        so it must come before ``setpriv``)."""
        if not self.dirs:
            return list(argv)
        procs = [str(d / "cgroup.procs") for d in self.dirs]
        return ["/bin/sh", "-c", JOIN_SCRIPT, "join", *procs, "--", *argv]

    def hits(self) -> tuple[str, ...]:
        """Which total bound the run reached: ``memory`` (a process killed for it), ``processes``
        (a fork refused)."""
        reached = []
        for directory in self.dirs:
            for name, key, what in (
                ("memory.events", "oom_kill", "memory"),
                ("memory.oom_control", "oom_kill", "memory"),
                ("pids.events", "max", "processes"),
            ):
                if _counter(directory / name, key) > 0 and what not in reached:
                    reached.append(what)
        return tuple(reached)

    def close(self) -> None:
        """Kill whatever is left in the group and remove it (polled, bounded); idempotent."""
        if self._closed:
            return
        self._closed = True
        deadline = time.monotonic() + END_TIMEOUT_S
        for directory in self.dirs:
            pause = 0.005
            while directory.exists():
                _kill_all(directory)
                try:
                    directory.rmdir()
                except OSError:
                    if time.monotonic() > deadline:
                        log.warning("cgroup left behind", extra={"cgroup": str(directory)})
                        break
                    time.sleep(pause)
                    pause = min(pause * 2, 0.2)

    def __enter__(self) -> Group:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _counter(path: Path, key: str) -> int:
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return 0
    for line in lines:
        name, _, number = line.partition(" ")
        if name == key and number.strip().isdigit():
            return int(number)
    return 0


def _kill_all(directory: Path) -> None:
    kill = directory / "cgroup.kill"
    if kill.exists():
        with contextlib.suppress(OSError):
            kill.write_text("1")
        return
    try:
        pids = (directory / "cgroup.procs").read_text().split()
    except OSError:
        return
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError, ValueError):
            os.kill(int(pid), signal.SIGKILL)


@dataclass(frozen=True)
class _Mount:
    point: Path
    root: str
    kind: str  # "cgroup2" or "cgroup"
    options: frozenset[str]


def _mounts() -> list[_Mount]:
    found = []
    try:
        lines = MOUNTINFO.read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        fields, _, rest = line.partition(" - ")
        parts, tail = fields.split(), rest.split()
        if len(parts) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        point = Path(parts[4].replace("\\040", " "))
        found.append(_Mount(point, parts[3], tail[0], frozenset(tail[2].split(","))))
    return found


def _own() -> dict[str, str]:
    """The app's own cgroup per hierarchy: ``""`` for v2, each controller's name for v1."""
    own: dict[str, str] = {}
    try:
        lines = OWN_CGROUPS.read_text().splitlines()
    except OSError:
        return own
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            own[name] = path
    return own


def _inside(mount: _Mount, path: str) -> Path | None:
    """The directory of the cgroup ``path`` under ``mount``, or None when it is not visible."""
    root = mount.root.rstrip("/")
    if path != root and not path.startswith(root + "/"):
        return None
    return mount.point / path[len(root) :].lstrip("/")


def _writable(directory: Path) -> bool:
    return directory.is_dir() and os.access(directory, os.W_OK | os.X_OK)


def _make(parent: Path, settings: dict[str, int]) -> Path | None:
    """A new child of ``parent`` with ``settings`` written, or None (and nothing left) if any
    write fails."""
    child = parent / f"{GROUP_PREFIX}{uuid.uuid4().hex[:16]}"
    try:
        child.mkdir()
    except OSError:
        return None
    for name, value in settings.items():
        target = child / name
        if not target.exists() and name.startswith("memory.memsw"):
            continue  # no swap accounting on this kernel: nothing to bound
        try:
            target.write_text(str(value))
        except OSError:
            child.rmdir()
            return None
    return child


def _v2(bound: Bound, mounts: list[_Mount], own: dict[str, str]) -> Group | None:
    for mount in mounts:
        if mount.kind != "cgroup2" or "" not in own:
            continue
        parent = _inside(mount, own[""])
        if parent is None or not _writable(parent):
            continue
        try:
            enabled = set((parent / "cgroup.subtree_control").read_text().split())
            if not {"memory", "pids"} <= enabled:
                available = set((parent / "cgroup.controllers").read_text().split())
                if not {"memory", "pids"} <= available:
                    continue
                (parent / "cgroup.subtree_control").write_text("+memory +pids")
        except OSError:
            continue  # a cgroup with processes of its own cannot hand controllers down
        settings = {
            "memory.max": bound.memory_bytes,
            "memory.swap.max": 0,
            "pids.max": bound.processes,
        }
        made = _make(parent, settings)
        if made is not None:
            return Group("cgroup2", (made,))
    return None


def _v1(bound: Bound, mounts: list[_Mount], own: dict[str, str]) -> Group | None:
    wanted = {
        "memory": {
            "memory.limit_in_bytes": bound.memory_bytes,
            "memory.memsw.limit_in_bytes": bound.memory_bytes,
        },
        "pids": {"pids.max": bound.processes},
    }
    made: list[Path] = []
    for controller, settings in wanted.items():
        mount = next((m for m in mounts if m.kind == "cgroup" and controller in m.options), None)
        parent = None if mount is None else _inside(mount, own.get(controller, "/"))
        child = None if parent is None or not _writable(parent) else _make(parent, settings)
        if child is None:
            Group("cgroup1", tuple(made)).close()
            return None
        made.append(child)
    return Group("cgroup1", tuple(made))


def bounded_group(bound: Bound) -> Group:
    """A fresh cgroup holding a run to ``bound`` in total, nested in the app's own cgroup: v2
    where the app's cgroup can hand down ``memory`` and ``pids``, else v1 ``memory`` and ``pids``
    where writable (as root), else a group of kind ``none`` that bounds nothing. Start the run with ``group.wrap(argv)``; close
    the group (``with``, or ``close()``) when the run has ended."""
    mounts, own = _mounts(), _own()
    group = _v2(bound, mounts, own) or _v1(bound, mounts, own)
    if group is None:
        return Group("none")
    return group
