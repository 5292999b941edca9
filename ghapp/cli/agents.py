"""`hindsight brief|context`: what an agent is handed at session start and per tool call, from
the database or a running server, as text, as JSON (the `/v1` answer) or as an agent hook's."""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Engine

from continual import persons
from continual.persons import Preference
from continual.surfaces import Handed, Target, hand_brief, hand_context
from ghapp.api.shapes import handed_json
from ghapp.cli.common import (
    CliError,
    Subparsers,
    current_repo,
    guarded,
    known_repository,
    open_engine,
    suppress_days,
)
from ghapp.db import reading
from ghapp.jobs import now_ms
from ghapp.settings import Settings

URL_ENV = "HINDSIGHT_URL"
TOKEN_ENV = "HINDSIGHT_TOKEN"
HOOK_PATH_FIELDS = ("file_path", "path", "notebook_path")


def _hook_input(args: argparse.Namespace) -> dict[str, Any]:
    if not args.hook:
        return {}
    try:
        data = json.loads(sys.stdin.read() or "{}")
    except ValueError:
        raise CliError("--hook expects the hook's JSON on standard input") from None
    return data if isinstance(data, dict) else {}


def _paths_of(hook: dict[str, Any]) -> list[str]:
    tool = hook.get("tool_input")
    if not isinstance(tool, dict):
        return []
    cwd = Path(str(hook.get("cwd") or "."))
    found = []
    for name in HOOK_PATH_FIELDS:
        value = tool.get(name)
        if isinstance(value, str) and value:
            path = Path(value)
            if path.is_absolute():
                try:
                    path = path.relative_to(cwd)
                except ValueError:
                    continue
            found.append(path.as_posix())
    return found


def _print_hook(hook: dict[str, Any], text: str, event: str) -> None:
    if not text:
        return
    name = str(hook.get("hook_event_name") or event)
    print(json.dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}))


def _ask_server(args: argparse.Namespace, call: str, params: dict[str, Any]) -> dict[str, Any]:
    url = (args.url or os.environ.get(URL_ENV, "")).rstrip("/")
    secret = args.token or os.environ.get(TOKEN_ENV)
    if not secret:
        raise CliError(f"asking {url} needs a token: pass --token or set {TOKEN_ENV}")
    try:
        response = httpx.get(
            f"{url}/v1/{call}",
            params=params,
            headers={"authorization": f"Bearer {secret}"},
            timeout=10,
        )
    except httpx.HTTPError as exc:
        raise CliError(f"could not reach {url}: {type(exc).__name__}") from None
    body: dict[str, Any] = response.json() if response.content else {}
    if not response.is_success:
        message = body.get("error", {}).get("message", response.text)
        raise CliError(f"{url} answered {response.status_code}: {message}")
    return body


def _local_person(
    engine: Engine, target: Target, login: str | None
) -> tuple[Preference, int | None]:
    if login is None:
        return Preference(), None
    with reading(engine) as conn:
        person_id = persons.person_id_of(conn, target.account_id, login)
        card = Preference() if person_id is None else persons.get_preference(conn, person_id)
    return card, person_id


def _hand(args: argparse.Namespace, settings: Settings, surface: str) -> int:
    hook = _hook_input(args)
    repo = args.repo or current_repo(Path(str(hook.get("cwd") or Path.cwd())))
    session = args.session or hook.get("session_id") or f"cli-{uuid.uuid4().hex[:12]}"
    paths = [*(args.path or []), *_paths_of(hook)] if surface == "context" else []
    names = list(args.identifier or []) if surface == "context" else []
    words = list(args.word or []) if surface == "context" else []
    if surface == "context" and not (paths or names or words):
        if args.hook:
            return 0  # a tool call that touches no path: nothing to push
        raise CliError("give --path, --identifier or --word: what the tool call touches")
    if args.url or os.environ.get(URL_ENV):
        params: dict[str, Any] = {"repo": repo, "session": session}
        if surface == "context":
            params.update(path=paths, identifier=names, word=words)
        body = _ask_server(args, surface, params)
    else:
        with open_engine(settings) as engine:
            target = known_repository(engine, repo)
            card, person_id = _local_person(engine, target, args.person)
            common: dict[str, Any] = {
                "session_id": session,
                "preference": card,
                "person_id": person_id,
                "now": now_ms(),
                "suppress_days": suppress_days(settings),
            }
            handed: Handed
            if surface == "context":
                handed = hand_context(
                    engine,
                    settings.store_dir,
                    target,
                    paths=paths,
                    identifiers=names,
                    words=words,
                    max_tokens=settings.hook_injection_tokens,
                    **common,
                )
            else:
                handed = hand_brief(
                    engine,
                    settings.store_dir,
                    target,
                    max_tokens=settings.call_injection_tokens,
                    **common,
                )
            body = handed_json(target, handed)
    if args.json:
        print(json.dumps(body, indent=2, sort_keys=True))
    elif args.hook:
        _print_hook(hook, body["text"], "SessionStart" if surface == "brief" else "PreToolUse")
    elif body["text"]:
        print(body["text"])
    return 0


def cmd_brief(args: argparse.Namespace, settings: Settings) -> int:
    return guarded(lambda: _hand(args, settings, "brief"))


def cmd_context(args: argparse.Namespace, settings: Settings) -> int:
    return guarded(lambda: _hand(args, settings, "context"))


def _agent_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", help="owner/name (default: the git remote origin here)")
    parser.add_argument("--session", help="the agent's session id (default: a new one)")
    parser.add_argument("--person", help="whose preference card applies (database mode)")
    parser.add_argument("--url", help=f"ask this running server (or set {URL_ENV})")
    parser.add_argument("--token", help=f"the API token for --url (or set {TOKEN_ENV})")
    parser.add_argument("--json", action="store_true", help="print the whole answer as JSON")
    parser.add_argument(
        "--hook",
        action="store_true",
        help="read an agent hook's JSON on stdin; print additionalContext JSON",
    )


def add_brief(commands: Subparsers) -> None:
    brief = commands.add_parser("brief", help="print the brief for an agent's session start")
    _agent_options(brief)
    brief.set_defaults(run=cmd_brief)


def add_context(commands: Subparsers) -> None:
    context = commands.add_parser("context", help="print a context push for one tool call")
    _agent_options(context)
    context.add_argument("--path", action="append", help="a path the tool call touches")
    context.add_argument("--identifier", action="append", help="a name the tool call touches")
    context.add_argument("--word", action="append", help="a word of the tool call")
    context.set_defaults(run=cmd_context)
