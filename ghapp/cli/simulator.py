"""`hindsight simulator`: the "Run it on GitHub" path on one machine, GitHub being the simulator.

It starts the GitHub simulator on a fixed loopback port, writes the settings `hindsight serve`
needs to use it (`simulator.env` and the app's private key), waits for the app to answer, then
installs the app on a demo repository and opens a pull request there, and says when the review
is posted."""

from __future__ import annotations

import argparse
import secrets
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ghapp.cli.base import Subparsers

if TYPE_CHECKING:
    from ghapp.settings import Settings

DEFAULT_PORT = 3100
DEFAULT_APP_URL = "http://127.0.0.1:3000"
ENV_FILE = "simulator.env"
KEY_FILE = "simulator.private-key.pem"
POLL_S = 0.5
# The pull request's change: what `hindsight init`'s example seat flags (a debugging print) and
# what model seats find more in (eval of a request's field).
CHANGE = [
    "def charge(request):",
    '    amount = eval(request["amount"])',
    '    print("charging", amount)',
    "    return amount",
]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return 200 <= int(response.status) < 300
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _wait(ready: Callable[[], object], timeout_s: float | None) -> bool:
    """Poll ``ready()`` until it is true (True) or the timeout passes (False)."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while not ready():
        if deadline is not None and time.monotonic() > deadline:
            return False
        time.sleep(POLL_S)
    return True


def cmd_simulator(args: argparse.Namespace, settings: Settings) -> int:
    from ghapp.demo_world import APP_ID, MAINTAINER, ORG, PATH, REPO
    from ghapp.web.github import CALLBACK
    from ghsim import GitHubSimulator, generate_app_key
    from ghsim.patches import addition_patch

    folder = Path(args.dir).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    key = generate_app_key()
    secret = secrets.token_hex(32)
    app_url = args.app_url.rstrip("/")
    sim = GitHubSimulator(
        app_id=APP_ID, public_key_pem=key.public_pem, app_slug="hindsight", port=args.port
    )
    try:
        sim.start()
    except OSError as exc:
        print(
            f"hindsight simulator: cannot listen on 127.0.0.1:{args.port}: {exc.strerror} "
            "(pass --port)",
            file=sys.stderr,
        )
        return 2
    try:
        key_file = folder / KEY_FILE
        key_file.write_text(key.private_pem)
        key_file.chmod(0o600)
        settings_lines = [
            f"HINDSIGHT_GITHUB_API_URL={sim.base_url}",
            f"HINDSIGHT_GITHUB_APP_ID={APP_ID}",
            f"HINDSIGHT_GITHUB_PRIVATE_KEY_FILE={key_file}",
            f"HINDSIGHT_WEBHOOK_SECRET={secret}",
            "HINDSIGHT_APP_SLUG=hindsight",
            # The app's OAuth client, so the ledger offers "Sign in with GitHub".
            f"HINDSIGHT_GITHUB_CLIENT_ID={sim.context.shapes.app()['client_id']}",
            f"HINDSIGHT_GITHUB_CLIENT_SECRET={sim.world.sign_ins.client_secret}",
        ]
        sim.world.sign_ins.callback_urls = [f"{app_url}{CALLBACK}"]
        env_file = folder / ENV_FILE
        env_file.write_text("\n".join(settings_lines) + "\n")
        env_file.chmod(0o600)
        sim.configure_webhooks(f"{app_url}/webhooks", secret)
        print(f"hindsight simulator: GitHub is simulated at {sim.base_url}", flush=True)
        print(f"Set these for `hindsight serve` (written to {env_file}):\n")
        print("\n".join(f"  {line}" for line in settings_lines))
        print(
            f"\nIn another terminal, in {folder}:\n\n"
            f"  set -a; . ./{ENV_FILE}; set +a\n"
            "  hindsight init     # a hindsight.toml with a command seat that needs no key\n"
            "  hindsight serve\n\n"
            f"Waiting for the app at {app_url}/healthz …",
            flush=True,
        )
        if not _wait(lambda: _answers(f"{app_url}/healthz"), args.timeout):
            print(f"hindsight simulator: no app answered at {app_url} in time", file=sys.stderr)
            return 1
        sim.add_installation(ORG, repositories=[REPO])
        sim.set_permission(REPO, MAINTAINER, "maintain")  # who may sign in to the ledger
        patch = addition_patch(CHANGE)
        pull = sim.open_pull(REPO, title="Charge requests", files={PATH: patch}, author="sam")
        number = int(pull["number"])
        print(
            f"The app answered: installed it on {REPO} and opened PR #{number} there.\n"
            f"  curl -s {sim.base_url}/repos/{REPO}/pulls/{number}/comments\n"
            f"Waiting for its review …",
            flush=True,
        )
        reviewed = _wait(lambda: sim.reviews(REPO, number, include_implicit=False), args.timeout)
        if not reviewed:
            print(f"hindsight simulator: PR #{number} was not reviewed in time", file=sys.stderr)
            return 1
        comments = [
            c for c in sim.review_comments(REPO, number) if c["user"]["login"] == sim.bot_login
        ]
        print(
            f"PR #{number} is reviewed: {len(comments)} comments by {sim.bot_login}; the ledger "
            f"is at {app_url}/ledger (sign in with GitHub as {MAINTAINER}, or with a token "
            f"from `hindsight tokens create --account {ORG} --person {MAINTAINER}`)",
            flush=True,
        )
        if args.exit_after_review:
            return 0
        print("Press Ctrl-C to stop.", flush=True)
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            print("stopped")
        return 0
    finally:
        sim.stop()


def add_simulator(commands: Subparsers) -> None:
    simulator = commands.add_parser(
        "simulator",
        help="stand in for GitHub on loopback, to run `hindsight serve` against",
        description="Starts the GitHub simulator on a fixed port, writes simulator.env (the "
        "settings `hindsight serve` needs to use it) and the app's key, waits for the app, "
        "installs it on demo-org/payments, opens a pull request and says when it is reviewed.",
    )
    simulator.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"its port (default {DEFAULT_PORT})"
    )
    simulator.add_argument(
        "--app-url",
        default=DEFAULT_APP_URL,
        help=f"where the app listens; webhooks go to its /webhooks (default {DEFAULT_APP_URL})",
    )
    simulator.add_argument(
        "--dir", default=".", help=f"where {ENV_FILE} and the key go (default: here)"
    )
    simulator.add_argument(
        "--timeout",
        type=float,
        help="seconds to wait for the app and for the review (default: no limit)",
    )
    simulator.add_argument(
        "--exit-after-review", action="store_true", help="stop once the pull request is reviewed"
    )
    simulator.set_defaults(run=cmd_simulator)
