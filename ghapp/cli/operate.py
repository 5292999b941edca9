"""`hindsight init` (a commented hindsight.toml) and `hindsight redeliver` (catch up after downtime)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ghapp.cli.template import HINDSIGHT_TOML
from ghapp.settings import Settings


def cmd_init(args: argparse.Namespace, settings: Settings) -> int:
    path = Path(args.path) if args.path else settings.config
    if path.exists() and not args.force:
        print(
            f"hindsight init: {path} already exists; nothing was written "
            "(pass --force to replace it)",
            file=sys.stderr,
        )
        return 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HINDSIGHT_TOML, encoding="utf-8")
    print(f"wrote {path}: keep the seats you will use, set their key variables, then run")
    print("`hindsight serve` (it checks the file and names any problem before it starts)")
    return 0


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


def add_commands(subparsers: Any) -> None:
    """Register `init` and `redeliver` on the `hindsight` command's subparsers."""
    init = subparsers.add_parser("init", help="write a commented hindsight.toml to start from")
    init.add_argument("--path", help="where to write it (default: HINDSIGHT_CONFIG)")
    init.add_argument("--force", action="store_true", help="replace an existing file")
    init.set_defaults(run=cmd_init)

    redeliver = subparsers.add_parser(
        "redeliver", help="ask GitHub to redeliver the webhooks that failed (after downtime)"
    )
    redeliver.add_argument(
        "--since", default="6h", help="how far back to look: 90s, 30m, 6h, 3d (default 6h)"
    )
    redeliver.add_argument(
        "--dry-run", action="store_true", help="list the failed deliveries; ask for nothing"
    )
    redeliver.set_defaults(run=cmd_redeliver)
