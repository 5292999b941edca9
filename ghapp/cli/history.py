"""`hindsight backfill`: ask for a repository's history back-fill and follow it to its end, with
a bar of the pull requests read and the time left; a pause for the rate limit is waited out."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import TextIO

from sqlalchemy import Engine, select

from continual.history.runs import DEFAULT_DAYS, DEFAULT_MAX_PRS, BadRequest, Run, RunState
from continual.history.shown import history_view
from continual.tables import Repository
from ghapp.api.shapes import history_json
from ghapp.cli.common import Subparsers
from ghapp.db import ensure_ready, reading
from ghapp.github.errors import GitHubError, Transient
from ghapp.github.installation import InstallationClient
from ghapp.handlers.history import options_of
from ghapp.history import Backfill, Options, schedule
from ghapp.jobs import now_ms
from ghapp.settings import Settings

BAR_WIDTH = 30
TRANSIENT_TRIES = 5
HELD_POLL_S = 1.0


class Bar:
    """The progress line: PRs read of at most ``max_prs``, pauses, and the time left."""

    def __init__(self, stream: TextIO, run: Run) -> None:
        self.stream = stream
        self.started = time.monotonic()
        self.first = run.prs_read
        self.tty = stream.isatty()
        self.step = max(1, run.max_prs // 10)  # when not a terminal: a line per tenth
        self.shown = -1

    def line(self, run: Run) -> str:
        target = max(run.max_prs, 1)
        filled = min(BAR_WIDTH, BAR_WIDTH * run.prs_read // target)
        read_now = run.prs_read - self.first
        elapsed = time.monotonic() - self.started
        left = "?"
        if read_now > 0:
            left = f"{elapsed / read_now * max(target - run.prs_read, 0):.0f} s"
        return (
            f"[{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {run.prs_read}/{run.max_prs} PRs "
            f"read, {run.addressed} addressed, {run.pauses} pause(s), at most {left} left"
        )

    def show(self, run: Run) -> None:
        if self.tty:
            print(f"\r{self.line(run)}", end="", file=self.stream, flush=True)
        elif run.prs_read // self.step != self.shown:
            self.shown = run.prs_read // self.step
            print(self.line(run), file=self.stream, flush=True)

    def end(self, run: Run) -> None:
        """The last line, whatever was shown before."""
        if self.tty:
            self.show(run)
            print(file=self.stream, flush=True)
        else:
            print(self.line(run), file=self.stream, flush=True)

    def say(self, text: str) -> None:
        print(("\n" if self.tty else "") + text, file=self.stream, flush=True)


async def follow(
    client: InstallationClient, engine: Engine, repository_id: int, run: Run, options: Options
) -> Run | None:
    """Run the back-fill here until it ends, waiting out pauses (and a runner elsewhere)."""
    bar = Bar(sys.stderr, run)
    transient = 0
    while True:
        backfill = Backfill(
            client, engine, repository_id, options=options, clock=now_ms, on_progress=bar.show
        )
        try:
            outcome = await backfill.run()
        except Transient as exc:
            transient += 1
            if transient >= TRANSIENT_TRIES:
                bar.say(f"hindsight: GitHub keeps failing ({exc}); the worker will resume it")
                return None
            await asyncio.sleep(2**transient)
            continue
        current = outcome.run
        if outcome.resume_at is not None:
            wait_s = max(outcome.resume_at.timestamp() - time.time(), 0.0)
            bar.say(f"paused for the rate limit until {outcome.resume_at:%H:%M:%S} UTC")
            await asyncio.sleep(wait_s)
            bar.say("resumed")
            continue
        if outcome.held_elsewhere:
            if current is not None:
                bar.show(current)
            await asyncio.sleep(HELD_POLL_S)
            continue
        if current is not None:
            bar.end(current)
        return current


def _repository(engine: Engine, repo: str) -> tuple[int, int, int] | None:
    with reading(engine) as conn:
        row = conn.execute(
            select(Repository.id, Repository.account_id, Repository.installation_id).where(
                Repository.full_name == repo, Repository.removed_ms.is_(None)
            )
        ).first()
    if row is None or row.installation_id is None:
        return None
    return int(row.id), int(row.account_id), int(row.installation_id)


def cmd_backfill(args: argparse.Namespace, settings: Settings) -> int:
    from ghapp.app import build_deps

    settings.require_github()
    deps = build_deps(settings)
    try:
        ensure_ready(deps.engine)
        found = _repository(deps.engine, args.repo)
        if found is None:
            print(f"hindsight: the app is not installed on {args.repo}", file=sys.stderr)
            return 1
        repository_id, account_id, installation_id = found
        try:
            with deps.engine.begin() as conn:
                run, new = schedule(
                    conn,
                    account_id=account_id,
                    repository_id=repository_id,
                    installation_id=installation_id,
                    now_ms=now_ms(),
                    days=args.days,
                    max_prs=args.max_prs,
                )
        except BadRequest as exc:
            print(f"hindsight: {exc}", file=sys.stderr)
            return 2
        if not new:
            print(f"a back-fill of {args.repo} is already {run.state.value}", file=sys.stderr)
        if args.detach:
            print(f"back-fill of {args.repo} queued for the worker", file=sys.stderr)
            return 0
        assert deps.github is not None
        options = options_of(deps)
        client = deps.github.installation(installation_id)
        try:
            ended = asyncio.run(follow(client, deps.engine, repository_id, run, options))
        except GitHubError as exc:
            print(f"hindsight: GitHub refused the back-fill of {args.repo}: {exc}", file=sys.stderr)
            return 1
        with reading(deps.engine) as conn:
            shown = history_view(
                conn, account_id=account_id, repository_id=repository_id, repository=args.repo
            )
        if args.json and shown is not None:
            print(json.dumps(history_json(shown), indent=2))
        elif ended is not None:
            print(
                f"{args.repo}: {ended.state.value}; {ended.prs_read} merged PR(s) read, "
                f"{ended.comments_kept} maintainer comment(s) kept, {ended.addressed} addressed, "
                f"{ended.facts} fact(s) published; {ended.requests} GitHub request(s), "
                f"{ended.pauses} pause(s)" + (f"; {ended.last_error}" if ended.last_error else "")
            )
        return 0 if ended is not None and ended.state is RunState.DONE else 1
    finally:
        deps.engine.dispose()


def add_backfill(commands: Subparsers) -> None:
    backfill = commands.add_parser(
        "backfill", help="learn from a repository's merged pull requests and their reviews"
    )
    backfill.add_argument("--repo", required=True, help="owner/name")
    backfill.add_argument(
        "--days", type=int, default=DEFAULT_DAYS, help="how far back to read (1-365, default 90)"
    )
    backfill.add_argument(
        "--max-prs",
        type=int,
        default=DEFAULT_MAX_PRS,
        help="merged pull requests to read at most (default 300)",
    )
    backfill.add_argument(
        "--detach", action="store_true", help="queue it for the worker and return at once"
    )
    backfill.add_argument("--json", action="store_true", help="print the /v1/history shape")
    backfill.set_defaults(run=cmd_backfill)
