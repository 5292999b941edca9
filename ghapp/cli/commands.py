"""The `hindsight` command line: serve, worker, migrate, jobs, replay, purge and the rest."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import httpx
from sqlalchemy import Engine

from ghapp.cli.common import open_engine
from ghapp.cli.maintain import add_commands as add_maintain_commands
from ghapp.cli.operate import add_commands as add_operate_commands
from ghapp.cli.people import add_commands as add_people_commands
from ghapp.cli.review import add_commands as add_review_commands
from ghapp.cli.setup import add_commands as add_setup_commands
from ghapp.db import NotMigrated, migrate
from ghapp.jobs import JobQueue, now_ms
from ghapp.logs import configure_logging
from ghapp.preflight import check_app_key, usable_config
from ghapp.settings import Settings, SettingsError, load_settings
from ghapp.signature import sign
from ghapp.tables import JobState
from review.config import ConfigError, ReviewConfig

Command = Callable[[argparse.Namespace, Settings], int]


def _queue(engine: Engine, settings: Settings) -> JobQueue:
    return JobQueue(
        engine, lease_ms=int(settings.job_lease_s * 1000), max_attempts=settings.job_max_attempts
    )


def _review_config(args: argparse.Namespace, settings: Settings) -> ReviewConfig | None:
    """The review configuration `serve` and `worker` run with; None only with --no-review."""
    if args.no_review:
        return None
    return usable_config(settings.config, os.environ)


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from ghapp.app import build_deps, create_app
    from ghapp.serving import uvicorn_config

    settings.require_github()
    review_config = _review_config(args, settings)
    host = args.host or settings.host
    port = args.port or settings.port
    # Refuse an unreachable or unmigrated database before binding the port.
    with open_engine(settings, create=True) as engine:
        check_app_key(settings)
        print(
            f"hindsight: serving on http://{host}:{port} "
            f"(webhooks at /webhooks, worker {'off' if args.no_worker else 'on'}, "
            f"reviews {'off' if review_config is None else 'on'}, "
            f"app {settings.github_app_id}, key {settings.key_fingerprint()})",
            file=sys.stderr,
        )
        deps = build_deps(settings, engine=engine, review_config=review_config)
        app = create_app(settings, deps=deps, run_worker=not args.no_worker)
        config = uvicorn_config(app, settings, host=host, port=port, log_config=None)
        uvicorn.Server(config).run()
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
    with open_engine(settings, ready=False, create=True) as engine:
        migrate(engine)
        print(f"hindsight: database at {engine.url.render_as_string()} is up to date")
    return 0


def _ms(value: int) -> str:
    return datetime.fromtimestamp(value / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")


def cmd_jobs(args: argparse.Namespace, settings: Settings) -> int:
    with open_engine(settings) as engine:
        return _jobs(args, _queue(engine, settings))


def _jobs(args: argparse.Namespace, queue: JobQueue) -> int:
    if args.jobs_command == "retry":
        if not args.ids and not args.all_dead:
            print("hindsight jobs retry: name job ids or pass --all-dead", file=sys.stderr)
            return 2
        count = queue.retry(args.ids, all_dead=args.all_dead)
        print(f"requeued {count} dead job(s)")
        return 0
    counts = queue.counts()
    print("  ".join(f"{state}: {count}" for state, count in sorted(counts.items())) or "no jobs")
    rows = queue.list(states=args.state or (), limit=args.limit)
    if rows:
        print(f"{'id':>7}  {'state':<9} {'kind':<26} {'tries':>5}  {'run after':<19}  error")
    for row in rows:
        error = (row.last_error or "").splitlines()[0][:60] if row.last_error else ""
        print(
            f"{row.id:>7}  {row.state:<9} {row.kind:<26} {row.attempts:>5}  "
            f"{_ms(row.run_after_ms):<19}  {error}"
        )
    return 0


def cmd_replay(args: argparse.Namespace, settings: Settings) -> int:
    body = Path(args.file).read_bytes()
    url = args.url or f"http://{settings.host}:{settings.port}/webhooks"
    headers = {
        "content-type": "application/json",
        "x-github-event": args.event,
        "x-github-delivery": args.delivery or str(uuid.uuid4()),
        "x-hub-signature-256": sign(settings.secret_bytes(), body),
        "user-agent": "hindsight-replay",
    }
    try:
        response = httpx.post(url, content=body, headers=headers, timeout=30)
    except httpx.HTTPError as exc:
        print(f"hindsight replay: could not reach {url}: {exc}", file=sys.stderr)
        return 1
    print(f"{response.status_code} {response.text}")
    return 0 if response.is_success else 1


def confirmed(args: argparse.Namespace, question: str, answer: str) -> bool:
    """True with --yes, or when a person at a terminal types ``answer``; refuses without a tty."""
    if args.yes:
        return True
    if not sys.stdin.isatty():
        print(
            f"hindsight {args.command}: {question} Not at a terminal, so nothing was done: "
            "pass --yes to go ahead",
            file=sys.stderr,
        )
        return False
    typed = input(f"{question} Type {answer!r} to go ahead: ").strip()
    if typed != answer:
        print(f"hindsight {args.command}: not confirmed; nothing was done", file=sys.stderr)
        return False
    return True


def cmd_purge(args: argparse.Namespace, settings: Settings) -> int:
    from ghapp.purge import purge_account

    question = f"This deletes every row and file stored for the account {args.account}."
    if not confirmed(args, question, args.account):
        return 1
    with open_engine(settings) as engine:
        counts = purge_account(engine, args.account, store_dir=settings.store_dir)
    if counts is None:
        print(f"hindsight purge: no account named {args.account}", file=sys.stderr)
        return 1
    print(json.dumps(counts, sort_keys=True))
    return 0


def cmd_entry(args: argparse.Namespace, settings: Settings) -> int:
    """A person's edit of the store: demote or restore one entry at the revision they saw."""
    from continual import store

    with open_engine(settings) as engine:
        try:
            with engine.begin() as conn:
                revision = store.person_edit(
                    conn,
                    args.entry_id,
                    expected=args.expected_revision,
                    demote=args.action == "demote",
                    actor=args.actor,
                    now=now_ms(),
                )
        except store.RevisionConflict as exc:
            print(f"hindsight entry: {exc}", file=sys.stderr)
            return 1
        except store.EntryGone as exc:
            print(f"hindsight entry: {exc}", file=sys.stderr)
            return 1
    print(f"{args.entry_id} {args.action}d, now at revision {revision}")
    if args.action == "restore":
        print("  its earlier dismissals no longer keep its findings from being posted")
    return 0


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    import logging
    import tempfile

    from ghapp.demo import run_demo

    logging.getLogger().setLevel(logging.INFO if args.verbose else logging.WARNING)
    if args.dir:
        workdir = Path(args.dir)
        workdir.mkdir(parents=True, exist_ok=True)
        if any(workdir.iterdir()):
            print(f"hindsight demo: {workdir} is not empty; give an empty or new folder")
            return 2
        return run_demo(workdir, keep=args.keep)
    with tempfile.TemporaryDirectory(prefix="hindsight-demo-") as tmp:
        return run_demo(Path(tmp), keep=args.keep)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hindsight", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="run the whole loop on a local GitHub simulator")
    demo.add_argument("--dir", help="keep the demo's database and files here (default: a temp dir)")
    demo.add_argument("--keep", action="store_true", help="leave it running to explore /v1")
    demo.add_argument("--verbose", action="store_true", help="show the app's logs")
    demo.set_defaults(run=cmd_demo)

    add_operate_commands(sub)

    no_review = "start with reviews off on purpose (no hindsight.toml needed)"
    serve = sub.add_parser("serve", help="run the web app with an in-process worker")
    serve.add_argument("--no-worker", action="store_true", help="web only (for replicas)")
    serve.add_argument("--no-review", action="store_true", help=no_review)
    serve.add_argument("--host", help="the address to listen on (default: HINDSIGHT_HOST)")
    serve.add_argument("--port", type=int, help="the port to listen on (default: HINDSIGHT_PORT)")
    serve.set_defaults(run=cmd_serve)

    worker = sub.add_parser("worker", help="run jobs from the queue")
    worker.add_argument(
        "--concurrency", type=int, help="jobs run at once (default: HINDSIGHT_WORKER_CONCURRENCY)"
    )
    worker.add_argument("--until-idle", action="store_true", help="exit when no job is due")
    worker.add_argument("--no-review", action="store_true", help=no_review)
    worker.add_argument(
        "--metrics-port",
        type=int,
        help="serve this worker's /metrics on 127.0.0.1:PORT (loopback only)",
    )
    worker.set_defaults(run=cmd_worker)

    sub.add_parser("migrate", help="bring the database schema up to date").set_defaults(
        run=cmd_migrate
    )

    jobs = sub.add_parser("jobs", help="list jobs or retry dead ones")
    jobs_sub = jobs.add_subparsers(dest="jobs_command", metavar="list|retry")
    jobs_list = jobs_sub.add_parser("list", help="list recent jobs")
    jobs_list.add_argument(
        "--state",
        action="append",
        choices=[state.value for state in JobState],
        help="only jobs in this state (repeat for several)",
    )
    jobs_list.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    jobs_retry = jobs_sub.add_parser("retry", help="requeue dead jobs")
    jobs_retry.add_argument("ids", type=int, nargs="*", help="the ids of dead jobs to requeue")
    jobs_retry.add_argument("--all-dead", action="store_true", help="requeue every dead job")
    jobs.set_defaults(run=cmd_jobs, jobs_command="list", state=None, limit=50)

    replay = sub.add_parser("replay", help="sign a recorded delivery and post it to a server")
    replay.add_argument("file", help="a webhook payload (JSON) to send")
    replay.add_argument("--event", required=True, help="the X-GitHub-Event, e.g. pull_request")
    replay.add_argument("--url", help="default: http://HINDSIGHT_HOST:HINDSIGHT_PORT/webhooks")
    replay.add_argument("--delivery", help="the X-GitHub-Delivery id (default: a new uuid)")
    replay.set_defaults(run=cmd_replay)

    entry = sub.add_parser("entry", help="demote or restore a lesson entry (a person's edit)")
    entry.add_argument("action", choices=["demote", "restore"], help="what to do with the entry")
    entry.add_argument("entry_id", help="the entry's id (e_…, from `hindsight recall`)")
    entry.add_argument(
        "--expected-revision", type=int, required=True, help="the revision you looked at"
    )
    entry.add_argument("--actor", default="cli", help="who is editing (recorded on the entry)")
    entry.set_defaults(run=cmd_entry)

    add_review_commands(sub)
    add_people_commands(sub)
    add_maintain_commands(sub)
    add_setup_commands(sub)

    purge = sub.add_parser("purge", help="delete everything stored for an account")
    purge.add_argument("--account", required=True, help="the account's login")
    purge.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    purge.set_defaults(run=cmd_purge)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
        configure_logging(settings.log_level, settings.log_format)
        code: int = args.run(args, settings)
    except (SettingsError, NotMigrated, ConfigError) as exc:
        print(f"hindsight: {exc}", file=sys.stderr)
        return 2
    return code
