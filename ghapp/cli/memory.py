"""`hindsight memory show|clear <review>`, `hindsight memory view|on|off|clear|rebuild --repo R`
and `hindsight memory summary`: one review's session memory, a repository's memory switch (off
by default) and all its memory data, and its memory summary."""

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
    if args.memory_command in REPOSITORY_COMMANDS or getattr(args, "repo", None) is not None:
        return _repository_memory(args, settings)
    if args.review is None:
        print(
            f"hindsight memory {args.memory_command}: give a review id or --repo", file=sys.stderr
        )
        return 2
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


REPOSITORY_COMMANDS = ("view", "on", "off", "rebuild")


def _repository_memory(args: argparse.Namespace, settings: Settings) -> int:
    """The switch and all the memory data of one repository."""
    command = args.memory_command
    if args.repo is None:
        print(f"hindsight memory {command}: --repo owner/name is required", file=sys.stderr)
        return 2
    if command == "clear" and args.review is not None:
        print("hindsight memory clear: give a review id or --repo, not both", file=sys.stderr)
        return 2
    with open_engine(settings) as engine:
        with engine.connect() as conn:
            target = repository_target(conn, args.repo)
        if target is None:
            return unknown_repository(f"memory {command}", args.repo)
        if command == "clear":
            cleared = memory.clear_memory(
                engine,
                settings.store_dir,
                account_id=target.account_id,
                repository_id=target.repository_id,
                repository=target.repository,
            )
            print(
                f"{args.repo}: deleted all memory: {cleared.items} items, {cleared.hits} hits, "
                f"{cleared.summaries} summary, {cleared.files} files"
            )
            return 0
        if command in ("on", "off"):
            with engine.begin() as conn:
                memory.set_memory(
                    conn,
                    account_id=target.account_id,
                    repository_id=target.repository_id,
                    enabled=command == "on",
                    actor=CLI_ACTOR,
                    now=now_ms(),
                )
        with engine.connect() as conn:
            switch = memory.memory_switch(conn, target.repository_id)
        if command == "rebuild" and not switch.enabled:
            print(
                f"hindsight memory rebuild: memory is off for {args.repo} "
                f"(turn it on: hindsight memory on --repo {args.repo})",
                file=sys.stderr,
            )
            return 1
        summary = _summary(engine, target, "rebuild" if command == "rebuild" else "view")
    state = "on" if switch.enabled else "off"
    print(f"{args.repo}: memory is {state}")
    if switch.enabled:
        print(summary.text if summary.text else "(no memory summary is handed)")
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
        "memory",
        help="a repository's memory (off by default): view, on, off, clear, rebuild; "
        "one review's session memory; the summary",
    )
    memory_sub = group.add_subparsers(
        dest="memory_command", metavar="show|clear|view|on|off|rebuild|summary", required=True
    )
    show = memory_sub.add_parser("show", help="print the review's session-memory.jsonl")
    show.add_argument("review", help="the review id (r_…)")
    show.add_argument("--json", action="store_true", help="the raw JSON lines")
    show.set_defaults(repo=None)
    clear = memory_sub.add_parser(
        "clear", help="delete a review's memory, or with --repo ALL the repository's memory data"
    )
    clear.add_argument("review", nargs="?", help="the review id (r_…)")
    clear.add_argument("--repo", help="the repository, owner/name: items, hits, summary, files")
    clear.set_defaults(json=False)
    for name, text in (
        ("view", "whether the repository's memory is on, and the summary it hands"),
        ("on", "turn the repository's memory on (it is off by default)"),
        ("off", "turn the repository's memory off (what is stored stays: clear it)"),
        ("rebuild", "build the repository's memory summary again now"),
    ):
        switch = memory_sub.add_parser(name, help=text)
        switch.add_argument("--repo", required=True, help="the repository, owner/name")
        switch.set_defaults(review=None, json=False)
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
