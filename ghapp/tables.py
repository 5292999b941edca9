"""Tables of the door: installations, webhook deliveries and the durable job queue."""

from __future__ import annotations

from enum import StrEnum

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from continual.tables import Base


class JobState(StrEnum):
    WAITING = "waiting"  # behind an earlier unfinished job with the same serial key
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    DEAD = "dead"
    HELD = "held"  # its installation is suspended; requeued on unsuspend
    CANCELLED = "cancelled"  # its installation was deleted


class Installation(Base):
    __tablename__ = "installations"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_ms: Mapped[int] = mapped_column(BigInteger)
    suspended_ms: Mapped[int | None] = mapped_column(BigInteger)
    deleted_ms: Mapped[int | None] = mapped_column(BigInteger)


class Delivery(Base):
    """One webhook delivery as GitHub sent it, deduplicated on its id and on its body."""

    __tablename__ = "deliveries"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    body_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    event: Mapped[str] = mapped_column(String(64))
    action: Mapped[str | None] = mapped_column(String(64))
    installation_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    received_ms: Mapped[int] = mapped_column(BigInteger)
    body: Mapped[str] = mapped_column(Text)


class Job(Base):
    """A unit of work claimed under a lease; jobs sharing a serial key run one at a time, in order."""

    __tablename__ = "jobs"
    __table_args__ = (
        Index("ix_jobs_claim", "state", "run_after_ms"),
        Index("ix_jobs_serial", "serial_key", "state"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(64))
    delivery_id: Mapped[str | None] = mapped_column(
        ForeignKey("deliveries.id", ondelete="CASCADE"), index=True
    )
    installation_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    serial_key: Mapped[str | None] = mapped_column(String(200))
    state: Mapped[str] = mapped_column(String(16), default=JobState.QUEUED)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    run_after_ms: Mapped[int] = mapped_column(BigInteger)
    lease_token: Mapped[str | None] = mapped_column(String(32))
    lease_expires_ms: Mapped[int | None] = mapped_column(BigInteger)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_ms: Mapped[int] = mapped_column(BigInteger)
    finished_ms: Mapped[int | None] = mapped_column(BigInteger)


class LedgerSession(Base):
    """A signed-in `/ledger` session, kept server-side so signing out ends it at once.

    ``id`` is the sha256 of the id the session cookie carries; a row past ``expires_ms`` counts for
    nothing and is pruned at the next sign-in. A session signed in with an API token names it
    (``token_id``); one signed in with GitHub names its person (``person_id``); a row with neither
    (nor account) is a GitHub sign-in under way, keyed by the sha256 of its state's nonce and used once.
    """

    __tablename__ = "ledger_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    token_id: Mapped[str | None] = mapped_column(
        ForeignKey("tokens.id", ondelete="CASCADE"), index=True
    )
    person_id: Mapped[int | None] = mapped_column(
        ForeignKey("persons.id", ondelete="CASCADE"), index=True
    )
    created_ms: Mapped[int] = mapped_column(BigInteger)
    expires_ms: Mapped[int] = mapped_column(BigInteger, index=True)


# Every table of the app, the core's and the door's: what migrations and purges work on.
METADATA = Base.metadata
