"""`hindsight replay|redeliver`: webhook deliveries sent again, by hand or by GitHub after downtime."""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path

import httpx

from ghapp.cli.common import Subparsers
from ghapp.settings import Settings
from ghapp.signature import sign


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


def cmd_redeliver(args: argparse.Namespace, settings: Settings) -> int:
    from ghapp.github.client import GitHubClient
    from ghapp.github.errors import GitHubError
    from ghapp.redeliver import catch_up, parse_duration

    try:
        window = parse_duration(args.since)
    except ValueError as exc:
        print(f"hindsight redeliver: --since {exc}", file=sys.stderr)
        return 2
    settings.require_github()
    since = datetime.now(UTC) - window
    github = GitHubClient.from_settings(settings)
    try:
        done = asyncio.run(catch_up(github, since=since, dry_run=args.dry_run))
    except GitHubError as exc:
        print(f"hindsight redeliver: {exc}", file=sys.stderr)
        return 1
    for attempt in done.failed:
        at = attempt.delivered_at.strftime("%Y-%m-%d %H:%M:%S") if attempt.delivered_at else "-"
        event = f"{attempt.event}.{attempt.action}" if attempt.action else attempt.event
        print(f"{attempt.guid}  {at}  {event:<32} {attempt.status_code:>3} {attempt.status}")
    verb = "would ask" if args.dry_run else "asked"
    print(
        f"{len(done.failed)} failed deliveries among {done.attempts} attempts since "
        f"{since:%Y-%m-%d %H:%M} UTC; {verb} GitHub to redeliver {len(done.failed)}",
        file=sys.stderr,
    )
    return 0


def add_replay(commands: Subparsers) -> None:
    replay = commands.add_parser("replay", help="sign a recorded delivery and post it to a server")
    replay.add_argument("file", help="a webhook payload (JSON) to send")
    replay.add_argument("--event", required=True, help="the X-GitHub-Event, e.g. pull_request")
    replay.add_argument("--url", help="default: http://HINDSIGHT_HOST:HINDSIGHT_PORT/webhooks")
    replay.add_argument("--delivery", help="the X-GitHub-Delivery id (default: a new uuid)")
    replay.set_defaults(run=cmd_replay)


def add_redeliver(commands: Subparsers) -> None:
    redeliver = commands.add_parser(
        "redeliver", help="ask GitHub to redeliver the webhooks that failed (after downtime)"
    )
    redeliver.add_argument(
        "--since", default="6h", help="how far back to look: 90s, 30m, 6h, 3d (default 6h)"
    )
    redeliver.add_argument(
        "--dry-run", action="store_true", help="list the failed deliveries; ask for nothing"
    )
    redeliver.set_defaults(run=cmd_redeliver)
