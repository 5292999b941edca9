"""`hindsight serve|worker|migrate|demo`: the processes that run the app, and its schema."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path

from ghapp.cli.common import Subparsers, open_engine
from ghapp.preflight import check_app_key, usable_config
from ghapp.settings import LogFormat, Settings
from review.config import ReviewConfig

NO_REVIEW_HELP = "start with reviews off on purpose (no hindsight.toml needed)"


def _review_config(args: argparse.Namespace, settings: Settings) -> ReviewConfig | None:
    """The review configuration `serve` and `worker` run with; None only with --no-review."""
    if args.no_review:
        return None
    return usable_config(settings.config, os.environ)


def _banner(settings: Settings, fields: dict[str, object]) -> None:
    """Say what is served: one text line, or one JSON record in the JSON log format."""
    if settings.log_format is LogFormat.JSON:
        logging.getLogger("ghapp.serve").info("serving", extra=fields)
        return
    print(
        f"hindsight: serving on {fields['url']} (webhooks at /webhooks, "
        f"worker {fields['worker']}, reviews {fields['reviews']}, app {fields['app']}, "
        f"key {fields['key']}, database {fields['database']})",
        file=sys.stderr,
        flush=True,
    )


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from ghapp.app import build_deps, create_app
    from ghapp.serving import listening_socket, uvicorn_config

    settings.require_github()
    review_config = _review_config(args, settings)
    host = args.host or settings.host
    port = args.port or settings.port
    # Refuse an unreachable or unmigrated database before binding the port.
    with open_engine(settings, create=True) as engine:
        check_app_key(settings)
        try:
            sock = listening_socket(host, port)
        except OSError as exc:
            print(
                f"hindsight serve: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr
            )
            return 2
        with sock:
            _banner(
                settings,
                {
                    "url": f"http://{host}:{sock.getsockname()[1]}",
                    "worker": "off" if args.no_worker else "on",
                    "reviews": "off" if review_config is None else "on",
                    "app": settings.github_app_id,
                    "key": settings.key_fingerprint(),
                    "database": engine.url.render_as_string(hide_password=True),
                },
            )
            deps = build_deps(settings, engine=engine, review_config=review_config)
            app = create_app(settings, deps=deps, run_worker=not args.no_worker)
            config = uvicorn_config(app, settings, host=host, port=port, log_config=None)
            uvicorn.Server(config).run(sockets=[sock])
    return 0


def cmd_worker(args: argparse.Namespace, settings: Settings) -> int:
    from ghapp.app import build_deps
    from ghapp.handlers import build_router
    from ghapp.worker import Worker

    settings.require_github()
    review_config = _review_config(args, settings)
    with open_engine(settings, create=True) as engine:
        check_app_key(settings)
        if review_config is None:
            print("hindsight: reviews are off (--no-review)", file=sys.stderr)
        deps = build_deps(settings, engine=engine, review_config=review_config)
        if args.metrics_port:
            deps.metrics.serve_loopback(args.metrics_port)
        worker = Worker(
            deps, build_router(), concurrency=args.concurrency or settings.worker_concurrency
        )

        async def run() -> None:
            if args.until_idle:
                ran = await worker.run_until_idle()
                print(f"hindsight: ran {ran} jobs; none is due now", file=sys.stderr)
            else:
                await worker.run()

        try:
            asyncio.run(run())
        except KeyboardInterrupt:
            worker.stop()
    return 0


def cmd_migrate(args: argparse.Namespace, settings: Settings) -> int:
    from ghapp.db import migrate

    with open_engine(settings, ready=False, create=True) as engine:
        applied = migrate(engine)
        shown = engine.url.render_as_string(hide_password=True)
        if applied:
            plural = "migration" if applied == 1 else "migrations"
            print(f"hindsight: applied {applied} {plural}; the database at {shown} is up to date")
        else:
            print(f"hindsight: the database at {shown} was already up to date (none applied)")
    return 0


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    import tempfile

    logging.getLogger().setLevel(logging.INFO if args.verbose else logging.WARNING)
    if args.dir:
        workdir = Path(args.dir)
        workdir.mkdir(parents=True, exist_ok=True)
        if any(workdir.iterdir()):
            print(f"hindsight demo: {workdir} is not empty; give an empty or new folder")
            return 2
        return _demo(workdir, args)
    with tempfile.TemporaryDirectory(prefix="hindsight-demo-") as tmp:
        return _demo(Path(tmp), args)


def _demo(workdir: Path, args: argparse.Namespace) -> int:
    from ghapp.demo import run_demo

    try:
        return run_demo(workdir, keep=args.keep, port=args.port)
    except OSError as exc:
        print(f"hindsight demo: cannot listen on 127.0.0.1:{args.port}: {exc.strerror}")
        return 2


def add_demo(commands: Subparsers) -> None:
    demo = commands.add_parser("demo", help="run the whole loop on a local GitHub simulator")
    demo.add_argument("--dir", help="keep the demo's database and files here (default: a temp dir)")
    demo.add_argument(
        "--keep",
        action="store_true",
        help="leave it running; print the /ledger URL, a sign-in token and curl lines for /v1",
    )
    demo.add_argument(
        "--port", type=int, default=0, help="the app's loopback port (default: any free one)"
    )
    demo.add_argument("--verbose", action="store_true", help="show the app's logs")
    demo.set_defaults(run=cmd_demo)


def add_serve(commands: Subparsers) -> None:
    serve = commands.add_parser("serve", help="run the web app with an in-process worker")
    serve.add_argument("--no-worker", action="store_true", help="web only (for replicas)")
    serve.add_argument("--no-review", action="store_true", help=NO_REVIEW_HELP)
    serve.add_argument("--host", help="the address to listen on (default: HINDSIGHT_HOST)")
    serve.add_argument("--port", type=int, help="the port to listen on (default: HINDSIGHT_PORT)")
    serve.set_defaults(run=cmd_serve)


def add_worker(commands: Subparsers) -> None:
    worker = commands.add_parser("worker", help="run jobs from the queue")
    worker.add_argument(
        "--concurrency", type=int, help="jobs run at once (default: HINDSIGHT_WORKER_CONCURRENCY)"
    )
    worker.add_argument("--until-idle", action="store_true", help="exit when no job is due")
    worker.add_argument("--no-review", action="store_true", help=NO_REVIEW_HELP)
    worker.add_argument(
        "--metrics-port",
        type=int,
        help="serve this worker's /metrics on 127.0.0.1:PORT (loopback only)",
    )
    worker.set_defaults(run=cmd_worker)


def add_migrate(commands: Subparsers) -> None:
    commands.add_parser("migrate", help="bring the database schema up to date").set_defaults(
        run=cmd_migrate
    )
