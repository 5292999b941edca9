"""The ASGI application: routes as data, and a lifespan that builds and tears down its parts."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from types import EllipsisType
from typing import TYPE_CHECKING

from pydantic import SecretStr
from sqlalchemy import Engine, text
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from continual.recall.cache import MIB, SnapshotCache
from ghapp import api, web
from ghapp.db import (
    Checkpointer,
    NotMigrated,
    check_migrated,
    ensure_ready,
    is_sqlite,
    make_engine,
)
from ghapp.deliveries import retention_ms
from ghapp.deps import Deps
from ghapp.forwarded import InstallationFinder
from ghapp.guard import Guard, descriptor_bound
from ghapp.handlers import build_router
from ghapp.ingress import DeliveryWriter, webhook_endpoint
from ghapp.jobs import Clock, JobQueue, now_ms
from ghapp.metrics import Metrics, metrics_endpoint
from ghapp.router import Router
from ghapp.settings import Settings
from ghapp.worker import Worker
from review.config import ReviewConfig, load_config
from review.sandbox import Sandbox, detect_sandbox

if TYPE_CHECKING:
    from ghapp.github.client import GitHubClient

log = logging.getLogger(__name__)


@dataclass
class AppState:
    """What the lifespan built; tests and the demo reach the worker and queue through it."""

    deps: Deps
    writer: DeliveryWriter
    worker: Worker | None = None
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


async def healthz(request: Request) -> Response:
    return JSONResponse({"ok": True})


async def readyz(request: Request) -> Response:
    state: AppState = request.app.state.hindsight
    try:
        await asyncio.to_thread(_check_database, state.deps.engine)
    except NotMigrated as exc:
        return JSONResponse({"ok": False, "error": str(exc)}, status_code=503)
    except Exception as exc:
        log.warning("database not ready", extra={"error": type(exc).__name__})
        return JSONResponse({"ok": False, "error": "database unreachable"}, status_code=503)
    return JSONResponse({"ok": True})


def _check_database(engine: Engine) -> None:
    with engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    check_migrated(engine)


def build_deps(
    settings: Settings,
    *,
    engine: Engine | None = None,
    github: GitHubClient | None = None,
    clock: Clock = now_ms,
    review_config: ReviewConfig | EllipsisType | None = ...,
    sandbox: Sandbox | None = None,
) -> Deps:
    """The collaborators jobs are handed. ``review_config`` defaults to ``hindsight.toml`` when
    the file exists (reviews are skipped without it); `serve` and `worker` pass what they checked.
    With a review configuration, the proof sandbox is found here, once, at start (``sandbox``
    names one instead).
    """
    engine = engine or make_engine(settings.database_url)
    queue = JobQueue.from_settings(engine, settings, clock=clock)
    if github is None and settings.github_app_id is not None:
        from ghapp.github.client import GitHubClient

        github = GitHubClient.from_settings(settings)
    if isinstance(review_config, EllipsisType):
        review_config = load_config(settings.config) if settings.config.is_file() else None
    metrics = Metrics(engine)
    if github is not None:
        github.on_answer = metrics.github_answered
    if review_config is not None and sandbox is None:
        sandbox = detect_sandbox()
    return Deps(
        settings=settings,
        engine=engine,
        queue=queue,
        github=github,
        clock=clock,
        review_config=review_config,
        metrics=metrics,
        sandbox=sandbox,
        snapshots=SnapshotCache(max_bytes=settings.snapshot_cache_mb * MIB),
    )


def _secret(value: SecretStr | None) -> str | None:
    return None if value is None else value.get_secret_value()


def create_app(
    settings: Settings,
    *,
    deps: Deps | None = None,
    router: Router | None = None,
    run_worker: bool = True,
) -> Starlette:
    """The app; `run_worker=False` makes a web-only replica (`serve --no-worker`).

    Building it connects to nothing; the lifespan migrates (SQLite) or checks the schema, then
    starts the delivery writer and, unless told not to, the in-process worker.
    """
    router = router or build_router(coalesce_ms=settings.writeback_coalesce_ms)
    owns_deps = deps is None
    ready = deps or build_deps(settings)
    writer = DeliveryWriter(
        ready.engine, retention_ms=retention_ms(settings.delivery_retention_days)
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await asyncio.to_thread(ensure_ready, ready.engine)
        state = AppState(deps=ready, writer=writer)
        if run_worker:
            worker = Worker(ready, router, concurrency=settings.worker_concurrency)
            loop = asyncio.get_running_loop()

            def wake(_jobs: int) -> None:
                loop.call_soon_threadsafe(worker.wake)

            writer.on_commit = wake
            state.worker = worker
            state.tasks.append(asyncio.create_task(worker.run(), name="worker"))
        writer.start()
        checkpointer = None
        url = ready.engine.url.render_as_string(hide_password=False)
        if is_sqlite(url):
            checkpointer = Checkpointer(url)
            checkpointer.start()
        app.state.hindsight = state
        # Everything built so far lives as long as the process: keep it out of the collector's
        # full passes, which otherwise stall every request for tens of milliseconds.
        gc.freeze()
        try:
            yield
        finally:
            if state.worker is not None:
                state.worker.stop()
            for task in state.tasks:
                await task
            await asyncio.to_thread(writer.stop)
            if checkpointer is not None:
                await asyncio.to_thread(checkpointer.stop)
            if owns_deps:
                ready.engine.dispose()

    routes = [
        Route(
            "/webhooks",
            webhook_endpoint(
                writer,
                settings.secret_bytes(),
                router,
                ready.metrics,
                # A forwarded repository webhook (`gh webhook forward`) names no installation.
                None
                if ready.github is None
                else InstallationFinder(
                    ready.github,
                    ready.engine,
                    ready.clock,
                    backfill=settings.history_on_install,
                ),
            ),
            methods=["POST"],
        ),
        Route("/healthz", healthz),
        Route("/metrics", metrics_endpoint(ready.metrics, _secret(settings.metrics_token))),
        Route("/readyz", readyz),
        *api.routes(),
        *web.routes(settings.secret_bytes(), settings.github_api_url, settings.github_oauth()),
    ]
    guard = Middleware(
        Guard,
        max_in_flight=descriptor_bound(settings.max_in_flight),
        body_timeout_s=settings.body_timeout_s,
    )
    return Starlette(routes=routes, lifespan=lifespan, middleware=[guard])
