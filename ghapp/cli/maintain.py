"""`hindsight maintain` runs lesson maintenance for a repository; `recall --retired` explains it."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, select

from continual.maintenance import Action, LessonChange, changes
from continual.tables import Repository
from ghapp.db import ensure_ready, reading
from ghapp.github.errors import GitHubError
from ghapp.jobs import now_ms
from ghapp.maintenance import MaintenanceRun, maintain
from ghapp.settings import Settings
from review.seats import make_seat

MISSING = "hindsight: {repo} is not a repository of an installation this store knows"


def _installation(engine: Engine, repo: str) -> tuple[int, int] | None:
    with reading(engine) as conn:
        row = conn.execute(
            select(Repository.installation_id, Repository.account_id).where(
                Repository.full_name == repo, Repository.removed_ms.is_(None)
            )
        ).first()
    if row is None or row.installation_id is None:
        return None
    return int(row.installation_id), int(row.account_id)


def print_run(run: MaintenanceRun, *, dry_run: bool) -> None:
    """One line per decision, then the counts (on stderr)."""
    for verdict in run.verdicts:
        lesson = run.lessons.get(verdict.entry_id)
        key = lesson.key if lesson is not None else ""
        print(
            f"{verdict.action.value:<6} {verdict.entry_id} r{verdict.revision} {key}: "
            f"{verdict.reason} ({verdict.actor})"
        )
        if verdict.text is not None and lesson is not None and verdict.text != lesson.text:
            print(f"    now: {verdict.text}")
    counts = ", ".join(f"{action} {run.count(action)}" for action in Action)
    suffix = " (dry run: nothing written)" if dry_run else ""
    print(
        f"{len(run.verdicts)} decision(s) at {run.head[:12]}: {counts}; "
        f"{run.reads.total} GitHub request(s){suffix}",
        file=sys.stderr,
    )


def cmd_maintain(args: argparse.Namespace, settings: Settings) -> int:
    from ghapp.app import build_deps

    settings.require_github()
    deps = build_deps(settings)
    try:
        ensure_ready(deps.engine)
        found = _installation(deps.engine, args.repo)
        if found is None:
            print(MISSING.format(repo=args.repo), file=sys.stderr)
            return 1
        assert deps.github is not None
        client = deps.github.installation(found[0])
        config = deps.review_config
        name = config.maintenance.seat if config is not None else None
        seat = make_seat(config.seat(name)) if config is not None and name else None

        async def run() -> MaintenanceRun:
            branch = (await client.get_repository(args.repo)).default_branch
            head = (await client.compare(args.repo, branch, branch)).merge_base_sha
            return await maintain(
                client,
                deps.engine,
                repo=args.repo,
                head=head,
                now=now_ms(),
                seat=seat,
                dry_run=args.dry_run,
            )

        try:
            result = asyncio.run(run())
        except GitHubError as exc:
            print(f"hindsight: GitHub refused maintenance of {args.repo}: {exc}", file=sys.stderr)
            return 1
        if not result.verdicts:
            print(f"nothing to decide in {args.repo} at {result.head[:12]}", file=sys.stderr)
            return 0
        print_run(result, dry_run=args.dry_run)
        return 0
    finally:
        deps.engine.dispose()


def _time(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def change_line(change: LessonChange) -> dict[str, Any]:
    return {
        "id": change.entry_id,
        "repository": change.repository,
        "key": change.key,
        "action": change.action,
        "reason": change.reason,
        "commit": change.commit,
        "revision": change.revision,
        "before_text": change.before_text,
        "after_text": change.after_text,
        "actor": change.actor,
        "at_ms": change.at_ms,
        "retired": change.retired,
    }


def print_retired(engine: Engine, account_id: int, repo: str | None, *, as_json: bool) -> None:
    """What maintenance retired or adapted (and people restored): when, why, by which commit."""
    with reading(engine) as conn:
        found = [c for c in changes(conn, account_id) if repo is None or c.repository == repo]
    if as_json:
        print(json.dumps([change_line(c) for c in found], indent=2, sort_keys=True))
        return
    for c in found:
        commit = f" at {c.commit[:12]}" if c.commit else ""
        state = "retired" if c.retired else "live"
        print(
            f"{c.entry_id}  r{c.revision}  {c.action:<8} {_time(c.at_ms)}{commit} by {c.actor} "
            f"({state})\n    {c.key}\n    why: {c.reason}\n    was: {c.before_text}"
            + (f"\n    now: {c.after_text}" if c.after_text and c.action == "adapted" else "")
        )
    print(f"{len(found)} retired or adapted lesson change(s)", file=sys.stderr)


def add_commands(subparsers: Any) -> None:
    maintain_parser = subparsers.add_parser(
        "maintain", help="keep, adapt, retire or defer a repository's lessons against its code"
    )
    maintain_parser.add_argument("--repo", required=True, help="owner/name")
    maintain_parser.add_argument(
        "--dry-run", action="store_true", help="print each decision and write nothing"
    )
    maintain_parser.set_defaults(run=cmd_maintain)
