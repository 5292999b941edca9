"""The agent hooks' warm helper: one long-lived local process per store that answers a hook's
ask over a Unix socket, so a hook run before every Read and Edit pays for Python's start and a
socket round trip, not for importing the database layer and building the recall index again.

The hook's side costs only the standard library. Its socket lives in a folder of this user's
alone (``$XDG_RUNTIME_DIR/hindsight`` or ``/tmp/hindsight-UID``, mode 0700, refused when
anyone else could enter it), named by a digest of everything the settings are read from (the
working directory, the ``HINDSIGHT_`` variables, the ``.env`` file, the interpreter and this
code), so a changed setting or an upgrade asks a helper of its own and the old one idles out.

When no helper answers, the hook answers from the store itself and then starts one
(``hindsight hook-helper``) for the calls to come, unless ``HINDSIGHT_HOOK_HELPER_IDLE_S`` is 0.
A helper stops after that many seconds without an ask, when its socket is taken away or its
SQLite file is gone, and on ``hindsight hook-helper --stop``. One that accepted an ask but did
not answer in time is not asked again by this call (it may have recorded the handing).
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import sys
from pathlib import Path
from typing import Any

from ghapp.cli.base import CliError

ENV_PREFIX = "HINDSIGHT_"
ASK_LIMIT = 1 << 20  # bytes of one ask (the paths of one tool call)
ANSWER_LIMIT = 16 << 20  # bytes of one answer (a brief of 64,000 tokens, as JSON)
ANSWER_TIMEOUT_S = 10.0
SOCKET_CHARS = 100  # a Unix socket's path is at most 107 bytes on Linux
CODE = tuple(Path(__file__).with_name(name) for name in ("warm.py", "helper.py", "agents.py"))


def helper_dir() -> Path | None:
    """This user's folder for helper sockets, made if missing; None when it is not private."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    folder = (
        Path(runtime) / "hindsight"
        if runtime
        else Path(os.environ.get("TMPDIR") or "/tmp") / f"hindsight-{os.getuid()}"
    )
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        found = os.lstat(folder)
    except OSError:
        return None
    private = stat.S_ISDIR(found.st_mode) and not found.st_mode & 0o077
    return folder if private and found.st_uid == os.getuid() else None


def helper_key() -> str:
    """A digest of everything this process's settings and answers are read from."""
    digest = hashlib.sha256()
    seen = {
        "cwd": os.getcwd(),
        "env": sorted((k, v) for k, v in os.environ.items() if k.startswith(ENV_PREFIX)),
        "python": sys.executable,
        "code": [_stamp(path) for path in CODE],
    }
    digest.update(json.dumps(seen).encode("utf-8", "surrogateescape"))
    try:
        digest.update(Path(".env").read_bytes())
    except OSError:
        digest.update(b"no .env")
    return digest.hexdigest()[:24]


def _stamp(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def socket_path() -> Path | None:
    """Where this process's helper listens, or None when no private folder can hold it."""
    folder = helper_dir()
    if folder is None:
        return None
    path = folder / f"{helper_key()}.sock"
    return path if len(os.fsencode(path)) <= SOCKET_CHARS else None


def _send(path: Path, message: dict[str, Any], timeout_s: float) -> dict[str, Any] | None:
    """One message and its answer; None when nothing listens there (the answer was never
    asked for); a CliError when the helper took the message and did not answer."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(timeout_s)
        try:
            conn.connect(str(path))
        except OSError:  # no socket, a stale one, or a folder that vanished
            return None
        try:
            conn.sendall(json.dumps(message).encode() + b"\n")
            answer = _read_line(conn)
        except OSError as exc:
            raise CliError(f"the hook helper at {path} did not answer: {exc}") from None
    finally:
        conn.close()
    try:
        data = json.loads(answer)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise CliError(f"the hook helper at {path} did not answer as a hook helper does")
    return data


def _read_line(conn: socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if chunk.endswith(b"\n"):
            break
        if size > ANSWER_LIMIT:
            raise OSError(f"an answer over {ANSWER_LIMIT} bytes")
    return b"".join(chunks)


def ask(path: Path, message: dict[str, Any]) -> dict[str, Any] | None:
    """The helper's answer to an ask (the `/v1` answer's shape), None when no helper runs."""
    data = _send(path, {"ask": message}, ANSWER_TIMEOUT_S)
    if data is None:
        return None
    if isinstance(data.get("error"), str):
        raise CliError(data["error"])
    body = data.get("body")
    if not isinstance(body, dict) or not isinstance(body.get("text"), str):
        raise CliError(f"the hook helper at {path} did not answer as a hook helper does")
    return body


def start(path: Path) -> None:
    """Start a helper for ``path`` in the background, detached from the hook that starts it
    (its own session: it outlives the hook; its stderr in a log beside the socket)."""
    import subprocess

    with open(path.with_suffix(".log"), "ab") as log:
        subprocess.Popen(
            [sys.executable, "-m", "ghapp.cli", "hook-helper", "--socket", str(path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
            close_fds=True,
        )


def stop_all() -> int:
    """Ask every helper of this user to stop; how many were running."""
    folder = helper_dir()
    stopped = 0
    for path in sorted(folder.glob("*.sock")) if folder else ():
        try:
            if _send(path, {"stop": True}, 2.0) is not None:
                stopped += 1
        except CliError:
            continue
    return stopped
