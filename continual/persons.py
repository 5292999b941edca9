"""Persons of an account: API tokens (shown once, kept as sha256) and the preference card."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, Select, insert, select, update

from continual.tables import Account, Person, Token

TOKEN_PREFIX = "hs_"
TOKEN_BYTES = 32
LISTED_PREFIX_CHARS = 11  # "hs_" and 8 characters: enough to tell tokens apart in a list
LAST_USED_RESOLUTION_MS = 60_000  # how stale `last_used` may be, to spare a write per request
SURFACING_MIN, SURFACING_MAX = 0, 3
LESSON_CAP_MIN, LESSON_CAP_MAX = 1, 20
DEFAULT_SURFACING = 3
DEFAULT_LESSON_CAP = 10


class Recording(StrEnum):
    """What is kept of a person's sessions."""

    FULL = "full"  # injections recorded (table, injections.jsonl, log line)
    INCOGNITO = "incognito"  # kept only for the session's own dedupe, then dropped
    OFF = "off"  # nothing kept: no record and no dedupe


class InvalidField(ValueError):
    """A value a person sent is not acceptable; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.detail = message


class NotFound(LookupError):
    """No such account, person or token (or not in this account)."""


@dataclass(frozen=True, slots=True)
class Preference:
    """The preference card: what is recorded, what is volunteered, and how many lessons at most."""

    recording: Recording = Recording.FULL
    surfacing: int = DEFAULT_SURFACING
    lesson_cap: int = DEFAULT_LESSON_CAP

    def as_json(self) -> dict[str, Any]:
        return {
            "recording": self.recording.value,
            "surfacing": self.surfacing,
            "lesson_cap": self.lesson_cap,
        }


@dataclass(frozen=True, slots=True)
class Caller:
    """Who a valid token belongs to (or, for a `/ledger` session signed in with GitHub, which
    person it is: ``token_id`` None). Carries no token material."""

    account_id: int
    account_login: str
    person_id: int
    login: str
    token_id: str | None


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """A token as it is listed: never the token itself."""

    id: str
    person: str
    prefix: str
    created_ms: int
    last_used_ms: int | None
    revoked_ms: int | None


@dataclass(frozen=True, slots=True)
class NewToken:
    """A token just made: ``secret`` is shown once and never stored."""

    info: TokenInfo
    secret: str

    def __repr__(self) -> str:
        return f"NewToken(info={self.info!r}, secret='{self.info.prefix}…')"


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _int_in(body: Mapping[str, Any], field: str, low: int, high: int) -> int:
    value = body[field]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidField(field, f"must be an integer from {low} to {high}, got {value!r}")
    return value


def validate_preference(body: Any, current: Preference) -> Preference:
    """A new card from ``current`` and the fields of ``body``; an invalid one raises InvalidField."""
    if not isinstance(body, Mapping):
        raise InvalidField("body", "must be a JSON object")
    known = {"recording", "surfacing", "lesson_cap"}
    for name in body:
        if name not in known:
            raise InvalidField(
                str(name), "is not a preference field (recording, surfacing, lesson_cap)"
            )
    recording = current.recording
    if "recording" in body:
        try:
            recording = Recording(body["recording"])
        except ValueError:
            raise InvalidField(
                "recording", f"must be one of full, incognito, off, got {body['recording']!r}"
            ) from None
    surfacing = current.surfacing
    if "surfacing" in body:
        surfacing = _int_in(body, "surfacing", SURFACING_MIN, SURFACING_MAX)
    lesson_cap = current.lesson_cap
    if "lesson_cap" in body:
        lesson_cap = _int_in(body, "lesson_cap", LESSON_CAP_MIN, LESSON_CAP_MAX)
    return Preference(recording, surfacing, lesson_cap)


def account_id_of(conn: Connection, login: str) -> int:
    found = conn.execute(select(Account.id).where(Account.login == login)).scalar()
    if found is None:
        raise NotFound(f"no account named {login}: install the app on it first")
    return int(found)


def ensure_person(conn: Connection, account_id: int, login: str, *, now: int) -> int:
    """The person's id, creating the person with the default card when new."""
    found = conn.execute(
        select(Person.id).where(Person.account_id == account_id, Person.login == login)
    ).scalar()
    if found is not None:
        return int(found)
    defaults = Preference()
    result = conn.execute(
        insert(Person)
        .values(
            account_id=account_id,
            login=login,
            recording=defaults.recording.value,
            surfacing=defaults.surfacing,
            lesson_cap=defaults.lesson_cap,
            created_ms=now,
            updated_ms=now,
        )
        .returning(Person.id)
    )
    return int(result.scalar_one())


def create_token(conn: Connection, account_login: str, person: str, *, now: int) -> NewToken:
    """Make a token for ``person`` in the account; the secret is returned once, kept hashed."""
    account_id = account_id_of(conn, account_login)
    person_id = ensure_person(conn, account_id, person, now=now)
    secret = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    token_id = "tok_" + secrets.token_hex(6)
    prefix = secret[:LISTED_PREFIX_CHARS]
    conn.execute(
        insert(Token).values(
            id=token_id,
            account_id=account_id,
            person_id=person_id,
            sha256=token_sha256(secret),
            prefix=prefix,
            created_ms=now,
        )
    )
    return NewToken(TokenInfo(token_id, person, prefix, now, None, None), secret)


def list_tokens(conn: Connection, account_login: str, person: str | None = None) -> list[TokenInfo]:
    account_id = account_id_of(conn, account_login)
    query = (
        select(Token, Person.login)
        .join(Person, Person.id == Token.person_id)
        .where(Token.account_id == account_id)
        .order_by(Token.created_ms, Token.id)
    )
    if person is not None:
        query = query.where(Person.login == person)
    return [
        TokenInfo(r.id, r.login, r.prefix, r.created_ms, r.last_used_ms, r.revoked_ms)
        for r in conn.execute(query).all()
    ]


def revoke_token(
    conn: Connection, account_login: str, person: str, token: str, *, now: int
) -> TokenInfo:
    """Revoke one of the person's tokens, named by its id or listed prefix."""
    for info in list_tokens(conn, account_login, person):
        if token in (info.id, info.prefix):
            if info.revoked_ms is None:
                conn.execute(update(Token).where(Token.id == info.id).values(revoked_ms=now))
            return TokenInfo(
                info.id,
                info.person,
                info.prefix,
                info.created_ms,
                info.last_used_ms,
                info.revoked_ms or now,
            )
    raise NotFound(f"{person} in {account_login} has no token {token}: see `hindsight tokens list`")


def _live_tokens() -> Select[Token, str, str]:
    """Unrevoked tokens with their person's and account's logins."""
    return (
        select(Token, Person.login.label("person_login"), Account.login.label("account_login"))
        .join(Person, Person.id == Token.person_id)
        .join(Account, Account.id == Token.account_id)
        .where(Token.revoked_ms.is_(None))
    )


def _caller(row: Any) -> Caller:
    return Caller(row.account_id, row.account_login, row.person_id, row.person_login, row.id)


def authenticate(conn: Connection, token: str) -> tuple[Caller, int | None] | None:
    """Who holds ``token`` (and when it was last used), or None for an unknown or revoked one."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    row = conn.execute(_live_tokens().where(Token.sha256 == token_sha256(token))).one_or_none()
    if row is None or not secrets.compare_digest(row.sha256, token_sha256(token)):
        return None
    return _caller(row), row.last_used_ms


def caller_of(conn: Connection, token_id: str) -> Caller | None:
    """Who holds the token with this id, or None once it is revoked (a signed-in session's check)."""
    row = conn.execute(_live_tokens().where(Token.id == token_id)).one_or_none()
    return None if row is None else _caller(row)


def caller_of_person(conn: Connection, person_id: int) -> Caller | None:
    """The person as a caller without a token (a `/ledger` session signed in with GitHub)."""
    row = conn.execute(
        select(Person.id, Person.login, Person.account_id, Account.login.label("account_login"))
        .join(Account, Account.id == Person.account_id)
        .where(Person.id == person_id)
    ).one_or_none()
    if row is None:
        return None
    return Caller(row.account_id, row.account_login, row.id, row.login, None)


def touch_due(last_used_ms: int | None, *, now: int) -> bool:
    """Whether a use should be written down: at most once per resolution, to spare writes."""
    return last_used_ms is None or now - last_used_ms >= LAST_USED_RESOLUTION_MS


def touch(conn: Connection, token_id: str, last_used_ms: int | None, *, now: int) -> bool:
    """Note that a token was used, at most once per resolution; True when it wrote."""
    if not touch_due(last_used_ms, now=now):
        return False
    conn.execute(update(Token).where(Token.id == token_id).values(last_used_ms=now))
    return True


def get_preference(conn: Connection, person_id: int) -> Preference:
    row = conn.execute(select(Person).where(Person.id == person_id)).one_or_none()
    if row is None:
        return Preference()
    return Preference(Recording(row.recording), row.surfacing, row.lesson_cap)


def put_preference(conn: Connection, person_id: int, card: Preference, *, now: int) -> Preference:
    conn.execute(
        update(Person)
        .where(Person.id == person_id)
        .values(
            recording=card.recording.value,
            surfacing=card.surfacing,
            lesson_cap=card.lesson_cap,
            updated_ms=now,
        )
    )
    return card


def person_id_of(conn: Connection, account_id: int, login: str) -> int | None:
    found = conn.execute(
        select(Person.id).where(Person.account_id == account_id, Person.login == login)
    ).scalar()
    return None if found is None else int(found)
