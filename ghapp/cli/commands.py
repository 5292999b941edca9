"""The `hindsight` command line: the parser, every command wired in one table, and `main`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from ghapp.cli import (
    agents,
    deliveries,
    history,
    jobs,
    ledger,
    lessons,
    memory,
    purge,
    recall,
    serve,
    setup,
    tokens,
)
from ghapp.cli.common import Subparsers
from ghapp.db import NotMigrated
from ghapp.logs import configure_logging
from ghapp.settings import SettingsError, load_settings
from review.config import ConfigError

DESCRIPTION = (
    "The `hindsight` command line: serve, worker, migrate, jobs, replay, purge and the rest."
)

# Every command, in the order `hindsight --help` lists them. Each adds its parser (its options,
# its help, the function it runs) to the subparsers it is given; this is the one place a command
# is wired.
COMMANDS: tuple[Callable[[Subparsers], None], ...] = (
    serve.add_demo,
    setup.add_init,
    deliveries.add_redeliver,
    serve.add_serve,
    serve.add_worker,
    serve.add_migrate,
    jobs.add_jobs,
    deliveries.add_replay,
    lessons.add_entry,
    memory.add_memory,
    lessons.add_consolidate,
    ledger.add_ledger,
    tokens.add_tokens,
    recall.add_recall,
    agents.add_brief,
    agents.add_context,
    lessons.add_maintain,
    history.add_backfill,
    setup.add_setup,
    purge.add_purge,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hindsight", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
        configure_logging(settings.log_level, settings.log_format)
        code: int = args.run(args, settings)
    except (SettingsError, NotMigrated, ConfigError) as exc:
        print(f"hindsight: {exc}", file=sys.stderr)
        return 2
    return code
