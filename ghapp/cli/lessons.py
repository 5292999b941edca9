"""`hindsight entry|consolidate|maintain`: a repository's lessons edited by a person, merged when
paraphrased, and kept, adapted or retired against its code."""

from __future__ import annotations

import argparse
import asyncio
import sys

from sqlalchemy import Engine, select

from continual.consolidation import MergePlan, consolidate
from continual.maintenance import Action
from continual.tables import Repository
from ghapp.cli.common import Subparsers, open_engine, repository_target, unknown_repository
from ghapp.db import ensure_ready, reading
from ghapp.github.errors import GitHubError
from ghapp.jobs import now_ms
from ghapp.maintenance import MaintenanceRun, maintain
from ghapp.settings import Settings
from review.seats import make_seat

MISSING = "hindsight: {repo} is not a repository of an installation this store knows"


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
            target = repository_target(conn, args.repo)
        if target is None:
            return unknown_repository("consolidate", args.repo)
        plan = consolidate(engine, target.repository_id, now=now_ms(), dry_run=args.dry_run)
    _print_plan(plan, repo=args.repo, dry_run=args.dry_run)
    return 0


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


def add_entry(commands: Subparsers) -> None:
    entry = commands.add_parser("entry", help="demote or restore a lesson entry (a person's edit)")
    entry.add_argument("action", choices=["demote", "restore"], help="what to do with the entry")
    entry.add_argument("entry_id", help="the entry's id (e_…, from `hindsight recall`)")
    entry.add_argument(
        "--expected-revision", type=int, required=True, help="the revision you looked at"
    )
    entry.add_argument("--actor", default="cli", help="who is editing (recorded on the entry)")
    entry.set_defaults(run=cmd_entry)


def add_consolidate(commands: Subparsers) -> None:
    merge = commands.add_parser(
        "consolidate", help="merge a repository's paraphrased lessons into one entry each"
    )
    merge.add_argument("--repo", required=True, help="the repository, owner/name")
    merge.add_argument(
        "--dry-run", action="store_true", help="say what would merge, change nothing"
    )
    merge.set_defaults(run=cmd_consolidate)


def add_maintain(commands: Subparsers) -> None:
    maintain_parser = commands.add_parser(
        "maintain", help="keep, adapt, retire or defer a repository's lessons against its code"
    )
    maintain_parser.add_argument("--repo", required=True, help="owner/name")
    maintain_parser.add_argument(
        "--dry-run", action="store_true", help="print each decision and write nothing"
    )
    maintain_parser.set_defaults(run=cmd_maintain)
