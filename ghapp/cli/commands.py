"""The `hindsight` command line: the parser, every command wired in one table, and `main`.

The table names each command's module and the function that adds its parser; a command's module
is imported only when that command runs (or when the whole help is shown), and each module
imports the server side it needs inside the functions that need it. So an agent hook pays for
what it uses, not for the web app, the database layer and the GitHub client."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any

from ghapp.logs import configure_logging

if TYPE_CHECKING:
    from ghapp.settings import Settings

DESCRIPTION = (
    "Hindsight, a GitHub App for code review that learns: run the app (serve, worker, migrate), "
    "try it (demo, simulator), operate it (jobs, replay, purge, ledger, tokens) and hand its "
    "lessons to coding agents (brief, context). `hindsight COMMAND --help` describes each."
)
AGENT_COMMANDS = ("brief", "context")

# Every command, in the order `hindsight --help` lists them: its name, the module of
# ghapp.cli that defines it, and the function there that adds its parser (its options, its help,
# the function it runs) to the subparsers it is given. This is the one place a command is wired.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("demo", "serve", "add_demo"),
    ("simulator", "simulator", "add_simulator"),
    ("init", "setup", "add_init"),
    ("redeliver", "deliveries", "add_redeliver"),
    ("serve", "serve", "add_serve"),
    ("worker", "serve", "add_worker"),
    ("migrate", "serve", "add_migrate"),
    ("jobs", "jobs", "add_jobs"),
    ("replay", "deliveries", "add_replay"),
    ("entry", "lessons", "add_entry"),
    ("memory", "memory", "add_memory"),
    ("consolidate", "lessons", "add_consolidate"),
    ("ledger", "ledger", "add_ledger"),
    ("tokens", "tokens", "add_tokens"),
    ("recall", "recall", "add_recall"),
    ("brief", "agents", "add_brief"),
    ("context", "agents", "add_context"),
    ("hook-helper", "helper", "add_hook_helper"),
    ("maintain", "lessons", "add_maintain"),
    ("backfill", "history", "add_backfill"),
    ("setup", "setup", "add_setup"),
    ("purge", "purge", "add_purge"),
)


def version() -> str:
    """The installed package's version (or `unknown` when run from a tree never installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("hindsight-app")
    except PackageNotFoundError:
        return "unknown"


class _Version(argparse.Action):
    """`--version`: the installed version, looked up only when asked (metadata costs a read)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(f"hindsight {version()}")
        parser.exit()


def _describe(parser: argparse.ArgumentParser) -> None:
    """Give every subcommand the description its one-line help says, when it has none."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, child in action.choices.items():
                if child.description is None and helps.get(name):
                    text = str(helps[name])
                    child.description = text[:1].upper() + text[1:] + "."
                _describe(child)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only`` (a command's name), the parser of that command alone."""
    parser = argparse.ArgumentParser(prog="hindsight", description=DESCRIPTION)
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module, adder in COMMANDS:
        if only is None or name == only:
            add: Any = getattr(import_module(f"ghapp.cli.{module}"), adder)
            add(sub)
    _describe(parser)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The command named by ``argv`` when it is one of the table's, else None."""
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    return first if first in {name for name, _, _ in COMMANDS} else None


def load_configured() -> Settings:
    """The settings, with logging configured by them (a SettingsError when they are wrong)."""
    from ghapp.settings import load_settings

    settings = load_settings()
    configure_logging(settings.log_level, settings.log_format)
    return settings


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = _command_of(argv)
    if not argv:
        build_parser().print_help()
        return 0
    as_hook = command in AGENT_COMMANDS and "--hook" in argv
    try:
        args = build_parser(command).parse_args(argv)
    except SystemExit as exit_:
        if as_hook and exit_.code not in (0, None):
            return 0  # a hook never blocks the agent, not even on a wrong option
        raise
    if args.command is None:
        build_parser().print_help()
        return 0
    if getattr(args, "own_settings", False):
        # The command loads the settings when it needs them (an agent hook asking a server never).
        code: int = args.run(args, load_configured)
        return code
    from ghapp.db import NotMigrated
    from ghapp.settings import SettingsError
    from review.config import ConfigError

    try:
        code = args.run(args, load_configured())
    except (SettingsError, NotMigrated, ConfigError) as exc:
        print(f"hindsight: {exc}", file=sys.stderr)
        return 2
    return code
