"""`hindsight memory show|clear <review>` and `hindsight ledger`: the review's own records."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any

from sqlalchemy import Engine

from ghapp.db import ensure_ready, make_engine
from ghapp.jobs import now_ms
from ghapp.settings import Settings
from review import persist
from review.ledger import Rate, RepositoryLedger, review_ledger


@contextmanager
def _engine(settings: Settings) -> Iterator[Engine]:
    engine = make_engine(settings.database_url)
    try:
        ensure_ready(engine)
        yield engine
    finally:
        engine.dispose()


def cmd_memory(args: argparse.Namespace, settings: Settings) -> int:
    try:
        persist.check_review_id(args.review)
    except ValueError as exc:
        print(f"hindsight memory: {exc}", file=sys.stderr)
        return 2
    if args.memory_command == "clear":
        with _engine(settings) as engine:
            cleared = persist.clear_session(engine, settings.store_dir, args.review)
        print(
            f"cleared review {args.review}: {cleared.items} memory items, "
            f"{cleared.hits} hits, {cleared.files} files"
        )
        return 0
    path = persist.find_session_file(settings.store_dir, args.review)
    if path is None:
        print(
            f"hindsight memory: no session-memory.jsonl for review {args.review} "
            f"under {settings.store_dir}",
            file=sys.stderr,
        )
        return 1
    lines = persist.read_session_file(path)
    if args.json:
        for line in lines:
            print(json.dumps(line, sort_keys=True))
        return 0
    for line in lines:
        print(_memory_line(line))
    return 0


def _memory_line(line: dict[str, Any]) -> str:
    kind = line.get("type")
    if kind == "session":
        return f"review {line.get('review')} of {line.get('repository')}"
    if kind == "hit":
        return (
            f"hit       {line.get('kind'):<10} {line.get('subject')} "
            f"(from session {line.get('recalled_session')}, seat {line.get('seat')})"
        )
    return (
        f"{kind:<9} {line.get('kind'):<10} [{line.get('state')}] {line.get('text')} "
        f"(session {line.get('session')}, seat {line.get('seat')})"
    )


def _rate(rate: Rate) -> str:
    value = "n/a" if rate.rate is None else f"{rate.rate:.0%}"
    return f"{value} ({rate.accepted} accepted, {rate.dismissed} dismissed, {rate.pending} pending)"


def print_ledger(item: RepositoryLedger) -> None:
    print(f"{item.repository}")
    print(f"  reviews: {item.reviews} ({item.posted} posted)")
    print(f"  calls: {item.calls_ok} ok, {item.calls_failed} failed, {item.calls_skipped} skipped")
    for failure in item.failures:
        print(f"    failed: seat {failure.seat}, {failure.reason}: {failure.count}")
    print(f"  acceptance with lessons handed: {_rate(item.with_lessons)}")
    print(f"  acceptance without lessons: {_rate(item.without_lessons)}")
    print(f"  memory hits: {item.hits}")
    states = ", ".join(f"{k} {v}" for k, v in sorted(item.memory.items())) or "none"
    print(f"  session memory: {states}")
    entries = ", ".join(f"{k} {v}" for k, v in sorted(item.entries.items())) or "none"
    print(f"  lesson entries: {entries}")
    if item.by_seat_lens:
        print(
            f"  {'seat':<16} {'lens':<14} {'sugg':>5} {'acc':>5} {'dis':>5} {'pend':>5} "
            f"{'proven':>6} {'agreed':>6}"
        )
    for row in item.by_seat_lens:
        print(
            f"  {row.seat:<16} {row.lens:<14} {row.suggestions:>5} {row.accepted:>5} "
            f"{row.dismissed:>5} {row.pending:>5} {row.proven:>6} {row.agreements:>6}"
        )


def cmd_ledger(args: argparse.Namespace, settings: Settings) -> int:
    with _engine(settings) as engine:
        ledgers = review_ledger(engine, now=now_ms(), repository=args.repo)
    if args.json:
        print(json.dumps([asdict(item) for item in ledgers], sort_keys=True, indent=2))
        return 0
    if not ledgers:
        print("no reviews yet")
        return 0
    for item in ledgers:
        print_ledger(item)
    return 0


def add_commands(subparsers: Any) -> None:
    """Register `memory` and `ledger` on the `hindsight` command's subparsers."""
    memory = subparsers.add_parser("memory", help="show or clear one review's session memory")
    memory_sub = memory.add_subparsers(dest="memory_command", metavar="show|clear", required=True)
    show = memory_sub.add_parser("show", help="print the review's session-memory.jsonl")
    show.add_argument("review", help="the review id (r_…)")
    show.add_argument("--json", action="store_true", help="the raw JSON lines")
    clear = memory_sub.add_parser("clear", help="delete the review's memory, hits and file")
    clear.add_argument("review", help="the review id (r_…)")
    clear.set_defaults(json=False)
    memory.set_defaults(run=cmd_memory)

    ledger = subparsers.add_parser("ledger", help="reviews, calls, suggestions and outcomes")
    ledger.add_argument("--repo", help="only this repository (owner/name)")
    ledger.add_argument("--json", action="store_true")
    ledger.set_defaults(run=cmd_ledger)
