"""The ledger page's signed session cookie, its CSRF token, and the forms posted to it."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, replace
from urllib.parse import parse_qs

from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.requests import Request
from starlette.responses import Response

COOKIE = "hindsight_session"
COOKIE_PATH = "/ledger"
MAX_AGE_S = 12 * 3600
MAX_FORM_BYTES = 16 * 1024
FORM_TYPE = "application/x-www-form-urlencoded"
CSRF_FIELD = "csrf"
CSRF_BYTES = 32
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
    """A browser's session: the API token it signed in with (by id, never the token) and its
    CSRF token. Before sign-in ``token_id`` is None; the CSRF token then guards the sign-in form."""

    csrf: str
    token_id: str | None = None

    @classmethod
    def fresh(cls) -> Session:
        return cls(csrf=secrets.token_urlsafe(CSRF_BYTES))

    def signed_in(self, token_id: str) -> Session:
        """The session after a sign-in: the token's id and a new CSRF token."""
        return replace(self, token_id=token_id, csrf=secrets.token_urlsafe(CSRF_BYTES))


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
        token_id = data.get("t")
        return Session(csrf=data["c"], token_id=token_id if isinstance(token_id, str) else None)

    def write(self, request: Request, response: Response, session: Session) -> None:
        value = self._serializer.dumps({"c": session.csrf, "t": session.token_id})
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
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise FormError(413, f"the form is over {MAX_FORM_BYTES} bytes")
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
