"""The app's own OAuth user flow on GitHub: the authorize URL, the code's exchange for a user
token, who the user is, and the installations and repositories they may maintain."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from githubkit import GitHub, TokenAuthStrategy, UnauthAuthStrategy
from githubkit.exception import RequestError, RequestFailed, RequestTimeout

from ghapp.github.client import DEFAULT_TIMEOUT_S, REQUEST_HEADERS, USER_AGENT, GitHubClient
from ghapp.github.values import GitHubUser

log = logging.getLogger(__name__)

# The keys of a repository's `permissions` hash that make a maintainer (the same standing as
# MAINTAINER_PERMISSIONS of a collaborator's permission: admin, maintain, write).
MAINTAINER_KEYS = ("admin", "maintain", "push")
PER_PAGE = 100
# A person in hundreds of installations signs in with the first ones read; the bound keeps one
# sign-in to a few requests.
MAX_PAGES = 5
# What GitHub means by each `error` of the token exchange (all answered 200, Accept: JSON).
EXCHANGE_ERRORS = {
    "bad_verification_code": "GitHub says the sign-in code is wrong or expired: sign in again",
    "incorrect_client_credentials": "GitHub refused the app's OAuth client id or secret: the "
    "operator must set HINDSIGHT_GITHUB_CLIENT_ID and HINDSIGHT_GITHUB_CLIENT_SECRET to the "
    "app's values (its settings page on GitHub)",
    "redirect_uri_mismatch": "GitHub refused the callback address: the app's callback URL on "
    "GitHub must be this server's /ledger/github/callback",
    "unverified_user_email": "GitHub asks you to verify your primary email address first",
}


class SignInFailed(Exception):
    """The GitHub sign-in cannot go on; ``status`` for the page and a message for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class OAuthApp:
    """The app's OAuth client on ``web_url`` (login pages) and ``api_url`` (REST)."""

    client_id: str
    client_secret: str = field(repr=False)
    web_url: str
    api_url: str
    timeout_s: float = DEFAULT_TIMEOUT_S
    trust_env: bool = True

    def authorize_url(self, state: str, redirect_uri: str) -> str:
        query = {"client_id": self.client_id, "redirect_uri": redirect_uri, "state": state}
        return f"{self.web_url.rstrip('/')}/login/oauth/authorize?{urlencode(query)}"

    def _github(self, base_url: str, token: str | None = None) -> GitHub[Any]:
        config = GitHubClient.build_config(base_url, self.timeout_s, USER_AGENT, self.trust_env)
        auth = UnauthAuthStrategy() if token is None else TokenAuthStrategy(token)
        return GitHub(auth, config=config)

    async def _request(
        self, github: GitHub[Any], method: str, url: str, what: str, **options: Any
    ) -> Any:
        try:
            response = await github.arequest(method, url, **options)
        except RequestFailed as exc:
            status = exc.response.status_code
            log.warning("github sign-in request failed", extra={"path": url, "status": status})
            if status >= 500:
                raise SignInFailed(502, f"GitHub answered {status} to {what}: try again") from None
            raise SignInFailed(
                502, f"GitHub refused {what} ({status}): sign in again, or use a token"
            ) from None
        except (RequestTimeout, RequestError) as exc:
            raise SignInFailed(
                502, f"could not reach GitHub for {what} ({type(exc).__name__}): try again"
            ) from None
        try:
            return response.raw_response.json()
        except ValueError:
            raise SignInFailed(502, f"GitHub's answer to {what} is not JSON") from None

    async def exchange(self, code: str, redirect_uri: str) -> str:
        """`POST /login/oauth/access_token`: the user access token for ``code``."""
        form = {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "code": code,
            "redirect_uri": redirect_uri,
        }
        data = await self._request(
            self._github(self.web_url),
            "POST",
            "/login/oauth/access_token",
            "the sign-in code",
            data=form,
            headers={"Accept": "application/json"},
        )
        if not isinstance(data, Mapping):
            raise SignInFailed(502, "GitHub's answer to the sign-in code is not an object")
        error = data.get("error")
        if isinstance(error, str):
            log.info("github sign-in code refused", extra={"error": error[:60]})
            raise SignInFailed(
                400 if error == "bad_verification_code" else 502,
                EXCHANGE_ERRORS.get(error, f"GitHub refused the sign-in code ({error[:60]})"),
            )
        token = data.get("access_token")
        if not isinstance(token, str) or not token:
            raise SignInFailed(502, "GitHub's answer to the sign-in code has no access token")
        return token

    async def user(self, token: str) -> GitHubUser:
        """`GET /user` with the user's token."""
        github = self._github(self.api_url, token)
        data = await self._request(github, "GET", "/user", "who you are", headers=REQUEST_HEADERS)
        if not isinstance(data, Mapping) or not isinstance(data.get("login"), str):
            raise SignInFailed(502, "GitHub's answer to `GET /user` has no login")
        return GitHubUser.from_json(data)

    async def _pages(self, token: str, url: str, key: str, what: str) -> list[Mapping[str, Any]]:
        github = self._github(self.api_url, token)
        found: list[Mapping[str, Any]] = []
        for page in range(1, MAX_PAGES + 1):
            params = {"per_page": PER_PAGE, "page": page}
            data = await self._request(
                github, "GET", url, what, params=params, headers=REQUEST_HEADERS
            )
            items = data.get(key) if isinstance(data, Mapping) else None
            if not isinstance(items, list):
                raise SignInFailed(502, f"GitHub's answer to {what} has no {key}")
            found.extend(x for x in items if isinstance(x, Mapping))
            if len(items) < PER_PAGE:
                break
        return found

    async def maintained_accounts(self, token: str) -> list[str]:
        """The accounts (logins) of the app's installations in which the user may maintain a
        repository: admin, maintain or write (`push`) on one the installation holds."""
        installations = await self._pages(
            token, "/user/installations", "installations", "your installations of the app"
        )
        accounts: list[str] = []
        for installation in installations:
            account = installation.get("account")
            login = account.get("login") if isinstance(account, Mapping) else None
            number = installation.get("id")
            if not isinstance(login, str) or not isinstance(number, int) or login in accounts:
                continue
            repositories = await self._pages(
                token,
                f"/user/installations/{number}/repositories",
                "repositories",
                f"your repositories in {login}",
            )
            if any(_maintains(repo.get("permissions")) for repo in repositories):
                accounts.append(login)
        return accounts


def _maintains(permissions: object) -> bool:
    """Whether a repository's `permissions` hash grants admin, maintain or write."""
    if not isinstance(permissions, Mapping):
        return False
    return any(permissions.get(name) is True for name in MAINTAINER_KEYS)
