"""`hindsight brief|context`: what an agent is handed at session start and per tool call, from
the database or a running server, as text, as JSON (the `/v1` answer) or as an agent hook's.

As a hook (``--hook``) the command never blocks the agent: whatever goes wrong (a setting, the
database, the server, its own input) it prints nothing on stdout, a one-line note on stderr, and
exits 0, since a coding agent may refuse the tool call on any other status (Claude Code's
PreToolUse hook blocks it on 2). Asking a server costs only the standard library, and so does a
hook answered by the hooks' warm helper (``ghapp.cli.warm``); the database side is imported when
the command answers from the store itself."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ghapp.cli.base import CliError, Subparsers, current_repo
from ghapp.cli.hookpaths import hook_paths

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from continual.recall import SnapshotCache
    from ghapp.settings import Settings

URL_ENV = "HINDSIGHT_URL"
TOKEN_ENV = "HINDSIGHT_TOKEN"
SERVER_TIMEOUT_S = 10.0
NOTE_CHARS = 300  # the hook's note on stderr is one short line
SURFACES = ("brief", "context")

SettingsLoader = Callable[[], "Settings"]


def _hook_input(args: argparse.Namespace) -> dict[str, Any]:
    if not args.hook:
        return {}
    try:
        data = json.loads(sys.stdin.read() or "{}")
    except ValueError:
        raise CliError("--hook expects the hook's JSON on standard input") from None
    return data if isinstance(data, dict) else {}


def _print_hook(hook: dict[str, Any], text: str, event: str) -> None:
    if not text:
        return
    name = str(hook.get("hook_event_name") or event)
    print(json.dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}))


def _server_url(args: argparse.Namespace) -> str:
    return str(args.url or os.environ.get(URL_ENV, "")).rstrip("/")


def _ask_server(args: argparse.Namespace, call: str, params: dict[str, Any]) -> dict[str, Any]:
    # urllib.request (with http.client, email and ssl) is for this path only, not the store's.
    import urllib.error
    import urllib.parse
    import urllib.request

    url = _server_url(args)
    secret = args.token or os.environ.get(TOKEN_ENV)
    if not secret:
        raise CliError(f"asking {url} needs a token: pass --token or set {TOKEN_ENV}")
    request = urllib.request.Request(
        f"{url}/v1/{call}?{urllib.parse.urlencode(params, doseq=True)}",
        headers={"authorization": f"Bearer {secret}", "accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=SERVER_TIMEOUT_S) as response:
            status, raw = int(response.status), response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise CliError(f"could not reach {url}: {reason}") from None
    try:
        body = json.loads(raw) if raw else {}
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    if not 200 <= status < 300:
        error = body.get("error")
        message = error.get("message") if isinstance(error, dict) else None
        shown = message or raw[:200].decode("utf-8", "replace")
        raise CliError(f"{url} answered {status}: {shown}")
    if not isinstance(body.get("text"), str):
        raise CliError(f"{url} did not answer as a Hindsight server does (no text)")
    return body


@dataclass(frozen=True, slots=True)
class Ask:
    """What a brief or a context push asks the store: the same whether this process answers it
    or the hooks' warm helper does (``as_dict`` and ``from_dict`` carry it over its socket)."""

    surface: str
    repo: str
    session: str
    paths: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    person: str | None = None
    json: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "surface": self.surface,
            "repo": self.repo,
            "session": self.session,
            "paths": list(self.paths),
            "names": list(self.names),
            "words": list(self.words),
            "person": self.person,
            "json": self.json,
        }

    @classmethod
    def from_dict(cls, data: object) -> Ask:
        """The ask a helper was sent; a CliError for anything but its exact shape."""
        if not isinstance(data, dict):
            raise CliError("the ask is not an object")
        texts = {key: data.get(key) for key in ("surface", "repo", "session")}
        lists = {key: data.get(key, []) for key in ("paths", "names", "words")}
        person, as_json = data.get("person"), data.get("json", False)
        if (
            not all(isinstance(value, str) for value in texts.values())
            or texts["surface"] not in SURFACES
            or not all(
                isinstance(value, list) and all(isinstance(item, str) for item in value)
                for value in lists.values()
            )
            or not (person is None or isinstance(person, str))
            or not isinstance(as_json, bool)
        ):
            raise CliError("the ask does not have the shape of one")
        return cls(
            str(texts["surface"]),
            str(texts["repo"]),
            str(texts["session"]),
            tuple(lists["paths"]),
            tuple(lists["names"]),
            tuple(lists["words"]),
            person,
            as_json,
        )


def store_answer(
    engine: Engine, settings: Settings, ask: Ask, snapshots: SnapshotCache | None = None
) -> dict[str, Any]:
    """The answer from the store itself: the `/v1` answer's shape, as the server would give it
    (``snapshots``: the recall snapshots a long-lived process keeps warm between asks)."""
    from continual import persons
    from continual.persons import Preference
    from continual.surfaces import Handed, hand_brief, hand_context
    from ghapp.cli.common import known_repository, suppress_days
    from ghapp.db import reading

    target = known_repository(engine, ask.repo)
    card, person_id = Preference(), None
    if ask.person is not None:
        with reading(engine) as conn:
            person_id = persons.person_id_of(conn, target.account_id, ask.person)
            if person_id is not None:
                card = persons.get_preference(conn, person_id)
    common: dict[str, Any] = {
        "session_id": ask.session,
        "preference": card,
        "person_id": person_id,
        "now": time.time_ns() // 1_000_000,
        "suppress_days": suppress_days(settings),
        "snapshots": snapshots,
    }
    handed: Handed
    if ask.surface == "context":
        handed = hand_context(
            engine,
            settings.store_dir,
            target,
            paths=ask.paths,
            identifiers=ask.names,
            words=ask.words,
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
    if ask.json:
        from ghapp.api.shapes import handed_json

        return handed_json(target, handed)
    return {"text": handed.text}


def _ask_store(args: argparse.Namespace, load: SettingsLoader, ask: Ask) -> dict[str, Any]:
    """The answer from the store, by the hooks' warm helper when one is running for this
    store, else by this process (which then starts the helper for the hook calls to come)."""
    helper = None
    if args.hook:
        from ghapp.cli import warm

        helper = warm.socket_path()
        if helper is not None:
            answered = warm.ask(helper, ask.as_dict())
            if answered is not None:
                return answered
    from ghapp.cli.common import open_engine

    settings = load()
    if args.hook:  # a hook's stderr is for what went wrong, not for every handing
        logging.getLogger().setLevel(max(logging.WARNING, logging.getLogger().level))
    # A hook reads the store as it is: checking or running migrations is `serve`'s part.
    with open_engine(settings, ready=not args.hook) as engine:
        body = store_answer(engine, settings, ask)
    if helper is not None and settings.hook_helper_idle_s > 0:
        warm.start(helper)
    return body


def _hand(args: argparse.Namespace, load: SettingsLoader, surface: str) -> int:
    hook = _hook_input(args)
    cwd = Path(str(hook.get("cwd") or Path.cwd()))
    repo = args.repo or current_repo(cwd)
    session = args.session or hook.get("session_id") or f"cli-{os.urandom(6).hex()}"
    context = surface == "context"
    paths = [*(args.path or []), *hook_paths(hook)] if context else []
    names = list(args.identifier or []) if context else []
    words = list(args.word or []) if context else []
    if context and not (paths or names or words):
        if args.hook:
            return 0  # a tool call that touches no path: nothing to push
        raise CliError("give --path, --identifier or --word: what the tool call touches")
    if _server_url(args):
        params: dict[str, Any] = {"repo": repo, "session": str(session)}
        if context:
            params.update(path=paths, identifier=names, word=words)
        body = _ask_server(args, surface, params)
    else:
        found = (tuple(paths), tuple(names), tuple(words))
        ask = Ask(surface, repo, str(session), *found, person=args.person, json=args.json)
        body = _ask_store(args, load, ask)
    if args.json:
        print(json.dumps(body, indent=2, sort_keys=True))
    elif args.hook:
        _print_hook(hook, body["text"], "SessionStart" if surface == "brief" else "PreToolUse")
    elif body["text"]:
        print(body["text"])
    return 0


def note(exc: BaseException) -> str:
    """One short line saying what went wrong, without a traceback."""
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    if not isinstance(exc, CliError) and type(exc).__name__ not in text:
        text = f"{type(exc).__name__}: {text}" if lines else text
    return text[:NOTE_CHARS]


def _as_hook(args: argparse.Namespace, load: SettingsLoader, surface: str) -> int:
    """Run as a hook: exit 0 whatever happens, with a note on stderr when it went wrong."""
    try:
        return _hand(args, load, surface)
    except BaseException as exc:  # a hook never blocks the agent, whatever went wrong
        print(
            f"hindsight {surface} --hook: no lessons for this call ({note(exc)})",
            file=sys.stderr,
        )
        return 0


def _as_command(args: argparse.Namespace, load: SettingsLoader, surface: str) -> int:
    """Run from a prompt: a problem the user can fix is one line, exit 1 (a setting: 2)."""
    try:
        return _hand(args, load, surface)
    except CliError as exc:
        print(f"hindsight: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:
        from continual.persons import NotFound
        from ghapp.db import NotMigrated
        from ghapp.settings import SettingsError
        from review.config import ConfigError

        if isinstance(exc, ConfigError | NotFound | SettingsError | NotMigrated):
            print(f"hindsight: {exc}", file=sys.stderr)
            return 1 if isinstance(exc, ConfigError | NotFound) else 2
        raise


def cmd_brief(args: argparse.Namespace, load: SettingsLoader) -> int:
    return (_as_hook if args.hook else _as_command)(args, load, "brief")


def cmd_context(args: argparse.Namespace, load: SettingsLoader) -> int:
    return (_as_hook if args.hook else _as_command)(args, load, "context")


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
        help="read an agent hook's JSON on stdin; print additionalContext JSON; never fail",
    )
    parser.set_defaults(own_settings=True)


def add_brief(commands: Subparsers) -> None:
    brief = commands.add_parser(
        "brief",
        help="print the brief for an agent's session start",
        description="The lessons of the repository an agent's session starts with, from the "
        "database here or from a running server (--url); as a SessionStart hook with --hook.",
    )
    _agent_options(brief)
    brief.set_defaults(run=cmd_brief)


def add_context(commands: Subparsers) -> None:
    context = commands.add_parser(
        "context",
        help="print a context push for one tool call",
        description="The lessons one tool call's paths and names retrieve that the session "
        "does not hold yet; as a PreToolUse hook with --hook (paths read from the tool's "
        "input, shell commands included, against the working directory and the workspace).",
    )
    _agent_options(context)
    context.add_argument("--path", action="append", help="a path the tool call touches")
    context.add_argument("--identifier", action="append", help="a name the tool call touches")
    context.add_argument("--word", action="append", help="a word of the tool call")
    context.set_defaults(run=cmd_context)
