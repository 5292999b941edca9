"""`hindsight tokens|recall|brief|context`: persons' tokens, and lessons for people and agent hooks."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Engine, select

from continual import persons
from continual.persons import Preference
from continual.recall.lessons import load_lessons
from continual.suppression import Suppression, suppressed_entries
from continual.surfaces import Handed, Target, hand_brief, hand_context, target_named
from continual.tables import Account, Repository
from ghapp.cli.common import ConfigError, open_engine, suppress_days
from ghapp.cli.maintain import print_retired
from ghapp.db import reading
from ghapp.jobs import now_ms
from ghapp.settings import Settings

URL_ENV = "HINDSIGHT_URL"
TOKEN_ENV = "HINDSIGHT_TOKEN"
REMOTE = re.compile(r"(?:[:/])(?P<owner>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_.-]+?)(?:\.git)?/?$")
HOOK_PATH_FIELDS = ("file_path", "path", "notebook_path")


class CliError(Exception):
    """A problem the user can fix; the message says how."""


def _time(ms: int | None) -> str:
    if ms is None:
        return "-"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M")


def repo_from_remote(url: str) -> str | None:
    """``owner/name`` of a GitHub remote URL (https, ssh or scp-like), or None."""
    found = REMOTE.search(url.strip())
    return f"{found['owner']}/{found['name']}" if found else None


def _current_repo(cwd: Path) -> str:
    try:
        out = subprocess.run(
            ["git", "remote", "get-url", "origin"],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        raise CliError(f"{cwd} has no git remote `origin`: pass --repo owner/name") from None
    repo = repo_from_remote(out)
    if repo is None:
        raise CliError(f"cannot read owner/name from the remote {out.strip()!r}: pass --repo")
    return repo


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


def _local_target(engine: Engine, repo: str) -> Target:
    with reading(engine) as conn:
        account_id = conn.execute(
            select(Repository.account_id).where(Repository.full_name == repo)
        ).scalar()
        target = None if account_id is None else target_named(conn, int(account_id), repo)
    if target is None:
        raise CliError(f"no repository {repo} in the database: is the app installed on it?")
    return target


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
    repo = args.repo or _current_repo(Path(str(hook.get("cwd") or Path.cwd())))
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
            target = _local_target(engine, repo)
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
                    **common,
                )
            else:
                handed = hand_brief(engine, settings.store_dir, target, **common)
            body = {"repository": target.repository, **handed.as_json()}
    if args.json:
        print(json.dumps(body, indent=2, sort_keys=True))
    elif args.hook:
        _print_hook(hook, body["text"], "SessionStart" if surface == "brief" else "PreToolUse")
    elif body["text"]:
        print(body["text"])
    return 0


def cmd_brief(args: argparse.Namespace, settings: Settings) -> int:
    return _guard(lambda: _hand(args, settings, "brief"))


def cmd_context(args: argparse.Namespace, settings: Settings) -> int:
    return _guard(lambda: _hand(args, settings, "context"))


def _guard(action: Any) -> int:
    try:
        code: int = action()
    except (CliError, ConfigError, persons.NotFound) as exc:
        print(f"hindsight: {exc}", file=sys.stderr)
        return 1
    return code


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
                        f"{t.id:<16} {t.prefix:<12} {t.person:<20} {_time(t.created_ms):<16} "
                        f"{_time(t.last_used_ms):<16} {_time(t.revoked_ms)}"
                    )
        return 0

    return _guard(run)


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
    repo = args.repo or _current_repo(Path.cwd())
    return [_local_target(engine, repo).account_id], repo


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
            lines = [_lesson_line(x, refused.get(x.id)) for x in shown]
            print(json.dumps(lines, indent=2, sort_keys=True))
            return 0
        for x in shown:
            print(
                f"{x.id}  r{x.revision}  {x.state.value:<9} {x.scope.value:<10} {x.repository}  "
                f"confirmed {x.confirmations}x, expires {_time(x.expires_ms)}\n    {x.key}\n"
                f"    {x.text or '(no admitted text)'}"
            )
            if x.id in refused:
                print(f"    {_refusal(refused[x.id])}")
        print(f"{len(shown)} lesson(s)", file=sys.stderr)
        return 0

    return _guard(run)


def _refusal(found: Suppression) -> str:
    where = "repository-wide" if found.repository_wide else f"at {found.path}"
    until = (
        "until a person restores it" if found.until_ms is None else f"until {_time(found.until_ms)}"
    )
    return f"suppressed {where}: dismissed ({found.reason}) by {found.actor or 'a person'}, {until}"


def _lesson_line(lesson: Any, refused: Suppression | None = None) -> dict[str, Any]:
    return {
        "suppressed_until_ms": None if refused is None else refused.until_ms,
        "suppressed": refused is not None,
        "id": lesson.id,
        "key": lesson.key,
        "repository": lesson.repository,
        "scope": lesson.scope.value,
        "state": lesson.state.value,
        "revision": lesson.revision,
        "text": lesson.text,
        "confirmations": lesson.confirmations,
        "expires_ms": lesson.expires_ms,
    }


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


def add_commands(subparsers: Any) -> None:
    """Register tokens, recall, brief and context on the `hindsight` parser's subparsers."""
    tokens = subparsers.add_parser("tokens", help="create, list or revoke API tokens")
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

    recall = subparsers.add_parser("recall", help="list lessons with state, scope and expiry")
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

    brief = subparsers.add_parser("brief", help="print the brief for an agent's session start")
    _agent_options(brief)
    brief.set_defaults(run=cmd_brief)

    context = subparsers.add_parser("context", help="print a context push for one tool call")
    _agent_options(context)
    context.add_argument("--path", action="append", help="a path the tool call touches")
    context.add_argument("--identifier", action="append", help="a name the tool call touches")
    context.add_argument("--word", action="append", help="a word of the tool call")
    context.set_defaults(run=cmd_context)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one of these commands alone (the `hindsight` CLI registers them with add_commands)."""
    from ghapp.settings import load_settings

    parser = argparse.ArgumentParser(prog="hindsight")
    add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.run(args, load_settings())
    return code
