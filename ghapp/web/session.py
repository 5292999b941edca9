"""The ledger page's signed session cookie, its server-side record, its CSRF token, and the forms
posted to it."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, replace
from urllib.parse import parse_qs

from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy import Connection, delete, insert, select
from starlette.requests import Request
from starlette.responses import Response

from continual import persons
from continual.persons import Caller
from ghapp.bodies import Refused, read_capped
from ghapp.tables import LedgerSession

COOKIE = "hindsight_session"
COOKIE_PATH = "/ledger"
STATE_COOKIE = "hindsight_github"
STATE_PATH = "/ledger/github"
MAX_AGE_S = 12 * 3600
PENDING_S = 600  # how long a GitHub sign-in may take, from the button to GitHub's redirect back
MAX_FORM_BYTES = 16 * 1024
FORM_TYPE = "application/x-www-form-urlencoded"
CSRF_FIELD = "csrf"
CSRF_BYTES = 32
SESSION_ID_BYTES = 32
# The session key is derived from the webhook secret, so there is no second secret to keep:
# rotating the webhook secret signs everyone out.
KEY_LABEL = b"hindsight ledger session key"


class FormError(Exception):
    """A posted form that cannot be read: ``status`` and a message for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Session:
    """A browser's session: the API token it signed in with (by id, never the token; None for a
    sign-in with GitHub), the id of its server-side record and its CSRF token. Before sign-in
    ``sid`` is None; the CSRF token then guards the sign-in form."""

    csrf: str
    token_id: str | None = None
    sid: str | None = None

    @classmethod
    def fresh(cls) -> Session:
        return cls(csrf=secrets.token_urlsafe(CSRF_BYTES))

    def signed_in(self, token_id: str | None, sid: str) -> Session:
        """The session after a sign-in: the token's id, its record's id and a new CSRF token."""
        return replace(self, token_id=token_id, sid=sid, csrf=secrets.token_urlsafe(CSRF_BYTES))


def _row_id(sid: str) -> str:
    return hashlib.sha256(sid.encode()).hexdigest()


def open_session(
    conn: Connection,
    account_id: int,
    token_id: str | None = None,
    *,
    person_id: int | None = None,
    now: int,
) -> str:
    """Record a sign-in, with an API token (``token_id``) or with GitHub (``person_id``), and
    return the session id its cookie is to carry; expired rows go."""
    if (token_id is None) == (person_id is None):
        raise ValueError("a session is signed in with a token or as a person, not both or neither")
    conn.execute(delete(LedgerSession).where(LedgerSession.expires_ms <= now))
    sid = secrets.token_urlsafe(SESSION_ID_BYTES)
    conn.execute(
        insert(LedgerSession).values(
            id=_row_id(sid),
            account_id=account_id,
            token_id=token_id,
            person_id=person_id,
            created_ms=now,
            expires_ms=now + MAX_AGE_S * 1000,
        )
    )
    return sid


def session_caller(conn: Connection, session: Session, *, now: int) -> Caller | None:
    """Who a signed-in session is, while its record exists and has not expired, and its token
    (when it signed in with one) is not revoked; None when signed out."""
    if session.sid is None:
        return None
    row = conn.execute(
        select(LedgerSession.token_id, LedgerSession.person_id).where(
            LedgerSession.id == _row_id(session.sid), LedgerSession.expires_ms > now
        )
    ).one_or_none()
    if row is None:
        return None
    if row.token_id is not None:
        return persons.caller_of(conn, row.token_id) if row.token_id == session.token_id else None
    if row.person_id is not None and session.token_id is None:
        return persons.caller_of_person(conn, row.person_id)
    return None  # a GitHub sign-in under way is no session


def begin_sign_in(conn: Connection, *, now: int) -> str:
    """A GitHub sign-in under way: a nonce its state carries, recorded until ``PENDING_S``."""
    conn.execute(delete(LedgerSession).where(LedgerSession.expires_ms <= now))
    nonce = secrets.token_urlsafe(SESSION_ID_BYTES)
    conn.execute(
        insert(LedgerSession).values(
            id=_row_id(nonce), created_ms=now, expires_ms=now + PENDING_S * 1000
        )
    )
    return nonce


def take_sign_in(conn: Connection, nonce: str, *, now: int) -> bool:
    """Use the sign-in of ``nonce`` up: True once, if it is under way and not expired."""
    taken = conn.execute(
        delete(LedgerSession).where(
            LedgerSession.id == _row_id(nonce),
            LedgerSession.token_id.is_(None),
            LedgerSession.person_id.is_(None),
            LedgerSession.expires_ms > now,
        )
    )
    return taken.rowcount == 1


def close_session(conn: Connection, session: Session) -> None:
    """Sign out: the record goes, so the cookie, or any copy of it, is signed out too."""
    if session.sid is not None:
        conn.execute(delete(LedgerSession).where(LedgerSession.id == _row_id(session.sid)))


class Sessions:
    """Reads and writes the session cookie: signed, timestamped, HttpOnly, SameSite=Strict, and
    Secure when the page is served over https."""

    def __init__(self, webhook_secret: bytes) -> None:
        key = hmac.new(webhook_secret, KEY_LABEL, hashlib.sha256).hexdigest()
        self._serializer = URLSafeTimedSerializer(key, salt="ledger-session")
        self._states = URLSafeTimedSerializer(key, salt="ledger-github-state")
        self._bindings = URLSafeTimedSerializer(key, salt="ledger-github-binding")

    def read(self, request: Request) -> Session | None:
        """The request's session; None when there is none, or its signature or age is wrong."""
        raw = request.cookies.get(COOKIE)
        if not raw:
            return None
        try:
            data = self._serializer.loads(raw, max_age=MAX_AGE_S)
        except BadSignature:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("c"), str):
            return None
        token_id, sid = data.get("t"), data.get("s")
        return Session(
            csrf=data["c"],
            token_id=token_id if isinstance(token_id, str) else None,
            sid=sid if isinstance(sid, str) else None,
        )

    def write(self, request: Request, response: Response, session: Session) -> None:
        value = self._serializer.dumps({"c": session.csrf, "t": session.token_id, "s": session.sid})
        response.set_cookie(
            COOKIE,
            value,
            max_age=MAX_AGE_S,
            path=COOKIE_PATH,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )

    def clear(self, request: Request, response: Response) -> None:
        response.delete_cookie(
            COOKIE,
            path=COOKIE_PATH,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )

    # --- a GitHub sign-in under way ----------------------------------------------------------
    # The state GitHub carries back is signed and dated; the browser that started the sign-in
    # holds its nonce in a cookie of its own. That cookie is SameSite=Lax: GitHub's redirect back
    # is a top-level navigation from another site, which a Strict cookie would not come with.

    def state(self, nonce: str, account: str | None) -> str:
        return self._states.dumps({"n": nonce, "a": account})

    def read_state(self, state: str) -> tuple[str, str | None] | None:
        """The nonce and the account asked for of a state this server signed within
        ``PENDING_S``; None for any other."""
        try:
            data = self._states.loads(state, max_age=PENDING_S)
        except BadSignature:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("n"), str):
            return None
        account = data.get("a")
        return data["n"], account if isinstance(account, str) else None

    def bind(self, request: Request, response: Response, nonce: str) -> None:
        response.set_cookie(
            STATE_COOKIE,
            self._bindings.dumps(nonce),
            max_age=PENDING_S,
            path=STATE_PATH,
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
        )

    def bound_nonce(self, request: Request) -> str | None:
        """The nonce of the sign-in this browser started, if any."""
        raw = request.cookies.get(STATE_COOKIE)
        try:
            nonce = self._bindings.loads(raw, max_age=PENDING_S) if raw else None
        except BadSignature:
            return None
        return nonce if isinstance(nonce, str) else None

    def unbind(self, request: Request, response: Response) -> None:
        response.delete_cookie(
            STATE_COOKIE,
            path=STATE_PATH,
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
        )


async def read_form(request: Request, session: Session | None) -> dict[str, str]:
    """The posted form's fields (one value each), after checking its size, type and CSRF token.

    Raises FormError: 415 for another content type, 413 over the size cap, 403 without a
    session or with a CSRF token that is not the session's.
    """
    content_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if content_type != FORM_TYPE:
        raise FormError(415, f"the form must be posted as {FORM_TYPE}")
    try:
        body = await read_capped(request, MAX_FORM_BYTES)  # the rest of a larger one is never read
    except Refused as refused:
        message = (
            f"the form is over {MAX_FORM_BYTES} bytes" if refused.status == 413 else refused.message
        )
        raise FormError(refused.status, message) from None
    try:
        parsed = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError:
        raise FormError(400, "the form is not UTF-8") from None
    fields = {name: values[-1] for name, values in parsed.items()}
    sent = fields.pop(CSRF_FIELD, "")
    if session is None or not secrets.compare_digest(sent.encode(), session.csrf.encode()):
        raise FormError(
            403,
            "this form is not from your current session (it expired, or came from another "
            "site): reload the page and try again",
        )
    return fields
