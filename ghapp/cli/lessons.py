"""`hindsight consolidate` and `hindsight memory summary`: a repository's lessons kept compact."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from sqlalchemy import Connection, Engine, select

from continual.consolidation import MergePlan, consolidate
from continual.injections import Target, target_of
from continual.recall.snapshot import build_snapshot
from continual.summary.store import StoredSummary, clear_summary, current_summary
from continual.tables import Repository
from ghapp.api.shapes import summary_json
from ghapp.cli.common import open_engine
from ghapp.jobs import now_ms
from ghapp.settings import Settings

CLI_ACTOR = "cli"


def _target(conn: Connection, full_name: str) -> Target | None:
    account = conn.execute(
        select(Repository.account_id, Repository.id).where(Repository.full_name == full_name)
    ).one_or_none()
    return None if account is None else target_of(conn, account.account_id, account.id)


def _unknown(command: str, repo: str) -> int:
    print(
        f"hindsight {command}: no repository named {repo!r} is installed here "
        "(give it as owner/name)",
        file=sys.stderr,
    )
    return 1


def _print_plan(plan: MergePlan, *, repo: str, dry_run: bool) -> None:
    verb = "would merge" if dry_run else "merged"
    if not plan:
        print(f"{repo}: nothing to consolidate")
        return
    for merge in plan.merges:
        canonical = merge.canonical
        print(f"{canonical.id} r{canonical.revision} [{canonical.lens}] {canonical.title}")
        for other in merge.replaced:
            print(
                f"  {verb}: {other.id} r{other.revision} {other.title} (replaced_by {canonical.id})"
            )
    print(f"{repo}: {plan.replaced} lesson(s) {verb} into {len(plan.merges)}")


def cmd_consolidate(args: argparse.Namespace, settings: Settings) -> int:
    """Merge the repository's paraphrased lessons (or, with --dry-run, say which would merge)."""
    with open_engine(settings) as engine:
        with engine.connect() as conn:
            target = _target(conn, args.repo)
        if target is None:
            return _unknown("consolidate", args.repo)
        plan = consolidate(engine, target.repository_id, now=now_ms(), dry_run=args.dry_run)
    _print_plan(plan, repo=args.repo, dry_run=args.dry_run)
    return 0


def _summary(engine: Engine, target: Target, action: str) -> StoredSummary:
    now = now_ms()
    with engine.begin() as conn:
        snapshot = build_snapshot(conn, target.account_id, now=now)
        if action == "clear":
            return clear_summary(conn, target, snapshot, now=now, actor=CLI_ACTOR)
        return current_summary(conn, target, snapshot, now=now, rebuild=action == "rebuild")


def cmd_summary(args: argparse.Namespace, settings: Settings) -> int:
    """View the repository's memory summary; --clear withdraws it, --rebuild builds it again."""
    action = "clear" if args.clear else "rebuild" if args.rebuild else "view"
    with open_engine(settings) as engine:
        with engine.connect() as conn:
            target = _target(conn, args.repo)
        if target is None:
            return _unknown("memory summary", args.repo)
        summary = _summary(engine, target, action)
    if args.json:
        print(json.dumps(summary_json(summary), sort_keys=True))
        return 0
    state = "cleared" if summary.cleared_ms is not None else f"revision {summary.revision}"
    print(
        f"{args.repo}: memory summary, {state}, {summary.chars} chars "
        f"({summary.lessons} lessons, {summary.memories} memories, {summary.omitted} omitted)"
    )
    print(summary.text if summary.text else "(nothing is handed)")
    return 0


def add_commands(subparsers: Any, memory_commands: Any) -> None:
    """Register `consolidate`, and `summary` under `hindsight memory`."""
    merge = subparsers.add_parser(
        "consolidate", help="merge a repository's paraphrased lessons into one entry each"
    )
    merge.add_argument("--repo", required=True, help="the repository, owner/name")
    merge.add_argument(
        "--dry-run", action="store_true", help="say what would merge, change nothing"
    )
    merge.set_defaults(run=cmd_consolidate)

    summary = memory_commands.add_parser(
        "summary", help="view, clear or rebuild a repository's memory summary"
    )
    summary.add_argument("--repo", required=True, help="the repository, owner/name")
    which = summary.add_mutually_exclusive_group()
    which.add_argument("--clear", action="store_true", help="withdraw it until its sources change")
    which.add_argument("--rebuild", action="store_true", help="build it again now")
    summary.add_argument("--json", action="store_true", help="the /v1/memory/summary answer")
    summary.set_defaults(run=cmd_summary)
