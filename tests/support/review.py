"""Helpers for review tests: a scriptable command seat and the app wired to the GitHub simulator."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Engine, select

from continual.memory import set_memory
from continual.tables import Repository
from ghapp.app import build_deps, create_app
from ghapp.deps import Deps
from ghapp.handlers import build_router
from ghapp.settings import Settings
from ghapp.worker import Worker
from ghsim import GitHubSimulator, addition_patch
from review.sandbox import Sandbox
from tests.conftest import WEBHOOK_SECRET
from tests.support.simulator import (
    APP_ID,
    ORG,
    REPO,
    WebhookReceiver,
    app_key,
    app_settings,
    make_client,
)
from tests.support.web import deliver, serve

REVIEW_POSTS = r"^/repos/[^/]+/[^/]+/pulls/\d+/reviews$"
PASSING = "PYTHONPATH=src pytest -q"
FAILING = "pytest -q"
LESSON = "Check the result of `parse_config` in {path} before using it."

SEAT_SCRIPT = r"""
import json, os, re, sys, time, uuid
config = json.load(open(sys.argv[1]))
request = json.load(sys.stdin)
if config.get("log_dir"):
    name = f"{request['seat']['name']}-{uuid.uuid4().hex}.json"
    with open(os.path.join(config["log_dir"], name), "w") as out:
        json.dump(request, out)
mode = config.get("mode", "ok")
if mode == "fail":
    sys.stderr.write("the seat fell over\n")
    sys.exit(3)
if mode == "hang":
    time.sleep(120)
if mode == "garbage":
    print("Looks good to me!")
    sys.exit(0)
time.sleep(config.get("delay_s", 0))
files = request["shard"]["files"]
lens = request["lens"]["name"]
findings = []
for item in files:
    line = 0
    for raw in (item.get("patch") or "").splitlines():
        hunk = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)", raw)
        if hunk:
            line = int(hunk.group(1))
            continue
        if raw.startswith("-"):
            continue
        if raw.startswith("+") and "BUG" in raw and lens in config.get("lenses", [lens]):
            finding = {
                "path": item["path"], "line": line,
                "title": "Unchecked parse_config result",
                "body": "parse_config may return None here; the next line uses it.",
                "lesson": "Check the result of `parse_config` in " + item["path"] + " before using it.",
            }
            if "FIX" in raw:
                finding["suggestion"] = "config = parse_config(raw) or {}"
            findings.append(finding)
        line += 1
for extra in config.get("findings", []):
    if any(item["path"] == extra["path"] for item in files) and lens == config.get("extra_lens", lens):
        findings.append(extra)
receipts = []
if config.get("tool_path") and request["shard"]["index"] == 0:
    handed = request.get("memory", "") + request.get("cross_session", "")
    if "PYTHONPATH=src pytest -q" in handed:
        receipts = [{"id": "t1", "command": "PYTHONPATH=src pytest -q", "status": "passed"}]
    else:
        receipts = [
            {"id": "t1", "command": "pytest -q", "status": "failed"},
            {"id": "t2", "command": "PYTHONPATH=src pytest -q", "status": "passed", "corrects": "t1"},
        ]
receipts = config.get("receipts", receipts)  # reported as given: what a hostile seat claims
facts = ([{"kind": "decision", "text": f"shard {request['shard']['index']} read by {request['seat']['name']}"}]
         if config.get("facts") else [])
json.dump({"findings": findings, "tool_receipts": receipts,
           "facts": config.get("fact_list", facts)}, sys.stdout)
"""


class MsClock:
    """Milliseconds of real time plus an offset tests can advance (job backoff, expiry)."""

    def __init__(self) -> None:
        self.offset_ms = 0

    def __call__(self) -> int:
        return time.time_ns() // 1_000_000 + self.offset_ms

    def advance(self, seconds: float) -> None:
        self.offset_ms += int(seconds * 1000)


def seat_toml(
    tmp: Path,
    name: str,
    *,
    lab: str = "acme-labs",
    timeout_s: float = 20,
    **behaviour: Any,
) -> str:
    """A ``[[seats]]`` table for a command seat running the test seat with ``behaviour``."""
    script = tmp / "seat.py"
    if not script.exists():
        script.write_text(SEAT_SCRIPT)
    config = tmp / f"seat-{name}.json"
    config.write_text(json.dumps(behaviour))
    command = json.dumps([sys.executable, str(script), str(config)])
    # The seat writes only where it logs: the sandbox shows it its script and its config alone.
    log_dir = behaviour.get("log_dir")
    write = f"write = {json.dumps([str(log_dir)])}\n" if log_dir else ""
    return (
        f'[[seats]]\nname = "{name}"\nlab = "{lab}"\nkind = "command"\n'
        f"command = {command}\ntimeout_s = {timeout_s}\n{write}"
    )


def lenses_toml(*names: str) -> str:
    return "".join(f'[[lenses]]\nname = "{name}"\n' for name in names)


def review_toml(**settings: int) -> str:
    return "[review]\n" + "".join(f"{key} = {value}\n" for key, value in settings.items())


def requests_of(log_dir: Path) -> list[dict[str, Any]]:
    """Every request the logging seats received."""
    return [json.loads(path.read_text()) for path in sorted(log_dir.glob("*.json"))]


def bug_files(count: int, *, lines: int = 40, prefix: str = "src/mod") -> dict[str, str]:
    """``count`` files, each adding ``lines`` lines, one of which (line 3) is a BUG line."""
    files = {}
    for index in range(count):
        body = [f"value_{index}_{n} = compute({n})" for n in range(lines)]
        body[2] = "config = parse_config(raw)  # BUG FIX"
        files[f"{prefix}{index}.py"] = addition_patch(body)
    return files


@dataclass
class Harness:
    sim: GitHubSimulator
    engine: Engine
    settings: Settings
    deps: Deps
    url: str
    worker: Worker
    clock: MsClock
    store_dir: Path
    relay: WebhookReceiver | None = None  # where the app's webhook goes when it is forwarded
    forwarded: int = 0  # how many of the relay's deliveries were forwarded

    def forward(self) -> list[int]:
        """Forward what the relay received since the last call, as `gh webhook forward` relays
        a repository webhook: no installation events, no ``installation`` in a payload.
        Answers the app's status codes."""
        assert self.relay is not None, "the harness was not made with forwarded=True"
        statuses = []
        with httpx.Client(trust_env=False) as client:
            for received in self.relay.received[self.forwarded :]:
                self.forwarded += 1
                event = received.headers["x-github-event"]
                if event.startswith("installation"):
                    continue
                payload = json.loads(received.body)
                payload.pop("installation", None)
                statuses.append(
                    deliver(client, self.url, WEBHOOK_SECRET, event, payload).status_code
                )
        return statuses

    def run(self) -> int:
        """Run the due jobs to the end."""
        return asyncio.run(self.worker.run_until_idle())

    def review_posts(self) -> int:
        return self.sim.count("POST", REVIEW_POSTS)


@contextmanager
def harness(
    engine: Engine,
    tmp: Path,
    toml: str,
    *,
    sandbox: Sandbox | None = None,
    memory: bool = False,
    forwarded: bool = False,
) -> Iterator[Harness]:
    """The app (ingress served, worker run by hand) with ``toml`` as its hindsight.toml; proofs
    run in ``sandbox`` (default: the machine's). With ``memory`` the installed repositories'
    memory is turned on (it is off by default). With ``forwarded`` the app's webhook reaches a
    relay, and the app hears only what `Harness.forward` forwards to it."""
    config = tmp / "hindsight.toml"
    config.write_text(toml)
    store_dir = tmp / "store"
    with ExitStack() as stack:
        sim = stack.enter_context(
            GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem)
        )
        settings = app_settings(
            sim, engine.url.render_as_string(hide_password=False), tmp, app_slug="hindsight"
        )
        clock = MsClock()
        deps = build_deps(
            settings, engine=engine, github=make_client(sim), clock=clock, sandbox=sandbox
        )
        app = create_app(settings, deps=deps, run_worker=False)
        url = stack.enter_context(serve(app))
        relay = stack.enter_context(WebhookReceiver()) if forwarded else None
        sim.configure_webhooks(relay.url if relay else f"{url}/webhooks", WEBHOOK_SECRET)
        sim.add_installation(ORG, repositories=[REPO])
        worker = Worker(deps, build_router(), concurrency=2)
        found = Harness(sim, engine, settings, deps, url, worker, clock, store_dir, relay)
        if memory:
            found.run()  # the installation: its repositories are known from here
            enable_memory(engine)
        yield found


def enable_memory(engine: Engine) -> None:
    """Turn memory on for every repository the store knows (it is off by default)."""
    with engine.begin() as conn:
        for account_id, repository_id in conn.execute(
            select(Repository.account_id, Repository.id)
        ).all():
            set_memory(
                conn,
                account_id=account_id,
                repository_id=repository_id,
                enabled=True,
                actor="test",
                now=0,
            )


def git_repo(path: Path, files: dict[str, str]) -> str:
    """A real git repository at ``path`` with ``files`` committed; answers the commit sha."""
    path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "HOME": str(path),
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "head"]):
        subprocess.run(argv, cwd=path, env=env, check=True)
    out = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=path, env=env, check=True, capture_output=True, text=True
    )
    return out.stdout.strip()
