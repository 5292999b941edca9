"""`/ledger` sign-in with GitHub: the app's own OAuth user flow, the person it maps to, and their
maintainer rights, checked before a ledger session starts."""

from __future__ import annotations

import logging
import secrets

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from continual import persons
from continual.tables import Account
from ghapp.api.auth import deps_of, run
from ghapp.db import reading
from ghapp.github.oauth import OAuthApp, SignInFailed
from ghapp.github.values import GitHubUser
from ghapp.web.pages import LEDGER, LedgerPages
from ghapp.web.render import page
from ghapp.web.session import Session, begin_sign_in, open_session, take_sign_in

log = logging.getLogger(__name__)

START = "/ledger/github"
CALLBACK = "/ledger/github/callback"
MAX_CODE = 200
MAX_ACCOUNT = 100
DENIED = "You did not authorize the app on GitHub, so you are not signed in."
STALE = (
    "This sign-in did not start in this browser, was used already, or took over ten minutes: "
    "sign in again."
)
BOT = "{login} is a bot account: the ledger is for the people who maintain the repositories."
NOT_MAINTAINER = (
    "{login} has no admin, maintain or write permission on a repository the app is installed "
    "on here: ask a maintainer for a token, or to be given write access."
)
NOT_THAT_ACCOUNT = "{login} maintains no repository of {account} the app is installed on."


class GitHubSignIn:
    """The two endpoints of the flow; ``oauth`` is the app's OAuth client on GitHub."""

    def __init__(self, pages: LedgerPages, oauth: OAuthApp) -> None:
        self.pages = pages
        self.oauth = oauth

    def _callback_url(self, request: Request) -> str:
        return str(request.base_url).rstrip("/") + CALLBACK

    async def start(self, request: Request) -> Response:
        """Record a sign-in under way, bind it to this browser, and send the browser to GitHub."""
        account = (request.query_params.get("account") or "").strip()[:MAX_ACCOUNT] or None
        deps = deps_of(request)

        def record() -> str:
            with deps.engine.begin() as conn:
                return begin_sign_in(conn, now=deps.clock())

        nonce = await run(record)
        state = self.pages.sessions.state(nonce, account)
        response = RedirectResponse(
            self.oauth.authorize_url(state, self._callback_url(request)), status_code=302
        )
        self.pages.sessions.bind(request, response, nonce)
        return response

    def _refuse(self, request: Request, status: int, problem: str) -> Response:
        response = self.pages.sign_in_again(request, status, problem)
        self.pages.sessions.unbind(request, response)
        return response

    async def callback(self, request: Request) -> Response:
        """GitHub sent the browser back: check the state, exchange the code, check the person."""
        query = request.query_params
        if query.get("error"):
            problem = (
                DENIED
                if query["error"] == "access_denied"
                else (
                    f"GitHub did not sign you in ({query['error'][:60]}): "
                    f"{query.get('error_description', '')[:200]}"
                )
            )
            return self._refuse(request, 400, problem)
        if not await self._state_holds(request, query.get("state", "")):
            return self._refuse(request, 403, STALE)
        code = query.get("code", "")
        if not code or len(code) > MAX_CODE:
            return self._refuse(request, 400, "GitHub sent no sign-in code back: sign in again.")
        _, wanted = self.pages.sessions.read_state(query["state"]) or ("", None)
        try:
            token = await self.oauth.exchange(code, self._callback_url(request))
            user = await self.oauth.user(token)
            if user.is_bot:
                raise SignInFailed(403, BOT.format(login=user.login))
            account = await self._account(request, user, token, wanted)
        except SignInFailed as failed:
            return self._refuse(request, failed.status, failed.message)
        if isinstance(account, Response):
            return account
        return await self._signed_in(request, account, user)

    async def _state_holds(self, request: Request, state: str) -> bool:
        """The state is ours, recent, started in this browser, and used now for the first time."""
        read = self.pages.sessions.read_state(state)
        bound = self.pages.sessions.bound_nonce(request)
        if read is None or bound is None or not secrets.compare_digest(read[0], bound):
            return False
        deps = deps_of(request)

        def take() -> bool:
            with deps.engine.begin() as conn:
                return take_sign_in(conn, bound, now=deps.clock())

        return await run(take)

    async def _account(
        self, request: Request, user: GitHubUser, token: str, wanted: str | None
    ) -> tuple[int, str] | Response:
        """The account (id, login) to sign in to: one the user maintains a repository of and
        this server knows; with several and none chosen, a page to choose one."""
        maintained = await self.oauth.maintained_accounts(token)
        engine = deps_of(request).engine

        def known() -> dict[str, int]:
            with reading(engine) as conn:
                rows = conn.execute(
                    select(Account.id, Account.login).where(Account.login.in_(maintained))
                ).all()
            return {row.login: int(row.id) for row in rows}

        accounts = await run(known) if maintained else {}
        ordered = [(login, accounts[login]) for login in maintained if login in accounts]
        if wanted is not None:
            chosen = [x for x in ordered if x[0].lower() == wanted.lower()]
            if not chosen:
                raise SignInFailed(403, NOT_THAT_ACCOUNT.format(login=user.login, account=wanted))
            ordered = chosen
        if not ordered:
            log.info("github sign-in refused: not a maintainer", extra={"person": user.login})
            raise SignInFailed(403, NOT_MAINTAINER.format(login=user.login))
        if len(ordered) > 1:
            response = page(
                "github.html", login=user.login, accounts=[x[0] for x in ordered], start=START
            )
            self.pages.sessions.unbind(request, response)
            return response
        login, account_id = ordered[0]
        return account_id, login

    async def _signed_in(
        self, request: Request, account: tuple[int, str], user: GitHubUser
    ) -> Response:
        account_id, account_login = account
        deps = deps_of(request)

        def record() -> str:
            with deps.engine.begin() as conn:
                now = deps.clock()
                person_id = persons.ensure_person(conn, account_id, user.login, now=now)
                return open_session(conn, account_id, person_id=person_id, now=now)

        sid = await run(record)
        log.info("ledger signed in with github", extra={"person": user.login})
        # Not a redirect: GitHub's redirect chain is cross-site, and the session cookie is
        # SameSite=Strict; this page's own navigation to the ledger carries it.
        response = page("github.html", login=user.login, account=account_login, ledger=LEDGER)
        session = (self.pages.sessions.read(request) or Session.fresh()).signed_in(None, sid)
        self.pages.sessions.write(request, response, session)
        self.pages.sessions.unbind(request, response)
        return response
