"""The same-work baseline for ingress: a bare Starlette endpoint doing only what a durable
acknowledgement needs, written as plainly as possible.

Read the body, HMAC-SHA256 it, parse it, insert one row into a `synchronous=FULL` SQLite database
with group commit (one writer thread commits whatever is waiting in one transaction), answer 202
once the row's transaction has committed. No framework of the app's own is used.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import queue
import sqlite3
import threading
from collections.abc import AsyncIterator
from concurrent.futures import Future
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

Row = tuple[str, str, str]


class GroupCommit:
    """One thread; each loop takes everything waiting and commits it in one transaction."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.waiting: queue.SimpleQueue[tuple[Row, Future[None]] | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS deliveries (id TEXT PRIMARY KEY, sha TEXT, body TEXT)"
        )
        while (first := self.waiting.get()) is not None:
            batch = [first]
            while len(batch) < 256:
                try:
                    more = self.waiting.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    break
                batch.append(more)
            db.execute("BEGIN IMMEDIATE")
            db.executemany(
                "INSERT OR IGNORE INTO deliveries VALUES (?, ?, ?)", [r for r, _ in batch]
            )
            db.execute("COMMIT")
            for _, done in batch:
                done.set_result(None)
        db.close()


def same_work_app(database_url: str, secret: bytes) -> Starlette:
    writer = GroupCommit(database_url.removeprefix("sqlite:///"))

    async def webhooks(request: Request) -> Response:
        body = await request.body()
        expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, request.headers.get("x-hub-signature-256", "")):
            return JSONResponse({"error": "bad signature"}, status_code=401)
        json.loads(body)
        done: Future[None] = Future()
        row = (
            request.headers["x-github-delivery"],
            hashlib.sha256(body).hexdigest(),
            body.decode(),
        )
        writer.waiting.put((row, done))
        await asyncio.wrap_future(done)
        return JSONResponse({"ok": True}, status_code=202)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        writer.thread.start()
        yield
        writer.waiting.put(None)
        writer.thread.join()

    return Starlette(routes=[Route("/webhooks", webhooks, methods=["POST"])], lifespan=lifespan)
