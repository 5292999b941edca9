"""Tables of reviews, their calls, the agreements between seats and the findings held back."""

from __future__ import annotations

from enum import StrEnum

from sqlalchemy import BigInteger, Boolean, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from continual.tables.base import Base


class ReviewState(StrEnum):
    """Where one review of one head commit stands; the row is the idempotency record."""

    RUNNING = "running"  # calls in flight (or interrupted: a retry runs them again)
    POSTING = "posting"  # the draft is stored; GitHub may or may not have it yet
    POSTED = "posted"  # GitHub has the review; its id is recorded
    EMPTY = "empty"  # nothing to post: no findings


class CallStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"
    SKIPPED = "skipped"  # over the review's max_calls budget


class ReviewRow(Base):
    """One review of one pull-request head; unique per (repository, pr, head_sha)."""

    __tablename__ = "reviews"
    __table_args__ = (UniqueConstraint("repository_id", "pr", "head_sha"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(ForeignKey("repositories.id", ondelete="CASCADE"))
    pr: Mapped[int] = mapped_column(Integer)
    head_sha: Mapped[str] = mapped_column(String(40))
    state: Mapped[str] = mapped_column(String(16), default=ReviewState.RUNNING)
    github_review_id: Mapped[int | None] = mapped_column(BigInteger)
    set_sha256: Mapped[str | None] = mapped_column(String(64))  # the header's lessons
    lessons: Mapped[int] = mapped_column(Integer, default=0)
    shards: Mapped[int] = mapped_column(Integer, default=0)
    calls_ok: Mapped[int] = mapped_column(Integer, default=0)
    calls_failed: Mapped[int] = mapped_column(Integer, default=0)
    calls_skipped: Mapped[int] = mapped_column(Integer, default=0)
    suggestions: Mapped[int] = mapped_column(Integer, default=0)
    draft: Mapped[str | None] = mapped_column(Text)  # JSON of the review as it is posted
    created_ms: Mapped[int] = mapped_column(BigInteger)
    finished_ms: Mapped[int | None] = mapped_column(BigInteger)


class ReviewCallRow(Base):
    """One seat × lens × shard call of a review and how it ended."""

    __tablename__ = "review_calls"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    review_id: Mapped[str] = mapped_column(ForeignKey("reviews.id", ondelete="CASCADE"), index=True)
    call_id: Mapped[str] = mapped_column(String(200))
    seat: Mapped[str] = mapped_column(String(100))
    lab: Mapped[str] = mapped_column(String(100))
    lens: Mapped[str] = mapped_column(String(100))
    shard: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str | None] = mapped_column(String(32))
    message: Mapped[str | None] = mapped_column(Text)
    duration_ms: Mapped[int] = mapped_column(Integer, default=0)
    set_sha256: Mapped[str | None] = mapped_column(String(64))  # all guidance the call was handed
    findings: Mapped[int] = mapped_column(Integer, default=0)
    dropped: Mapped[int] = mapped_column(Integer, default=0)
    memory_omitted: Mapped[int] = mapped_column(Integer, default=0)
    cross_omitted: Mapped[int] = mapped_column(Integer, default=0)
    prompt_chars: Mapped[int] = mapped_column(Integer, default=0)
    created_ms: Mapped[int] = mapped_column(BigInteger)


class ReviewAgreement(Base):
    """Another seat reported a posted suggestion's mechanism on the same line. Never a decision."""

    __tablename__ = "review_agreements"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    review_id: Mapped[str] = mapped_column(ForeignKey("reviews.id", ondelete="CASCADE"), index=True)
    suggestion_id: Mapped[str] = mapped_column(
        ForeignKey("suggestions.id", ondelete="CASCADE"), index=True
    )
    seat: Mapped[str] = mapped_column(String(100))
    lab: Mapped[str] = mapped_column(String(100))
    lens: Mapped[str] = mapped_column(String(100))
    created_ms: Mapped[int] = mapped_column(BigInteger)


class SuppressedFinding(Base):
    """A finding a review did not post: its mechanism was dismissed here (docs/writeback.md)."""

    __tablename__ = "suppressed_findings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(
        ForeignKey("repositories.id", ondelete="CASCADE"), index=True
    )
    review_id: Mapped[str] = mapped_column(ForeignKey("reviews.id", ondelete="CASCADE"), index=True)
    entry_id: Mapped[str] = mapped_column(ForeignKey("entries.id", ondelete="CASCADE"))
    receipt_id: Mapped[int | None] = mapped_column(Integer)  # the dismissal that suppressed it
    key: Mapped[str] = mapped_column(String(80))
    path: Mapped[str] = mapped_column(Text)
    line: Mapped[int | None] = mapped_column(Integer)
    seat: Mapped[str] = mapped_column(String(100))
    lens: Mapped[str] = mapped_column(String(100))
    title: Mapped[str] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(String(32))
    repository_wide: Mapped[bool] = mapped_column(Boolean, default=False)
    actor: Mapped[str | None] = mapped_column(String(100))
    created_ms: Mapped[int] = mapped_column(BigInteger)
