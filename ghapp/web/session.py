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

from ghapp.bodies import Refused, read_capped
from ghapp.tables import LedgerSession

COOKIE = "hindsight_session"
COOKIE_PATH = "/ledger"
MAX_AGE_S = 12 * 3600
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
    """A browser's session: the API token it signed in with (by id, never the token), the id of
    its server-side record and its CSRF token. Before sign-in ``token_id`` and ``sid`` are None;
    the CSRF token then guards the sign-in form."""

    csrf: str
    token_id: str | None = None
    sid: str | None = None

    @classmethod
    def fresh(cls) -> Session:
        return cls(csrf=secrets.token_urlsafe(CSRF_BYTES))

    def signed_in(self, token_id: str, sid: str) -> Session:
        """The session after a sign-in: the token's id, its record's id and a new CSRF token."""
        return replace(self, token_id=token_id, sid=sid, csrf=secrets.token_urlsafe(CSRF_BYTES))


def _row_id(sid: str) -> str:
    return hashlib.sha256(sid.encode()).hexdigest()


def open_session(conn: Connection, account_id: int, token_id: str, *, now: int) -> str:
    """Record a sign-in and return the session id its cookie is to carry; expired rows go."""
    conn.execute(delete(LedgerSession).where(LedgerSession.expires_ms <= now))
    sid = secrets.token_urlsafe(SESSION_ID_BYTES)
    conn.execute(
        insert(LedgerSession).values(
            id=_row_id(sid),
            account_id=account_id,
            token_id=token_id,
            created_ms=now,
            expires_ms=now + MAX_AGE_S * 1000,
        )
    )
    return sid


def session_live(conn: Connection, session: Session, *, now: int) -> bool:
    """Whether a signed-in session's record exists and has not expired (signed out: it does not)."""
    if session.sid is None or session.token_id is None:
        return False
    found = conn.execute(
        select(LedgerSession.token_id).where(
            LedgerSession.id == _row_id(session.sid), LedgerSession.expires_ms > now
        )
    ).scalar()
    return found == session.token_id


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
