"""`hindsight memory show|clear <review>` and `hindsight memory summary`: one review's session
memory, and a repository's memory summary."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from sqlalchemy import Engine

from continual import memory
from continual.injections import Target
from continual.recall import build_snapshot
from continual.summary.store import StoredSummary, clear_summary, current_summary
from ghapp.api.shapes import summary_json
from ghapp.cli.common import Subparsers, open_engine, repository_target, unknown_repository
from ghapp.jobs import now_ms
from ghapp.settings import Settings

CLI_ACTOR = "cli"


def cmd_memory(args: argparse.Namespace, settings: Settings) -> int:
    try:
        memory.check_review_id(args.review)
    except ValueError as exc:
        print(f"hindsight memory: {exc}", file=sys.stderr)
        return 2
    if args.memory_command == "clear":
        with open_engine(settings) as engine:
            cleared = memory.forget(engine, settings.store_dir, args.review)
        print(
            f"cleared review {args.review}: {cleared.items} memory items, "
            f"{cleared.hits} hits, {cleared.files} files"
        )
        return 0
    path = memory.find_session_file(settings.store_dir, args.review)
    if path is None:
        print(
            f"hindsight memory: no session-memory.jsonl for review {args.review} "
            f"under {settings.store_dir}",
            file=sys.stderr,
        )
        return 1
    lines = memory.read_session_file(path)
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
    # A line written before sources were recorded has none: its state alone is shown.
    tag = ", ".join(str(part) for part in (line.get("state"), line.get("source")) if part)
    return (
        f"{kind:<9} {line.get('kind'):<10} [{tag}] {line.get('text')} "
        f"(session {line.get('session')}, seat {line.get('seat')})"
    )


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
            target = repository_target(conn, args.repo)
        if target is None:
            return unknown_repository("memory summary", args.repo)
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


def add_memory(commands: Subparsers) -> None:
    group = commands.add_parser(
        "memory", help="show or clear one review's session memory; a repository's summary"
    )
    memory_sub = group.add_subparsers(
        dest="memory_command", metavar="show|clear|summary", required=True
    )
    show = memory_sub.add_parser("show", help="print the review's session-memory.jsonl")
    show.add_argument("review", help="the review id (r_…)")
    show.add_argument("--json", action="store_true", help="the raw JSON lines")
    clear = memory_sub.add_parser("clear", help="delete the review's memory, hits and file")
    clear.add_argument("review", help="the review id (r_…)")
    clear.set_defaults(json=False)
    group.set_defaults(run=cmd_memory)

    summary = memory_sub.add_parser(
        "summary", help="view, clear or rebuild a repository's memory summary"
    )
    summary.add_argument("--repo", required=True, help="the repository, owner/name")
    which = summary.add_mutually_exclusive_group()
    which.add_argument("--clear", action="store_true", help="withdraw it until its sources change")
    which.add_argument("--rebuild", action="store_true", help="build it again now")
    summary.add_argument("--json", action="store_true", help="the /v1/memory/summary answer")
    summary.set_defaults(run=cmd_summary)
