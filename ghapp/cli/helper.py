"""The hooks' warm helper, the serving side (see ``ghapp.cli.warm``): one engine and one set of
recall snapshots kept between asks, each ask answered as the hook itself would answer it.

Only one helper serves a socket: it holds an exclusive lock on ``<socket>.lock`` for as long as
it lives, so a second one started by a hook at the same moment sees the lock and leaves. What
it is asked is untrusted input all the same (any process of this user can connect): an ask of
another shape, or one over ``ASK_LIMIT`` bytes, is answered with an error and nothing else.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import socketserver
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ghapp.cli.agents import Ask, SettingsLoader, note, store_answer
from ghapp.cli.base import CliError, Subparsers
from ghapp.cli.common import open_engine
from ghapp.cli.warm import ASK_LIMIT, stop_all
from ghapp.db import is_sqlite
from ghapp.settings import Settings, SettingsError

if TYPE_CHECKING:
    import argparse

    from sqlalchemy import Engine

    from continual.recall import SnapshotCache

log = logging.getLogger(__name__)
WATCH_S = 1.0  # how often the helper looks at its idle time, its socket and its database


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True

    def __init__(
        self, path: Path, engine: Engine, settings: Settings, snapshots: SnapshotCache
    ) -> None:
        self.engine, self.settings, self.snapshots = engine, settings, snapshots
        self.last_ask = time.monotonic()
        self.stopping = threading.Event()
        super().__init__(str(path), _Handler)


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        server = self.server
        server.last_ask = time.monotonic()
        line = self.rfile.readline(ASK_LIMIT + 1)
        answer: dict[str, Any]
        try:
            message = json.loads(line) if len(line) <= ASK_LIMIT else None
        except ValueError:
            message = None
        if not isinstance(message, dict):
            answer = {
                "error": f"the hook helper takes one JSON object of at most {ASK_LIMIT} bytes"
            }
        elif message.get("stop") is True:
            server.stopping.set()
            answer = {"stopped": True}
        else:
            try:
                ask = Ask.from_dict(message.get("ask"))
                answer = {
                    "body": store_answer(server.engine, server.settings, ask, server.snapshots)
                }
            except Exception as exc:  # the hook prints it as its one-line note
                answer = {"error": note(exc)}
        server.last_ask = time.monotonic()
        self.wfile.write(json.dumps(answer).encode() + b"\n")


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _database_gone(settings: Settings) -> bool:
    if not is_sqlite(settings.database_url):
        return False
    from sqlalchemy.engine import make_url

    database = make_url(settings.database_url).database or ""
    return bool(database) and not Path(database).is_file()


def _watch(server: _Server, path: Path, inode: int | None) -> None:
    """Until the helper is idle too long, stopped, or left without its socket or database."""
    idle_s = server.settings.hook_helper_idle_s
    while not server.stopping.wait(WATCH_S):
        if time.monotonic() - server.last_ask > idle_s:
            log.info("hook helper idle", extra={"idle_s": idle_s})
            break
        if _inode(path) != inode or _database_gone(server.settings):
            log.info("hook helper left without its socket or its database")
            break
    server.shutdown()


def serve(path: Path, settings: Settings) -> int:
    """Serve hook asks on ``path`` until idle; 0 also when another helper already serves it."""
    if settings.hook_helper_idle_s <= 0:
        return 0
    from continual.recall import SnapshotCache

    # Its log is for what went wrong, as a hook's stderr is: not a line for every handing.
    logging.getLogger().setLevel(max(logging.WARNING, logging.getLogger().level))
    with open(path.with_suffix(".lock"), "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0  # another helper serves this socket
        path.unlink(missing_ok=True)  # a helper that died left it behind
        snapshots = SnapshotCache(max_bytes=settings.snapshot_cache_mb << 20)
        with open_engine(settings, ready=False) as engine:
            previous = os.umask(0o077)
            try:
                server = _Server(path, engine, settings, snapshots)
            finally:
                os.umask(previous)
            inode = _inode(path)
            watcher = threading.Thread(target=_watch, args=(server, path, inode), daemon=True)
            watcher.start()
            try:
                server.serve_forever(poll_interval=0.2)
            finally:
                server.server_close()
                if _inode(path) == inode:
                    path.unlink(missing_ok=True)
    return 0


def cmd_hook_helper(args: argparse.Namespace, load: SettingsLoader) -> int:
    if args.stop:
        stopped = stop_all()
        print(f"stopped {stopped} hook helper{'' if stopped == 1 else 's'}")
        return 0
    if not args.socket:
        raise CliError("give --socket PATH (the hooks start their helper themselves) or --stop")

    try:
        settings = load()
    except SettingsError as exc:  # the hooks answer (and say it) without a helper
        print(f"hindsight hook-helper: {exc}", file=sys.stderr)
        return 2
    return serve(Path(args.socket), settings)


def add_hook_helper(commands: Subparsers) -> None:
    helper = commands.add_parser(
        "hook-helper",
        help="the warm local answerer agent hooks start on their own (--stop stops them)",
        description="A long-lived process that answers `brief --hook` and `context --hook` "
        "from the store over a private Unix socket. A hook starts it the first time it "
        "answers from the store; it stops after HINDSIGHT_HOOK_HELPER_IDLE_S seconds without "
        "an ask (0: never start one).",
    )
    helper.add_argument("--socket", help="the socket to listen on (given by the hook)")
    helper.add_argument("--stop", action="store_true", help="stop this user's hook helpers")
    helper.set_defaults(run=cmd_hook_helper, own_settings=True)
