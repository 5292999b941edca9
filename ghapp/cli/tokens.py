"""`hindsight tokens create|list|revoke`: persons' API tokens, shown once and stored hashed."""

from __future__ import annotations

import argparse
import sys

from continual import persons
from ghapp.cli.common import Subparsers, guarded, minute, open_engine
from ghapp.jobs import now_ms
from ghapp.settings import Settings


def cmd_tokens(args: argparse.Namespace, settings: Settings) -> int:
    def run() -> int:
        with open_engine(settings) as engine, engine.begin() as conn:
            if args.tokens_command == "create":
                made = persons.create_token(conn, args.account, args.person, now=now_ms())
                print(made.secret)
                print(
                    f"token {made.info.id} for {args.person} in {args.account}: shown once, "
                    "stored hashed; keep it like a password",
                    file=sys.stderr,
                )
            elif args.tokens_command == "revoke":
                info = persons.revoke_token(
                    conn, args.account, args.person, args.token_id, now=now_ms()
                )
                print(f"revoked {info.id} ({info.prefix}…) of {info.person}")
            else:
                listed = persons.list_tokens(conn, args.account, args.person)
                print(
                    f"{'id':<16} {'prefix':<12} {'person':<20} {'created':<16} {'last used':<16} revoked"
                )
                for t in listed:
                    print(
                        f"{t.id:<16} {t.prefix:<12} {t.person:<20} {minute(t.created_ms):<16} "
                        f"{minute(t.last_used_ms):<16} {minute(t.revoked_ms)}"
                    )
        return 0

    return guarded(run)


def add_tokens(commands: Subparsers) -> None:
    tokens = commands.add_parser("tokens", help="create, list or revoke API tokens")
    tokens_sub = tokens.add_subparsers(
        dest="tokens_command", metavar="create|list|revoke", required=True
    )
    for name, help_text in (
        ("create", "make a token (printed once)"),
        ("list", "list tokens"),
        ("revoke", "revoke a token by id or prefix"),
    ):
        one = tokens_sub.add_parser(name, help=help_text)
        one.add_argument("--account", required=True, help="the account's login")
        one.add_argument("--person", required=name != "list", help="the person's GitHub login")
        if name == "revoke":
            one.add_argument("token_id", help="the token's id or listed prefix")
    tokens.set_defaults(run=cmd_tokens, person=None)
