"""The app's only door to GitHub: githubkit with app auth, cached installation tokens, plain values."""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import httpx
from githubkit import AppAuthStrategy, GitHub, TokenAuthStrategy
from githubkit.cache import MemCacheStrategy
from githubkit.config import Config, get_config
from githubkit.exception import RequestError, RequestFailed, RequestTimeout

from continual.times import parse_iso
from ghapp.github.errors import Forbidden, Rejected, Transient, error_for
from ghapp.github.installation import PER_PAGE, InstallationClient
from ghapp.github.values import (
    App,
    Comparison,
    DiffEntry,
    DraftComment,
    GitHubInstallation,
    GitHubReaction,
    GitHubRepository,
    HookDelivery,
    IssueComment,
    PullRequest,
    Review,
    ReviewComment,
    split_repo,
)

if TYPE_CHECKING:
    from ghapp.settings import Settings

__all__ = [
    "App",
    "Comparison",
    "DiffEntry",
    "DraftComment",
    "GitHubClient",
    "GitHubInstallation",
    "GitHubReaction",
    "GitHubRepository",
    "InstallationClient",
    "IssueComment",
    "PullRequest",
    "Rejected",
    "Review",
    "ReviewComment",
    "error_for",
]

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_TIMEOUT_S = 30.0
USER_AGENT = "hindsight-app"
API_VERSION = "2022-11-28"
TOKEN_REFRESH_MARGIN = timedelta(minutes=5)
REQUEST_HEADERS = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": API_VERSION}

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class _Token:
    value: str = field(repr=False)
    expires_at: datetime


class GitHubClient:
    """The app authenticated as itself (JWT), handing out per-installation clients.

    Installation tokens are minted once per installation and reused until ``refresh_margin``
    before they expire, even under concurrent callers. The client never retries or sleeps: errors
    surface as ``Gone``, ``RetryAt``, ``Transient``, ``Forbidden`` or ``Rejected`` for the job
    runner to act on.
    """

    def __init__(
        self,
        *,
        app_id: int,
        private_key_pem: str,
        base_url: str = DEFAULT_API_URL,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        clock: Clock = utcnow,
        refresh_margin: timedelta = TOKEN_REFRESH_MARGIN,
        user_agent: str = USER_AGENT,
        trust_env: bool = True,
    ) -> None:
        self.app_id = app_id
        self.base_url = base_url.rstrip("/")
        self._clock = clock
        self._refresh_margin = refresh_margin
        self._config = self.build_config(base_url, timeout_s, user_agent, trust_env)
        self._app = GitHub(AppAuthStrategy(str(app_id), private_key_pem), config=self._config)
        self._tokens: dict[int, _Token] = {}
        self._tokens_lock = threading.Lock()
        self._mint_locks: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[int, asyncio.Lock]
        ] = weakref.WeakKeyDictionary()
        self.mints = 0
        self._slug: str | None = None
        # Told of every request's answer (None: no answer); `/metrics` counts them.
        self.on_answer: Callable[[str, httpx.Response | None], None] | None = None

    @staticmethod
    def build_config(base_url: str, timeout_s: float, user_agent: str, trust_env: bool) -> Config:
        """githubkit's settings for every Hindsight client: no retries, no HTTP cache."""
        # auto_retry off: the job runner reschedules; http_cache off: answers must be current;
        # a private cache so no other client's JWT is ever reused. githubkit opens an HTTP
        # client per request, and each would build its own TLS context (the CA bundle read and
        # parsed, 25-40 ms of CPU): the config carries one, built as httpx builds it.
        return get_config(
            base_url=base_url,
            user_agent=user_agent,
            timeout=timeout_s,
            ssl_verify=httpx.create_ssl_context(trust_env=trust_env),
            trust_env=trust_env,
            cache_strategy=MemCacheStrategy(),
            http_cache=False,
            auto_retry=False,
        )

    @classmethod
    def from_settings(cls, settings: Settings, **options: Any) -> GitHubClient:
        """The client for ``settings`` (app id, private key, HINDSIGHT_GITHUB_API_URL)."""
        if settings.github_app_id is None:
            raise ValueError("HINDSIGHT_GITHUB_APP_ID is required to talk to GitHub")
        return cls(
            app_id=settings.github_app_id,
            private_key_pem=settings.private_key_pem(),
            base_url=settings.github_api_url,
            **options,
        )

    def now(self) -> datetime:
        """The client's clock (it dates rate-limit waits)."""
        return self._clock()

    def __repr__(self) -> str:
        return f"GitHubClient(app_id={self.app_id}, base_url={self.base_url!r})"

    # --- requests ------------------------------------------------------------------------

    async def send(
        self,
        github: GitHub[Any],
        method: str,
        url: str,
        *,
        what: str,
        params: Mapping[str, str | int] | None = None,
        json: Any = None,
    ) -> httpx.Response:
        """One request through githubkit, its failures turned into the domain's errors."""
        try:
            response = await github.arequest(
                method,
                url,
                params=dict(params) if params else None,
                json=json,
                headers=REQUEST_HEADERS,
            )
        except RequestFailed as exc:
            raw = exc.response.raw_response
            self._answered(method, raw)
            log.warning(
                "github request failed",
                extra={"method": method, "path": raw.request.url.path, "status": raw.status_code},
            )
            raise error_for(raw, what, self._clock()) from exc
        except RequestTimeout as exc:
            self._answered(method, None)
            raise Transient(f"GitHub timed out on {what}") from exc
        except RequestError as exc:
            self._answered(method, None)
            raise Transient(f"could not reach GitHub for {what}: {type(exc.exc).__name__}") from exc
        self._answered(method, response.raw_response)
        return response.raw_response

    def _answered(self, method: str, response: httpx.Response | None) -> None:
        if self.on_answer is not None:
            self.on_answer(method, response)

    async def _app_send(
        self, method: str, url: str, what: str, params: Mapping[str, str | int] | None = None
    ) -> httpx.Response:
        """A request as the app itself; a refused JWT is a configuration error, not transient."""
        try:
            return await self.send(self._app, method, url, what=what, params=params)
        except Rejected as exc:
            if exc.status != 401:
                raise
            raise Forbidden(
                f"GitHub rejected the app's JWT for {what}: check HINDSIGHT_GITHUB_APP_ID and "
                "the private key"
            ) from exc

    async def _app_json(self, method: str, url: str, what: str) -> Any:
        return (await self._app_send(method, url, what)).json()

    # --- the app -------------------------------------------------------------------------

    async def get_app(self) -> App:
        return App.from_json(await self._app_json("GET", "/app", "the app"))

    async def app_slug(self, configured: str | None = None) -> str:
        """The app's slug (its bot is `<slug>[bot]`): `configured` if set, else `GET /app` once."""
        if configured:
            return configured
        if self._slug is None:
            self._slug = (await self.get_app()).slug
        return self._slug

    async def list_installations(self) -> list[GitHubInstallation]:
        found: list[GitHubInstallation] = []
        url: str | None = "/app/installations"
        params: Mapping[str, str | int] | None = {"per_page": PER_PAGE}
        while url is not None:
            response = await self._app_send("GET", url, "installations", params)
            found.extend(GitHubInstallation.from_json(item) for item in response.json())
            url, params = self.next_page(response), None
        return found

    async def hook_deliveries(self, since: datetime) -> list[HookDelivery]:
        """The app's webhook delivery attempts made at or after ``since``, newest first; pages
        (``cursor`` links) are followed until one reaches past ``since``."""
        found: list[HookDelivery] = []
        url: str | None = "/app/hook/deliveries"
        params: Mapping[str, str | int] | None = {"per_page": PER_PAGE}
        while url is not None:
            response = await self._app_send("GET", url, "the app's webhook deliveries", params)
            page = [HookDelivery.from_json(item) for item in response.json()]
            recent = [d for d in page if d.delivered_at is None or d.delivered_at >= since]
            found.extend(recent)
            url, params = (self.next_page(response) if len(recent) == len(page) else None), None
        return found

    async def redeliver(self, delivery_id: int) -> None:
        """Ask GitHub to send one delivery attempt again (same body, same guid)."""
        url = f"/app/hook/deliveries/{delivery_id}/attempts"
        await self._app_send("POST", url, f"the redelivery of {delivery_id}")

    async def get_repo_installation(self, repo: str) -> GitHubInstallation:
        owner, name = split_repo(repo)
        data = await self._app_json("GET", f"/repos/{owner}/{name}/installation", f"{repo} install")
        return GitHubInstallation.from_json(data)

    def installation(self, installation_id: int) -> InstallationClient:
        return InstallationClient(self, installation_id)

    def next_page(self, response: httpx.Response) -> str | None:
        """The ``rel="next"`` link of a list answer, if it stays on this client's API host."""
        url = response.links.get("next", {}).get("url")
        if not url:
            return None
        if httpx.URL(url).host != httpx.URL(self.base_url).host:
            raise Transient(f"GitHub's next page points off the API host: {httpx.URL(url).host}")
        return str(url)

    # --- installation tokens -------------------------------------------------------------

    def _cached(self, installation_id: int) -> str | None:
        with self._tokens_lock:
            token = self._tokens.get(installation_id)
        if token is not None and self._clock() < token.expires_at - self._refresh_margin:
            return token.value
        return None

    def _mint_lock(self, installation_id: int) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        with self._tokens_lock:
            locks = self._mint_locks.setdefault(loop, {})
            return locks.setdefault(installation_id, asyncio.Lock())

    async def installation_token(self, installation_id: int) -> str:
        """A live token for the installation: the cached one, or one freshly minted (once)."""
        cached = self._cached(installation_id)
        if cached is not None:
            return cached
        async with self._mint_lock(installation_id):
            cached = self._cached(installation_id)
            if cached is not None:
                return cached
            what = f"installation {installation_id} token"
            url = f"/app/installations/{installation_id}/access_tokens"
            data = await self._app_json("POST", url, what)
            expires_at = parse_iso(str(data["expires_at"]))
            with self._tokens_lock:
                self._tokens[installation_id] = _Token(str(data["token"]), expires_at)
                self.mints += 1
            log.info(
                "github installation token minted",
                extra={"installation": installation_id, "expires_at": expires_at.isoformat()},
            )
            return str(data["token"])

    def forget_token(self, installation_id: int) -> None:
        """Drop the cached token (GitHub said it is no longer good); the next call mints anew."""
        with self._tokens_lock:
            self._tokens.pop(installation_id, None)

    async def installation_github(self, installation_id: int) -> GitHub[TokenAuthStrategy]:
        token = await self.installation_token(installation_id)
        return GitHub(TokenAuthStrategy(token), config=self._config)
