"""`hindsight recall`: the lessons with their state, scope and expiry, and with `--retired` what
maintenance retired or adapted; `--json` prints them as `/v1/recall` does."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sqlalchemy import Engine, select

from continual.maintenance import changes
from continual.recall import load_lessons
from continual.suppression import Suppression, suppressed_entries
from continual.tables import Account
from continual.times import from_ms
from ghapp.api.shapes import change_json, lesson_json
from ghapp.cli.common import (
    CliError,
    Subparsers,
    current_repo,
    guarded,
    known_repository,
    minute,
    open_engine,
    suppress_days,
)
from ghapp.db import reading
from ghapp.jobs import now_ms
from ghapp.settings import Settings


def _recall_accounts(args: argparse.Namespace, engine: Engine) -> tuple[list[int], str | None]:
    """The accounts whose lessons `recall` lists, and the repository it narrows to (if any).

    ``--account`` names one; ``--repo`` (or, with neither of them nor ``--all``, the git remote
    here) picks the repository's account; ``--all`` alone lists every account's lessons.
    """
    if args.account:
        with reading(engine) as conn:
            account_id = conn.execute(
                select(Account.id).where(Account.login == args.account)
            ).scalar()
        if account_id is None:
            raise CliError(
                f"no account {args.account} in the database: is the app installed there?"
            )
        return [int(account_id)], args.repo
    if args.all and not args.repo:
        with reading(engine) as conn:
            return [
                int(i) for i in conn.execute(select(Account.id).order_by(Account.login)).scalars()
            ], None
    repo = args.repo or current_repo(Path.cwd())
    return [known_repository(engine, repo).account_id], repo


def cmd_recall(args: argparse.Namespace, settings: Settings) -> int:
    def run() -> int:
        now = now_ms()
        with open_engine(settings) as engine:
            accounts, repo = _recall_accounts(args, engine)
            if getattr(args, "retired", False):
                for account_id in accounts:
                    print_retired(engine, account_id, None if args.all else repo, as_json=args.json)
                return 0
            with reading(engine) as conn:
                lessons = [x for a in accounts for x in load_lessons(conn, a, now=now)]
                refused = suppressed_entries(
                    conn,
                    (x.repository_id for x in lessons),
                    now_ms=now,
                    suppress_days=suppress_days(settings),
                )
        shown = [
            x
            for x in lessons
            if args.all or repo is None or x.repository == repo or x.scope == "account"
        ]
        if args.json:
            lines = [lesson_json(x, refused.get(x.id)) for x in shown]
            print(json.dumps(lines, indent=2, sort_keys=True))
            return 0
        for x in shown:
            print(
                f"{x.id}  r{x.revision}  {x.state.value:<9} {x.scope.value:<10} {x.repository}  "
                f"confirmed {x.confirmations}x, expires {minute(x.expires_ms)}\n    {x.key}\n"
                f"    {x.text or '(no admitted text)'}"
            )
            if x.id in refused:
                print(f"    {_refusal(refused[x.id])}")
        print(f"{len(shown)} lesson(s)", file=sys.stderr)
        return 0

    return guarded(run)


def _refusal(found: Suppression) -> str:
    where = "repository-wide" if found.repository_wide else f"at {found.path}"
    until = (
        "until a person restores it"
        if found.until_ms is None
        else f"until {minute(found.until_ms)}"
    )
    return f"suppressed {where}: dismissed ({found.reason}) by {found.actor or 'a person'}, {until}"


def _utc(ms: int) -> str:
    return from_ms(ms).strftime("%Y-%m-%d %H:%M UTC")


def print_retired(engine: Engine, account_id: int, repo: str | None, *, as_json: bool) -> None:
    """What maintenance retired or adapted (and people restored): when, why, by which commit."""
    with reading(engine) as conn:
        found = [c for c in changes(conn, account_id) if repo is None or c.repository == repo]
    if as_json:
        print(json.dumps([change_json(c) for c in found], indent=2, sort_keys=True))
        return
    for c in found:
        commit = f" at {c.commit[:12]}" if c.commit else ""
        state = "retired" if c.retired else "live"
        print(
            f"{c.entry_id}  r{c.revision}  {c.action:<8} {_utc(c.at_ms)}{commit} by {c.actor} "
            f"({state})\n    {c.key}\n    why: {c.reason}\n    was: {c.before_text}"
            + (f"\n    now: {c.after_text}" if c.after_text and c.action == "adapted" else "")
        )
    print(f"{len(found)} retired or adapted lesson change(s)", file=sys.stderr)


def add_recall(commands: Subparsers) -> None:
    recall = commands.add_parser("recall", help="list lessons with state, scope and expiry")
    recall.add_argument("--repo", help="owner/name (default: the git remote origin here)")
    recall.add_argument("--account", help="every lesson of this account (its login)")
    recall.add_argument(
        "--all",
        action="store_true",
        help="every lesson of the repository's account (alone: of every account)",
    )
    recall.add_argument("--json", action="store_true", help="print the lessons as JSON")
    recall.add_argument(
        "--retired",
        action="store_true",
        help="what was retired or adapted: when, why, which commit",
    )
    recall.set_defaults(run=cmd_recall)
