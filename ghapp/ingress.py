"""`POST /webhooks`: verify, parse, deduplicate and durably record a delivery with its jobs, then 202."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import orjson
from sqlalchemy import Connection, Engine, bindparam, or_, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import DataError, IntegrityError
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from continual.prepared import Prepared
from ghapp import signature
from ghapp.bodies import Refused, read_capped
from ghapp.deliveries import PRUNE_BATCH, prune_bodies
from ghapp.envelopes import BadPayload, check_values
from ghapp.forwarded import InstallationFinder, NotInstalled
from ghapp.jobs import JobSpec, insert_jobs, job_rows, now_ms
from ghapp.metrics import Metrics
from ghapp.router import Router
from ghapp.tables import Delivery

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 25 * 1024 * 1024
MAX_BATCH = 256
PRUNE_EVERY_MS = 10 * 60 * 1000
# The `outcome` label of hindsight_webhook_deliveries, by status; a 200 that is not a ping is a
# duplicate. Refused requests are counted under event "-": their headers were not verified.
OUTCOMES = {
    202: "recorded",
    200: "ping",
    400: "bad_request",
    401: "bad_signature",
    413: "too_large",
    422: "bad_payload",
    500: "error",
    503: "not_installed",
}


# Built once: the writer runs them for every batch, and building them cost more CPU than running
# them (docs/performance.md, "Ingress"). A delivery whose id or body is recorded already is left
# as it is: deduplication is the insert itself (`_insert_new`). SQLite's driver runs its insert.
_INSERT_NEW_SQLITE = Prepared(sqlite_insert(Delivery).on_conflict_do_nothing())
_INSERT_NEW_POSTGRESQL = postgresql_insert(Delivery).on_conflict_do_nothing().returning(Delivery.id)
_SEEN = select(Delivery.id, Delivery.body_sha256).where(
    or_(
        Delivery.id.in_(bindparam("ids", expanding=True)),
        Delivery.body_sha256.in_(bindparam("shas", expanding=True)),
    )
)


class _Replayed(Exception):
    """Some deliveries of a batch were recorded already, and the database did not say which."""


def _insert_new(conn: Connection, rows: list[dict[str, object]]) -> set[str]:
    """Insert the deliveries whose id and body are new; answers the ids inserted.

    PostgreSQL names them. SQLite only counts them (its `RETURNING` cost more CPU than the read it
    would save), so a count short of the rows raises `_Replayed`: the caller rolls back and reads
    which keys are taken before inserting.
    """
    if not rows:
        return set()
    if conn.dialect.name == "postgresql":
        return set(conn.execute(_INSERT_NEW_POSTGRESQL, rows).scalars())
    if _INSERT_NEW_SQLITE.run_many(conn, rows) != len(rows):
        raise _Replayed
    return {str(row["id"]) for row in rows}


def _recorded_keys(conn: Connection, batch: Sequence[Incoming]) -> set[str]:
    """The ids and body hashes of the batch that are recorded already."""
    ids = [incoming.delivery_id for incoming in batch]
    shas = [incoming.body_sha256 for incoming in batch]
    recorded: set[str] = set()
    for delivery_id, body_sha in conn.execute(_SEEN, {"ids": ids, "shas": shas}):
        recorded.update((delivery_id, body_sha))
    return recorded


@dataclass(frozen=True, slots=True)
class Incoming:
    delivery_id: str
    body_sha256: str
    event: str
    action: str | None
    installation_id: int | None
    body: str
    jobs: tuple[JobSpec, ...]


class Unstorable(ValueError):
    """A delivery whose values the database refused to store (past the envelope's checks)."""

    def __init__(self, delivery_id: str, error: BaseException | None) -> None:
        super().__init__(
            f"delivery {delivery_id} holds a value the database cannot store "
            f"({type(error).__name__}); nothing was recorded"
        )


@dataclass(frozen=True, slots=True)
class Recorded:
    duplicate: bool
    jobs: int


class DeliveryWriter:
    """Group commit: one thread writes every pending delivery and its jobs in one transaction.

    Each caller gets its answer only after the transaction holding its delivery has committed, so
    every 202 is durable; batching many deliveries into one commit is what makes that fast.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        on_commit: Callable[[int], None] | None = None,
        retention_ms: int | None = None,
    ) -> None:
        self.engine = engine
        self.on_commit = on_commit
        self.retention_ms = retention_ms
        self._next_prune_ms = 0
        self._queue: queue.SimpleQueue[tuple[Incoming, Future[Recorded]] | None] = (
            queue.SimpleQueue()
        )
        self._thread = threading.Thread(target=self._run, name="delivery-writer", daemon=True)
        self._started = False

    def start(self) -> None:
        if not self._started:
            self._started = True
            self._thread.start()

    def stop(self) -> None:
        if self._started:
            self._queue.put(None)
            self._thread.join()
            self._started = False

    def submit(self, incoming: Incoming) -> Future[Recorded]:
        future: Future[Recorded] = Future()
        self._queue.put((incoming, future))
        return future

    def record(self, incoming: Incoming) -> Recorded:
        """Record one delivery synchronously (CLI, tests), bypassing the writer thread."""
        return self._write_one(incoming)

    def _run(self) -> None:
        # On SQLite the writer keeps one connection for its life: taking one from the pool and
        # resetting it on return cost a batch more CPU than its inserts. On PostgreSQL each batch
        # takes one, so that the pool's ping replaces a connection the server has dropped.
        held = self.engine.connect() if self.engine.dialect.name == "sqlite" else None
        try:
            self._take_batches(held)
        finally:
            if held is not None:
                held.close()

    def _take_batches(self, held: Connection | None) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            stopping = False
            while len(batch) < MAX_BATCH:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stopping = True
                    break
                batch.append(more)
            self._write_batch(batch, held)
            if stopping:
                return

    def _write_batch(
        self, batch: Sequence[tuple[Incoming, Future[Recorded]]], held: Connection | None
    ) -> None:
        """Write the batch in one transaction; when that fails, write its deliveries one at a time,
        so a delivery another process recorded first is a duplicate and a delivery the database
        refuses fails alone, while the rest of the batch is recorded."""
        results: list[Recorded | BaseException] = []
        try:
            results.extend(self._write_many([incoming for incoming, _ in batch], held))
        except Exception as batch_error:
            if not isinstance(batch_error, IntegrityError):
                log.warning(
                    "delivery batch failed, writing one at a time",
                    extra={"size": len(batch), "error": type(batch_error).__name__},
                )
            for incoming, _ in batch:
                try:
                    results.append(self._write_one(incoming, held))
                except Unstorable as exc:
                    log.warning(
                        "delivery refused by the database",
                        extra={"delivery": incoming.delivery_id},
                    )
                    results.append(exc)
                except Exception as exc:  # the writer thread must outlive any one delivery
                    log.exception("delivery not written", extra={"delivery": incoming.delivery_id})
                    results.append(exc)
        jobs = 0
        for (_, future), result in zip(batch, results, strict=True):
            if isinstance(result, BaseException):
                future.set_exception(result)
            else:
                jobs += result.jobs
                future.set_result(result)
        if jobs and self.on_commit is not None:
            self.on_commit(jobs)
        self._prune_when_due()

    def _prune_when_due(self) -> None:
        """After a write, at most every `PRUNE_EVERY_MS`: prune bodies past their retention."""
        now = now_ms()
        if self.retention_ms is None or now < self._next_prune_ms:
            return
        self._next_prune_ms = now + PRUNE_EVERY_MS
        try:
            with self.engine.begin() as conn:
                pruned = prune_bodies(conn, received_before_ms=now - self.retention_ms)
        except Exception:  # pruning waits for the next write; recording must go on
            log.exception("delivery bodies not pruned")
            return
        if pruned:
            log.info("delivery bodies pruned", extra={"pruned": pruned})
            if pruned == PRUNE_BATCH:
                self._next_prune_ms = 0  # more are due: prune again after the next write

    def _write_one(self, incoming: Incoming, held: Connection | None = None) -> Recorded:
        """Write one delivery: a duplicate when its keys are taken, `Unstorable` when the database
        refuses one of its values (any other error, such as a lost connection, is raised as is)."""
        try:
            return self._write_many([incoming], held)[0]
        except IntegrityError:
            return Recorded(duplicate=True, jobs=0)
        except DataError as exc:
            raise Unstorable(incoming.delivery_id, exc.orig) from exc
        except OverflowError as exc:
            # SQLite's driver cannot bind an integer past 64 bits; the statement never ran.
            raise Unstorable(incoming.delivery_id, exc) from exc

    def _write_many(self, batch: Sequence[Incoming], held: Connection | None) -> list[Recorded]:
        try:
            return self._write_new(batch, held, look_first=False)
        except _Replayed:
            return self._write_new(batch, held, look_first=True)

    def _write_new(
        self, batch: Sequence[Incoming], held: Connection | None, *, look_first: bool
    ) -> list[Recorded]:
        """Write the deliveries of the batch not recorded yet, with their jobs, in one
        transaction (on `held`, or on a connection of its own); `look_first` reads which ids and
        bodies are taken before inserting."""
        now = now_ms()
        with _transaction(self.engine, held) as conn:
            taken = _recorded_keys(conn, batch) if look_first else set()
            # A delivery whose id or body is taken (recorded, when looked up first, or earlier in
            # the batch) is a duplicate and is not inserted.
            firsts: list[Incoming] = []
            for incoming in batch:
                if incoming.delivery_id not in taken and incoming.body_sha256 not in taken:
                    firsts.append(incoming)
                taken.add(incoming.delivery_id)
                taken.add(incoming.body_sha256)
            inserted = _insert_new(conn, [_delivery_row(incoming, now) for incoming in firsts])
            jobs: list[dict[str, object]] = []
            for incoming in firsts:
                if incoming.delivery_id in inserted:
                    jobs.extend(job_rows(incoming.jobs, delivery_id=incoming.delivery_id, now=now))
            insert_jobs(conn, jobs)
        results = []
        for incoming in batch:
            new = incoming.delivery_id in inserted
            inserted.discard(incoming.delivery_id)  # a later delivery with this id is a duplicate
            results.append(Recorded(duplicate=not new, jobs=len(incoming.jobs) if new else 0))
        return results


@contextmanager
def _transaction(engine: Engine, held: Connection | None) -> Iterator[Connection]:
    """A transaction on `held`, or on a connection taken from the engine's pool for it."""
    if held is None:
        with engine.begin() as conn:
            yield conn
    else:
        with held.begin():
            yield held


def _delivery_row(incoming: Incoming, now: int) -> dict[str, object]:
    return {
        "id": incoming.delivery_id,
        "body_sha256": incoming.body_sha256,
        "event": incoming.event,
        "action": incoming.action,
        "installation_id": incoming.installation_id,
        "received_ms": now,
        "body": incoming.body,
    }


def error_response(status: int, code: str, message: str) -> JSONResponse:
    # A refused body is not read further: end the connection rather than drain it.
    headers = {"connection": "close"} if status == 413 else None
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )


def _accepted(delivery_id: str, jobs: int) -> Response:
    """The 202 of a recorded delivery: the bytes `JSONResponse` renders, rendered by orjson, which
    every delivery's answer makes worth it (a third of the CPU)."""
    body = orjson.dumps({"delivery": delivery_id, "jobs": jobs})
    return Response(body, status_code=202, media_type="application/json")


def parse_delivery(headers: Any, body: bytes, secret: bytes, router: Router) -> Incoming | Response:
    """Turn a verified request into an Incoming delivery, or the response that refuses it."""
    if not signature.verify(secret, body, headers.get("x-hub-signature-256")):
        return error_response(401, "bad_signature", "X-Hub-Signature-256 is missing or wrong")
    event = headers.get("x-github-event")
    delivery_id = headers.get("x-github-delivery")
    if not event or not delivery_id or len(delivery_id) > 64 or len(event) > 64:
        return error_response(
            400, "bad_request", "X-GitHub-Event and X-GitHub-Delivery headers are required"
        )
    try:
        text = body.decode("utf-8")
        payload = orjson.loads(body)
    except (UnicodeDecodeError, orjson.JSONDecodeError):
        return error_response(400, "bad_json", "the body is not valid UTF-8 JSON")
    if not isinstance(payload, dict):
        return error_response(400, "bad_json", "the body is not a JSON object")
    if event == "ping":
        return JSONResponse({"ok": True, "zen": payload.get("zen")}, status_code=200)
    try:
        check_values(event, payload, body)
        jobs = tuple(router.jobs_for(event, payload))
    except BadPayload as exc:
        return error_response(422, "bad_payload", str(exc))
    action = payload.get("action")
    installation = payload.get("installation")
    installation_id = installation.get("id") if isinstance(installation, dict) else None
    return Incoming(
        delivery_id=delivery_id,
        body_sha256=hashlib.sha256(body).hexdigest(),
        event=event,
        action=action if isinstance(action, str) else None,
        installation_id=installation_id if isinstance(installation_id, int) else None,
        body=text,
        jobs=jobs,
    )


async def _forwarded(parsed: Incoming, finder: InstallationFinder, router: Router) -> Incoming:
    """A delivery without an installation (a forwarded repository webhook), given the one of its
    repository when it names one; its jobs are then the app delivery's (`ghapp.forwarded`)."""
    payload = orjson.loads(parsed.body)
    if not await finder.attach(payload):
        return parsed
    return replace(
        parsed,
        installation_id=payload["installation"]["id"],
        body=orjson.dumps(payload).decode(),
        jobs=tuple(router.jobs_for(parsed.event, payload)),
    )


def webhook_endpoint(
    writer: DeliveryWriter,
    secret: bytes,
    router: Router,
    metrics: Metrics | None = None,
    finder: InstallationFinder | None = None,
) -> Callable[[Request], Any]:
    """`POST /webhooks`; with ``finder``, deliveries of a forwarded repository webhook (no
    `installation`) are given their repository's installation."""
    counted = metrics or Metrics()

    async def webhooks(request: Request) -> Response:
        response = await answer(request)
        event = request.headers.get("x-github-event", "") if response.status_code < 400 else ""
        outcome = OUTCOMES.get(response.status_code, str(response.status_code))
        if response.status_code == 200 and event != "ping":
            outcome = "duplicate"
        counted.deliveries.labels(event[:64] or "-", outcome).inc()
        return response

    async def answer(request: Request) -> Response:
        try:
            body = await read_capped(request, MAX_BODY_BYTES)
        except Refused as rejected:
            return error_response(rejected.status, rejected.code, rejected.message)
        except ClientDisconnect:
            return error_response(400, "bad_request", "the client went away mid-body")
        parsed = parse_delivery(request.headers, body, secret, router)
        if isinstance(parsed, Response):
            return parsed
        if finder is not None and parsed.installation_id is None:
            try:
                parsed = await _forwarded(parsed, finder, router)
            except NotInstalled as exc:
                return error_response(exc.status, "not_installed", exc.message)
            except BadPayload as exc:
                return error_response(422, "bad_payload", str(exc))
        try:
            recorded = await asyncio.wrap_future(writer.submit(parsed))
        except Unstorable as exc:
            return error_response(422, "bad_payload", str(exc))
        except Exception:
            log.exception("delivery not recorded", extra={"delivery": parsed.delivery_id})
            return error_response(500, "internal", "the delivery could not be recorded; redeliver")
        if recorded.duplicate:
            return JSONResponse({"duplicate": True}, status_code=200)
        log.info(
            "delivery recorded",
            extra={"delivery": parsed.delivery_id, "event": parsed.event, "jobs": recorded.jobs},
        )
        return _accepted(parsed.delivery_id, recorded.jobs)

    return webhooks
