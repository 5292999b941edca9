"""`/ledger`: sign in (with an API token, or with GitHub: `ghapp.web.github`), read one
repository's ledger, demote, restore or delete, and open a fix PR."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from continual.history.shown import HistoryView, history_view
from continual.injections import target_named
from continual.ledger import RepositoryLedger, WeekAcceptance, acceptance_by_week, review_ledger
from continual.persons import Caller
from continual.recall import Lesson
from continual.store.fixes import Pending, pending_suggestions
from continual.suppression import Suppression, suppressions
from ghapp.api.auth import REPO_PATTERN, ApiError, authenticate_token, deps_of, not_found, run
from ghapp.api.recall import MAX_REVISION, delete_lesson, edit_lesson
from ghapp.db import reading
from ghapp.web.chart import acceptance_chart
from ghapp.web.fixes import MOST_LISTED, FixAnswer, ask_for_fix
from ghapp.web.render import page
from ghapp.web.session import (
    CSRF_FIELD,
    FormError,
    Session,
    Sessions,
    close_session,
    open_session,
    read_form,
    session_caller,
)

LEDGER = "/ledger"
MAX_SEARCH = 200  # characters of each search field
SIGN_IN = "/ledger/sign-in"
ACTIONS = ("demote", "restore", "delete", "lift")
DONE = {
    "demote": "Lesson {lesson} demoted: it is no longer handed to reviews or agents.",
    "restore": "Lesson {lesson} restored (and its mechanism may be raised again).",
    "lift": "The suppression of lesson {lesson} is lifted: its mechanism may be raised again.",
    "delete": "Lesson {lesson} deleted: its text and receipts are gone; its id stays as a tombstone.",
    "history-delete": "History lesson {lesson} deleted: its comments never make a lesson again.",
    "history-confirm": (
        "Suppression candidate {lesson} confirmed: its mechanism is suppressed here until a person "
        "lifts it under Suppressions."
    ),
    "history-reject": "Suppression candidate {lesson} rejected: it is never handed to reviews.",
}


@dataclass(frozen=True, slots=True)
class View:
    """What one ledger page shows: the repositories, the chosen one, and its weeks."""

    ledgers: tuple[RepositoryLedger, ...]
    chosen: RepositoryLedger | None
    weeks: tuple[WeekAcceptance, ...]
    suppressions: tuple[Suppression, ...] = ()
    pending: tuple[Pending, ...] = ()
    history: HistoryView | None = None


@dataclass(frozen=True, slots=True)
class Search:
    """The lesson search of the page: words of the title or text, a person who decided one of
    its receipts, and a path (or folder) it names; empty parts match everything."""

    words: str = ""
    person: str = ""
    path: str = ""

    @classmethod
    def of(cls, request: Request) -> Search:
        def value(name: str) -> str:
            return (request.query_params.get(name) or "").strip()[:MAX_SEARCH]

        return cls(value("q"), value("person"), value("path"))

    def __bool__(self) -> bool:
        return bool(self.words or self.person or self.path)

    def matches(self, lesson: Lesson) -> bool:
        if self.words:
            said = f"{lesson.title}\n{lesson.text}".casefold()
            if not all(word in said for word in self.words.casefold().split()):
                return False
        if self.person:
            who = self.person.casefold().lstrip("@")
            if not any((r.actor or "").casefold() == who for r in lesson.sources):
                return False
        if self.path:
            prefix = self.path.lstrip("./")
            if not any(name.startswith(prefix) for name in lesson.card.peek_links().files):
                return False
        return True


def _redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


class LedgerPages:
    """The endpoints of `/ledger`; the session cookie is signed with a key from ``sessions``."""

    def __init__(
        self, sessions: Sessions, github_web: str = "https://github.com", *, github_sign_in: bool
    ) -> None:
        self.sessions = sessions
        self.github_web = github_web.rstrip("/")
        self.github_sign_in = github_sign_in  # offer "Sign in with GitHub" (the app's OAuth)

    def sign_in_form(self, csrf: str, status: int = 200, problem: str | None = None) -> Response:
        """The sign-in page: the token form, and the GitHub button when the app has OAuth."""
        return page("sign_in.html", status, csrf=csrf, problem=problem, github=self.github_sign_in)

    # --- who is asking ---------------------------------------------------------------------

    async def _caller(self, request: Request) -> tuple[Session, Caller] | None:
        session = self.sessions.read(request)
        if session is None or session.sid is None:
            return None
        deps = deps_of(request)

        def find() -> Caller | None:
            with reading(deps.engine) as conn:
                return session_caller(conn, session, now=deps.clock())  # None: signed out

        caller = await run(find)
        return None if caller is None else (session, caller)

    async def home(self, request: Request) -> Response:
        """``/`` has nothing of its own: it points to the ledger."""
        return RedirectResponse(LEDGER, status_code=302)

    # --- sign in and out ---------------------------------------------------------------------

    async def sign_in_page(self, request: Request) -> Response:
        session = self.sessions.read(request) or Session.fresh()
        response = self.sign_in_form(session.csrf)
        self.sessions.write(request, response, session)
        return response

    async def sign_in(self, request: Request) -> Response:
        session = self.sessions.read(request)
        try:
            fields = await read_form(request, session)
        except FormError as error:
            return self.sign_in_again(request, error.status, error.message)
        assert session is not None
        token = fields.get("token", "").strip()
        deps = deps_of(request)
        caller = await run(authenticate_token, deps.engine, token, deps.clock()) if token else None
        if caller is None:
            return self.sign_in_form(
                session.csrf,
                401,
                "That token is unknown or revoked. Create one with "
                "`hindsight tokens create --account ACCOUNT --person LOGIN`.",
            )
        signed_in = caller

        def record() -> str:
            with deps.engine.begin() as conn:
                return open_session(
                    conn, signed_in.account_id, signed_in.token_id, now=deps.clock()
                )

        sid = await run(record)
        response = _redirect(LEDGER)
        self.sessions.write(request, response, session.signed_in(caller.token_id, sid))
        return response

    def sign_in_again(self, request: Request, status: int, problem: str) -> Response:
        """The sign-in page with ``problem``, for a fresh session."""
        session = Session.fresh()
        response = self.sign_in_form(session.csrf, status, problem)
        self.sessions.write(request, response, session)
        return response

    async def sign_out(self, request: Request) -> Response:
        session = self.sessions.read(request)
        try:
            await read_form(request, session)
        except FormError as error:
            return self.sign_in_again(request, error.status, error.message)
        assert session is not None
        engine = deps_of(request).engine

        def forget() -> None:
            with engine.begin() as conn:
                close_session(conn, session)

        await run(forget)
        response = _redirect(SIGN_IN)
        self.sessions.clear(request, response)
        return response

    # --- the ledger ----------------------------------------------------------------------------

    async def _view(self, request: Request, caller: Caller, repo: str | None) -> View:
        deps = deps_of(request)

        def read() -> View:
            with reading(deps.engine) as conn:
                ledgers = tuple(
                    review_ledger(conn, caller.account_id, now=deps.clock(), brain=True)
                )
                chosen = next((x for x in ledgers if x.repository == repo), None)
                if repo is None and ledgers:
                    chosen = ledgers[0]
                weeks: tuple[WeekAcceptance, ...] = ()
                refused: tuple[Suppression, ...] = ()
                undecided: tuple[Pending, ...] = ()
                history: HistoryView | None = None
                if chosen is not None:
                    weeks = acceptance_by_week(conn, caller.account_id).get(chosen.repository, ())
                    found = target_named(conn, caller.account_id, chosen.repository)
                    if found is not None:
                        refused = suppressions(
                            conn,
                            found.repository_id,
                            now_ms=deps.clock(),
                            suppress_days=deps.suppress_days,
                        )
                        undecided = tuple(
                            pending_suggestions(conn, found.repository_id, most=MOST_LISTED)
                        )
                        history = history_view(
                            conn,
                            account_id=caller.account_id,
                            repository_id=found.repository_id,
                            repository=chosen.repository,
                        )
            return View(ledgers, chosen, weeks, refused, undecided, history)

        return await run(read)

    def _render(
        self,
        session: Session,
        caller: Caller,
        view: View,
        *,
        status: int = 200,
        notice: str | None = None,
        problem: str | None = None,
        confirm: tuple[str, int] | None = None,
        search: Search | None = None,
    ) -> Response:
        search = search or Search()
        chosen = view.chosen
        lessons = {x.id: x for x in (chosen.lessons or ())} if chosen else {}
        asked = None
        if confirm is not None and confirm[0] in lessons:
            asked = {"lesson": lessons[confirm[0]], "revision": confirm[1]}
        return page(
            "ledger.html",
            status,
            caller=caller,
            csrf=session.csrf,
            csrf_field=CSRF_FIELD,
            ledgers=view.ledgers,
            chosen=chosen,
            lessons=sorted(
                (x for x in chosen.lessons or () if search.matches(x)),
                key=lambda x: (x.state.value, x.title),
            )
            if chosen
            else [],
            all_lessons=len(chosen.lessons or ()) if chosen else 0,
            search=search,
            chart=acceptance_chart(view.weeks),
            weeks=view.weeks,
            notice=notice,
            problem=problem,
            confirm=asked,
            suppressions=view.suppressions,
            pending=view.pending,
            history=view.history,
            github=self.github_web,
        )

    async def ledger(self, request: Request) -> Response:
        found = await self._caller(request)
        if found is None:
            return _redirect(SIGN_IN)
        session, caller = found
        repo = request.query_params.get("repo") or None
        view = await self._view(request, caller, repo)
        if repo is not None and view.chosen is None:
            return self._render(
                session, caller, view, status=404, problem=f"No repository {repo} in your account."
            )
        done, lesson = request.query_params.get("done"), request.query_params.get("lesson", "")
        notice = DONE[done].format(lesson=lesson[:40]) if done in DONE else None
        return self._render(session, caller, view, notice=notice, search=Search.of(request))

    async def lesson(self, request: Request) -> Response:
        found = await self._caller(request)
        if found is None:
            return _redirect(SIGN_IN)
        session, caller = found
        entry_id = request.path_params["entry_id"]
        repo: str | None = None
        try:
            fields = await read_form(request, session)
            repo = _repo_field(fields)
            action, expected = _action_fields(fields)
            deps = deps_of(request)
            if action == "delete" and fields.get("confirm") != "yes":
                view = await self._view(request, caller, repo)
                if view.chosen is None or entry_id not in {x.id for x in view.chosen.lessons or ()}:
                    raise not_found(f"lesson {entry_id}")
                return self._render(session, caller, view, confirm=(entry_id, expected))
            if action == "delete":
                await delete_lesson(deps, caller, entry_id, expected=expected)
            else:
                # A lift is a restore: it ends the suppression of every dismissal so far.
                await edit_lesson(
                    deps, caller, entry_id, expected=expected, demote=action == "demote"
                )
        except (FormError, ApiError) as error:
            view = await self._view(request, caller, repo)
            return self._render(session, caller, view, status=error.status, problem=error.message)
        query = urlencode({"repo": repo or "", "done": action, "lesson": entry_id})
        return _redirect(f"{LEDGER}?{query}")

    async def fix(self, request: Request) -> Response:
        """A maintainer's "open a fix PR" for one of the repository's undecided suggestions."""
        found = await self._caller(request)
        if found is None:
            return _redirect(SIGN_IN)
        session, caller = found
        repo: str | None = None
        try:
            fields = await read_form(request, session)
            repo = _repo_field(fields)
            if repo is None:
                raise FormError(422, "repo must be owner/name")
            answer = await ask_for_fix(
                deps_of(request), caller, repo, request.path_params["suggestion_id"]
            )
        except (FormError, ApiError) as error:
            answer = FixAnswer(problem=error.message, status=error.status)
        view = await self._view(request, caller, repo)
        return self._render(
            session,
            caller,
            view,
            status=answer.status,
            notice=answer.notice,
            problem=answer.problem,
        )


def _repo_field(fields: dict[str, str]) -> str | None:
    repo = fields.get("repo") or None
    if repo is not None and not REPO_PATTERN.fullmatch(repo):
        raise FormError(422, f"repo must be owner/name, got {repo[:200]!r}")
    return repo


def _action_fields(fields: dict[str, str]) -> tuple[str, int]:
    action = fields.get("action", "")
    if action not in ACTIONS:
        raise FormError(422, f"action must be one of {', '.join(ACTIONS)}, got {action[:40]!r}")
    raw = fields.get("expected_revision", "")
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_REVISION:
        raise FormError(422, f"expected_revision must be an integer from 1 to {MAX_REVISION}")
    return action, int(raw)
