"""`hindsight setup|init`: register the GitHub App from `app.yml` in a browser and keep its
credentials; write a commented `hindsight.toml` to start from."""

from __future__ import annotations

import argparse
import sys
import webbrowser
from pathlib import Path

from ghapp.cli.common import Subparsers
from ghapp.cli.template import hindsight_toml
from ghapp.loopback import LoopbackServer, bind
from ghapp.registration import (
    MANIFEST,
    GitHubSite,
    Registration,
    RegistrationError,
    refuse_overwrite,
)
from ghapp.settings import Settings

DEFAULT_TIMEOUT_S = 3600.0  # GitHub's code lasts an hour
# `gh webhook forward` (the GitHub CLI's `cli/gh-webhook` extension) relays a repository's (or an
# organization's) webhook, never a GitHub App's: its deliveries name no installation, which the
# server then finds itself (`ghapp.forwarded`).
LOCAL_FORWARD = (
    "      gh extension install cli/gh-webhook\n"
    "      gh webhook forward --repo OWNER/REPO --url {url}/webhooks \\\n"
    "        --events pull_request,pull_request_review,pull_request_review_comment,"
    "pull_request_review_thread,issue_comment,push,repository \\\n"
    "        --secret \"$(sed -n 's/^HINDSIGHT_WEBHOOK_SECRET=//p' {env_file})\""
)


def cmd_setup(args: argparse.Namespace, settings: Settings) -> int:
    try:
        site = GitHubSite.of(args.github_url, args.api_url, args.org)
        refuse_overwrite([args.env_file, args.key_file], force=args.force)
    except RegistrationError as exc:
        print(f"hindsight setup: {exc}", file=sys.stderr)
        return 2
    registration = Registration(
        site=site,
        manifest_file=args.manifest,
        webhook_url=args.webhook_url,
        name=args.name,
        env_file=args.env_file,
        key_file=args.key_file,
        force=args.force,
        fixes=args.fixes,
        local_url=f"http://127.0.0.1:{settings.port}" if args.local else None,
    )
    try:
        sock, base_url = bind("127.0.0.1", args.port)
    except OSError as exc:
        print(f"hindsight setup: cannot listen on 127.0.0.1:{args.port}: {exc}", file=sys.stderr)
        return 2
    registration.base_url = base_url
    try:
        registration.manifest()  # a bad app.yml or webhook URL stops here, before any browser
    except RegistrationError as exc:
        sock.close()
        print(f"hindsight setup: {exc}", file=sys.stderr)
        return 2
    server = LoopbackServer(registration.app(), sock, "hindsight-setup")
    server.start()
    try:
        print(
            f"hindsight setup: open {base_url}/ in your browser to register the app on "
            f"{site.web_url} (waiting up to {args.timeout:.0f} s)",
            flush=True,
        )
        if not args.no_browser:
            webbrowser.open(f"{base_url}/")
        if not registration.finished.wait(args.timeout):
            print(
                "hindsight setup: no registration came back in time; run it again", file=sys.stderr
            )
            return 1
    finally:
        server.stop()
    credentials = registration.credentials
    assert credentials is not None
    print(f"registered: {credentials.name} (app {credentials.app_id}, slug {credentials.slug})")
    print(f"wrote: {args.env_file} and {args.key_file} (mode 0600)")
    print(f"next: install it at {site.install_url(credentials.slug)}, then")
    print("      hindsight init   (writes a commented hindsight.toml: your reviewers)")
    print("      hindsight serve")
    if registration.local_url is not None:
        print("then, for each repository, forward its events to the local server:")
        print(LOCAL_FORWARD.format(env_file=args.env_file, url=registration.local_url))
    return 0


def cmd_init(args: argparse.Namespace, settings: Settings) -> int:
    path = Path(args.path) if args.path else settings.config
    if path.exists() and not args.force:
        print(
            f"hindsight init: {path} already exists; nothing was written "
            "(pass --force to replace it)",
            file=sys.stderr,
        )
        return 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(hindsight_toml(sys.executable), encoding="utf-8")
    print(f"wrote {path}: it starts as written, with the example seat (no key needed); add the")
    print("seats you will use and their key variables, then run `hindsight serve` (it checks")
    print("the file and names any problem before it starts)")
    return 0


def add_init(commands: Subparsers) -> None:
    init = commands.add_parser("init", help="write a commented hindsight.toml to start from")
    init.add_argument("--path", help="where to write it (default: HINDSIGHT_CONFIG)")
    init.add_argument("--force", action="store_true", help="replace an existing file")
    init.set_defaults(run=cmd_init)


def add_setup(commands: Subparsers) -> None:
    setup = commands.add_parser(
        "setup",
        help="register the GitHub App from app.yml (GitHub's manifest flow) and write .env",
        description="Serves a page on loopback that posts app.yml as a manifest to GitHub; "
        "after you choose Create, GitHub sends you back with a code, which is exchanged "
        "for the app's id, webhook secret and private key.",
    )
    where = setup.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--webhook-url",
        help="where GitHub posts events: your server's public URL and /webhooks (its origin "
        "is also where GitHub sends people back after Sign in with GitHub on /ledger)",
    )
    where.add_argument(
        "--local",
        action="store_true",
        help="no public URL: the app's webhook stays inactive and `gh webhook forward` brings "
        "a repository's events to http://127.0.0.1:HINDSIGHT_PORT/webhooks (docs/operations.md)",
    )
    setup.add_argument(
        "--github-url",
        help="GitHub Enterprise Server: https://HOST (default: https://github.com)",
    )
    setup.add_argument(
        "--api-url",
        help="the REST API (default: https://api.github.com, or https://HOST/api/v3)",
    )
    setup.add_argument("--org", help="register the app on this organization (default: you)")
    setup.add_argument("--name", help="the app's name (default: app.yml's; must be unique)")
    setup.add_argument(
        "--manifest",
        type=Path,
        default=MANIFEST,
        help="the manifest (default: the app.yml installed with Hindsight)",
    )
    setup.add_argument(
        "--env-file", type=Path, default=Path(".env"), help="settings file (default: .env)"
    )
    setup.add_argument(
        "--key-file",
        type=Path,
        default=Path("hindsight.private-key.pem"),
        help="where the private key goes (default: hindsight.private-key.pem)",
    )
    setup.add_argument(
        "--force", action="store_true", help="replace existing files (other .env lines are kept)"
    )
    setup.add_argument(
        "--fixes",
        action="store_true",
        help="ask for contents: write, so a maintainer's /fix can open a fix PR (docs/fixes.md)",
    )
    setup.add_argument(
        "--port", type=int, default=0, help="loopback port for the page (default: any free one)"
    )
    setup.add_argument(
        "--no-browser", action="store_true", help="print the page's URL without opening it"
    )
    setup.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help="seconds to wait for GitHub to send you back (default: 3600)",
    )
    setup.set_defaults(run=cmd_setup)
