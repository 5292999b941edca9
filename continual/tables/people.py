"""Tables of persons, their API tokens and preference cards, and the record of every injection."""

from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from continual.tables.base import Base


class Person(Base):
    """A GitHub login under an account that holds API tokens and one preference card."""

    __tablename__ = "persons"
    __table_args__ = (UniqueConstraint("account_id", "login"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    login: Mapped[str] = mapped_column(String(100))
    recording: Mapped[str] = mapped_column(String(16), default="full")
    surfacing: Mapped[int] = mapped_column(Integer, default=3)
    lesson_cap: Mapped[int] = mapped_column(Integer, default=10)
    created_ms: Mapped[int] = mapped_column(BigInteger)
    updated_ms: Mapped[int] = mapped_column(BigInteger)


class Token(Base):
    """An API token of a person; only its sha256 is kept, and a short prefix to list it by."""

    __tablename__ = "tokens"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    person_id: Mapped[int] = mapped_column(ForeignKey("persons.id", ondelete="CASCADE"), index=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))
    created_ms: Mapped[int] = mapped_column(BigInteger)
    last_used_ms: Mapped[int | None] = mapped_column(BigInteger)
    revoked_ms: Mapped[int | None] = mapped_column(BigInteger)


class Injection(Base):
    """One guidance set handed to a session on one surface: the exact entries and the text's hash.

    ``expires_ms`` is set for an incognito person's sessions: the row only serves the session's
    own dedupe and is dropped afterwards.
    """

    __tablename__ = "injections"
    __table_args__ = (
        Index("ix_injections_session", "account_id", "session_id"),
        # Every recorded hand-out drops the account's expired rows: by index, not by a walk.
        Index("ix_injections_expiry", "account_id", "expires_ms"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(
        ForeignKey("repositories.id", ondelete="CASCADE"), index=True
    )
    person_id: Mapped[int | None] = mapped_column(
        ForeignKey("persons.id", ondelete="SET NULL"), index=True
    )
    session_id: Mapped[str] = mapped_column(String(128))
    surface: Mapped[str] = mapped_column(String(16))
    set_sha256: Mapped[str] = mapped_column(String(64), index=True)
    entries: Mapped[str] = mapped_column(Text, default="[]")  # JSON list of [id, revision]
    chars: Mapped[int] = mapped_column(Integer)
    at_ms: Mapped[int] = mapped_column(BigInteger)
    expires_ms: Mapped[int | None] = mapped_column(BigInteger)
