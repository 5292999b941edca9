"""`hindsight purge --account A`: every row and file stored for an account deleted, once confirmed."""

from __future__ import annotations

import argparse
import json
import sys

from ghapp.cli.common import Subparsers, open_engine
from ghapp.settings import Settings


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


def add_purge(commands: Subparsers) -> None:
    purge = commands.add_parser("purge", help="delete everything stored for an account")
    purge.add_argument("--account", required=True, help="the account's login")
    purge.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    purge.set_defaults(run=cmd_purge)
