"""The GitHub simulator object: served over loopback HTTP, driven and inspected from Python."""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Any

from ghapp.loopback import LoopbackServer, bind
from ghsim import pulls, trees
from ghsim.endpoint import Context
from ghsim.hooks import Attempt
from ghsim.model import FileChange, Installation
from ghsim.patches import addition_patch
from ghsim.pushes import PushDriver
from ghsim.recording import Fault, Faults, LoggedRequest, RequestLog
from ghsim.routes import build_app
from ghsim.state import Files, World
from ghsim.talk import TalkDriver
from ghsim.webhooks import Delivery, Payloads, encode, post_body

log = logging.getLogger(__name__)

DEFAULT_FILES: Mapping[str, str] = {"src/app.py": addition_patch(["print('hello')"] * 3)}
Json = dict[str, Any]


class GitHubSimulator(PushDriver, TalkDriver):
    """A stateful stand-in for GitHub's REST API and webhooks, for tests and ``hindsight demo``.

    ``with GitHubSimulator(app_id=…, public_key_pem=…) as sim:`` serves on ``sim.base_url``.
    Every method is thread-safe; reads answer the same JSON the REST API serves.
    """

    def __init__(
        self,
        *,
        app_id: int,
        public_key_pem: str,
        app_slug: str = "hindsight",
        app_name: str = "Hindsight",
        token_ttl_s: float = 3600.0,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.world = World(
            app_id=app_id, app_slug=app_slug, app_name=app_name, token_ttl_s=token_ttl_s
        )
        self.log = RequestLog()
        self.faults = Faults()
        self.context = Context(self.world, public_key_pem, self.log, self.faults)
        self.payloads = Payloads(self.context.shapes)
        self.deliveries: list[Delivery] = []
        self.context.hooks.send = self._send
        self.context.hooks.configure = self.configure_webhooks
        self._host = host
        self._port = port
        self._base_url: str | None = None
        self._server: LoopbackServer | None = None
        self._webhook: tuple[str, str | bytes] | None = None
        self._emit = False

    def __repr__(self) -> str:
        return f"GitHubSimulator(app_id={self.world.app_id}, base_url={self._base_url!r})"

    # --- lifecycle -----------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        if self._base_url is None:
            raise RuntimeError("the simulator is not running: call start() or use it as a context")
        return self._base_url

    def start(self) -> str:
        """Serve on an ephemeral loopback port in a daemon thread; answers the base URL."""
        if self._server is not None:
            return self.base_url
        sock, base_url = bind(self._host, self._port)
        self._base_url = base_url
        self.context.set_base_url(base_url)
        self.payloads = Payloads(self.context.shapes)
        self._server = LoopbackServer(build_app(self.context), sock, "github-simulator")
        self._server.start()
        log.info("github simulator started", extra={"base_url": base_url})
        return base_url

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.stop()

    def __enter__(self) -> GitHubSimulator:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # --- webhooks ------------------------------------------------------------------------

    def configure_webhooks(self, url: str, secret: str | bytes, *, emit: bool = True) -> None:
        """Where ``deliver`` posts; with ``emit`` every state change below delivers its event."""
        self._webhook = (url, secret)
        self._emit = emit

    def deliver(
        self, event: str, payload: Mapping[str, Any], *, delivery_id: str | None = None
    ) -> Delivery:
        """Sign ``payload`` with the webhook secret and POST it to the configured URL."""
        action = payload.get("action")
        delivery = self._send(
            event,
            encode(payload),
            action if isinstance(action, str) else None,
            delivery_id or str(uuid.uuid4()),
        )
        self.context.hooks.record(delivery)
        return delivery

    def _send(self, event: str, body: bytes, action: str | None, guid: str) -> Delivery:
        """POST one signed delivery to the webhook URL (a receiver that cannot be reached is a
        delivery with status 0, kept for ``GET /app/hook/deliveries`` like every attempt)."""
        if self._webhook is None:
            raise RuntimeError("no webhook target: call configure_webhooks(url, secret) first")
        url, secret = self._webhook
        delivery = post_body(
            url, secret, self.world.app_id, event, body, action=action, delivery_id=guid
        )
        with self.world.lock:
            self.deliveries.append(delivery)
        return delivery

    def hook_deliveries(self) -> list[Attempt]:
        """Every delivery attempt GitHub would list for the app, oldest first."""
        return self.context.hooks.attempts()

    def _emit_event(self, event: str, payload: Mapping[str, Any]) -> None:
        if self._emit and self._webhook is not None:
            self.deliver(event, payload)

    # --- installations and repositories --------------------------------------------------

    def add_installation(
        self,
        account: str,
        *,
        account_type: str = "Organization",
        repositories: Iterable[str] = (),
        installation_id: int | None = None,
        permissions: Mapping[str, str] | None = None,
    ) -> int:
        """Install the app on ``account`` with ``repositories`` (``owner/name``); answers its id."""
        installation = self.world.add_installation(
            account,
            account_type=account_type,
            repositories=repositories,
            installation_id=installation_id,
            permissions=permissions,
        )
        self._emit_event("installation", self.payloads.installation("created", installation))
        return installation.id

    def add_repository(
        self,
        full_name: str,
        *,
        installation_id: int | None = None,
        private: bool = False,
        default_branch: str = "main",
    ) -> Json:
        """Create a repository, optionally inside an installation; answers its REST JSON."""
        repo = self.world.add_repository(
            full_name,
            installation_id=installation_id,
            private=private,
            default_branch=default_branch,
        )
        if installation_id is not None:
            self._emit_repositories(installation_id, "added", [repo.full_name])
        return self.context.shapes.repo(repo)

    def add_repositories_to_installation(self, installation_id: int, names: Iterable[str]) -> None:
        added = list(names)
        for name in added:
            self.world.add_repository(name, installation_id=installation_id)
        self._emit_repositories(installation_id, "added", added)

    def remove_repositories_from_installation(
        self, installation_id: int, names: Iterable[str]
    ) -> None:
        removed = list(names)
        for name in removed:
            self.world.detach(name)
        self._emit_repositories(installation_id, "removed", removed)

    def _emit_repositories(self, installation_id: int, action: str, names: list[str]) -> None:
        installation = self.world.installation(installation_id)
        payload = self.payloads.installation_repositories(
            action,
            installation,
            added=names if action == "added" else (),
            removed=names if action == "removed" else (),
        )
        self._emit_event("installation_repositories", payload)

    def suspend_installation(self, installation_id: int, *, by: str | None = None) -> None:
        installation = self.world.set_suspended(installation_id, True, by)
        self._emit_event("installation", self.payloads.installation("suspend", installation))

    def unsuspend_installation(self, installation_id: int) -> None:
        installation = self.world.set_suspended(installation_id, False, None)
        self._emit_event("installation", self.payloads.installation("unsuspend", installation))

    def delete_installation(self, installation_id: int) -> Installation:
        installation = self.world.delete_installation(installation_id)
        self._emit_event("installation", self.payloads.installation("deleted", installation))
        return installation

    # --- pull requests -------------------------------------------------------------------

    def open_pull(
        self,
        repo: str,
        *,
        title: str = "Change things",
        body: str | None = "",
        author: str = "contributor",
        author_association: str = "CONTRIBUTOR",
        files: Files | None = None,
        head_ref: str | None = None,
        base_ref: str | None = None,
        draft: bool = False,
        head_sha: str | None = None,
        head_repo: str | None = None,
        contents: Mapping[str, str] | None = None,
    ) -> Json:
        """Open a pull request whose diff is ``files`` (FileChange values or {path: patch});
        ``head_repo`` (an existing repository) makes its head branch live in that fork;
        ``contents`` (path → text) are the head's files over the base's, for contents reads."""
        pull = pulls.open_pull(
            self.world,
            repo,
            title=title,
            body=body,
            author=author,
            author_association=author_association,
            files=files if files is not None else DEFAULT_FILES,
            head_ref=head_ref,
            base_ref=base_ref,
            draft=draft,
            head_sha=head_sha,
            head_repo=head_repo,
        )
        if contents is not None:
            with self.world.lock:
                base = trees.tree_of(self.world, pull.base_sha)
                self.world.trees[pull.head_sha] = {**base, **contents}
        self._emit_event("pull_request", self.payloads.pull_request("opened", repo, pull.number))
        return self.pull(repo, pull.number)

    def synchronize(
        self,
        repo: str,
        number: int,
        *,
        files: Files | None = None,
        head_sha: str | None = None,
        author: str | None = None,
        rewrite: bool = False,
    ) -> str:
        """Push to the head branch; ``files`` is the whole new diff. Answers the new head sha.

        The pushed commit is authored by ``author`` (a login), by default the PR's author;
        ``rewrite`` force-pushes a history unrelated to the old head.
        """
        before, after = pulls.synchronize(
            self.world, repo, number, files, head_sha, author, rewrite
        )
        payload = self.payloads.pull_request("synchronize", repo, number, before=before)
        self._emit_event("pull_request", payload)
        return after

    def close(self, repo: str, number: int, *, merged: bool = False, by: str | None = None) -> Json:
        pulls.close(self.world, repo, number, merged=merged, by=by)
        sender = self.world.account(by) if by else None
        payload = self.payloads.pull_request("closed", repo, number, sender=sender)
        self._emit_event("pull_request", payload)
        return self.pull(repo, number)

    def delete_branch(self, repo: str, branch: str) -> None:
        """Delete a branch (as a person does after a merge); its pull request keeps its head."""
        with self.world.lock:
            del self.world.repo(repo).branches[branch]

    def protect_branch(self, repo: str, branch: str) -> None:
        """Protect a branch: every ref write to it is refused (422)."""
        with self.world.lock:
            self.world.protected_branches.add((self.world.repo(repo).full_name.lower(), branch))

    def grant(self, installation_id: int, permission: str, level: str) -> None:
        """Set one permission of an installation (`contents`, `write`)."""
        with self.world.lock:
            self.world.installation(installation_id).permissions[permission] = level

    def branches(self, repo: str) -> dict[str, str]:
        """Every branch of a repository and its head."""
        with self.world.lock:
            return dict(self.world.repo(repo).branches)

    def reopen(self, repo: str, number: int) -> Json:
        pulls.reopen(self.world, repo, number)
        self._emit_event("pull_request", self.payloads.pull_request("reopened", repo, number))
        return self.pull(repo, number)

    # --- reading state back --------------------------------------------------------------

    @property
    def bot_login(self) -> str:
        return self.world.bot.login

    def pull(self, repo: str, number: int) -> Json:
        with self.world.lock:
            return self.context.shapes.pull(self.world.pull(repo, number))

    def pull_files(self, repo: str, number: int) -> list[FileChange]:
        with self.world.lock:
            return list(self.world.pull(repo, number).files)

    def token_mints(self, installation_id: int | None = None) -> int:
        """How many installation tokens were minted (answered 201), optionally for one."""
        which = r"\d+" if installation_id is None else str(installation_id)
        path = rf"^/app/installations/{which}/access_tokens$"
        return sum(1 for entry in self.log.entries("POST", path) if entry.status == 201)

    # --- clock, log and faults -----------------------------------------------------------

    def advance_clock(self, seconds: float) -> None:
        """Move the simulator's clock (token expiry, timestamps); JWTs are checked on real time."""
        self.world.advance(seconds)

    def requests(self, method: str | None = None, path: str | None = None) -> list[LoggedRequest]:
        """Answered requests in order, optionally of ``method`` with a path matching ``path``."""
        return self.log.entries(method, path)

    def count(self, method: str | None = None, path: str | None = None) -> int:
        return self.log.count(method, path)

    def wait_quiet(self, timeout_s: float = 10.0) -> bool:
        """Wait until no request is being answered: a killed client's request is still answered,
        and logged, once its injected latency has passed."""
        return self.log.wait_quiet(timeout_s)

    def reset_log(self) -> None:
        self.log.reset()

    def inject(
        self,
        method: str | None,
        path_regex: str,
        *,
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
        times: int | None = 1,
        latency_s: float = 0.0,
        body: Any = None,
    ) -> Fault:
        """Answer the next ``times`` matching requests (None: all) with ``status`` after a delay.

        ``method`` None or ``"*"`` matches every method; ``path_regex`` is searched in the path.
        ``status`` None only adds ``latency_s``. ``body`` may be JSON or text; by default GitHub's
        error JSON for the status.
        """
        fault = Fault(
            method=method.upper() if method and method != "*" else None,
            pattern=re.compile(path_regex),
            status=status,
            headers=dict(headers or {}),
            body=body,
            latency_s=latency_s,
            remaining=times,
        )
        return self.faults.add(fault)

    def limit_rate(self, limit: int, window_s: float) -> None:
        """Serve ``limit`` requests per ``window_s`` seconds of the simulator's clock, then
        GitHub's 403 with ``x-ratelimit-remaining: 0`` until the window resets."""
        self.context.limit_rate(limit, window_s)

    def clear_faults(self) -> None:
        self.faults.clear()
